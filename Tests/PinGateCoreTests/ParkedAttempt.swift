import Glibc
import Synchronization
@testable import PinGateCore

/// A verification on a thread of its own that stops at one step of the
/// verifier's order until `finish()`, so a test can run other attempts in
/// between — the interleavings that parallel processes produce by chance.
final class ParkedAttempt: Sendable {
    /// What the test thread and the parked thread share.
    private final class Shared: Sendable {
        struct State {
            var parked = false
            var released = false
            var outcome: VerifyOutcome?
        }
        let state = Mutex(State())
    }

    private let shared = Shared()
    private let thread: pthread_t

    /// Starts `verifier` on `input` for uid 1000 and returns once it is parked at `step`.
    init(_ verifier: Verifier, input: String, parkedAt step: VerifierStep) {
        var parking = verifier
        let shared = shared
        parking.faultHook = { reached in
            guard reached == step else { return }
            shared.state.withLock { $0.parked = true }
            while !shared.state.withLock({ $0.released }) { usleep(1_000) }
        }
        let run: @Sendable () -> Void = { [parking] in
            let outcome = parking.verify(uid: 1000, input: secret(input))
            shared.state.withLock { $0.outcome = outcome }
        }
        thread = startThread(run)
        while !shared.state.withLock({ $0.parked }) { usleep(1_000) }
    }

    /// Lets the verification go on and returns its answer.
    func finish() -> VerifyOutcome? {
        shared.state.withLock { $0.released = true }
        pthread_join(thread, nil)
        return shared.state.withLock { $0.outcome }
    }
}

/// Runs `body` on a new thread; join it with pthread_join. The one way the
/// tests start a thread (`ParkedAttempt`, `runConcurrently`).
func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t {
    final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    var thread = pthread_t()
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    pthread_create(&thread, nil, { raw in
        Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
        return nil
    }, context)
    return thread
}
