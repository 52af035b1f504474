import Glibc
import Testing
@testable import PinGateCore

// Each thread opens its own descriptor, so flock and OFD locks behave between
// threads exactly as between processes (they belong to the open file
// description). The process-level versions are in Tests/IntegrationTests.
@Suite("Parallel attempts against one record", .serialized)
struct ConcurrencyTests {
    @Test("64 parallel wrong guesses: exactly 5 counted, at most 5 KDF runs, the rest refused as locked")
    func parallelWrongGuesses() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let counter = Counter()
        var verifier = Verifier(store: store.store, policy: store.policy, clock: SystemClock())
        verifier.faultHook = { step in if step == .verified { counter.add("kdf") } }
        let outcomes = Counter()
        let frozen = verifier
        runConcurrently(64) { index in
            switch frozen.verify(uid: 1000, input: secret(String(format4(1111 + index)))) {
            case .wrong: outcomes.add("wrong")
            case .locked: outcomes.add("locked")
            case .ok: outcomes.add("ok")
            default: outcomes.add("other")
            }
        }
        #expect(counter["kdf"] == 5)
        #expect(outcomes["wrong"] == 5)
        #expect(outcomes["locked"] == 59)
        #expect(outcomes["ok"] == 0 && outcomes["other"] == 0)
        #expect(try store.record()?.failures == 5)
    }

    @Test("64 parallel correct PINs all succeed and leave 0 failures: a right PIN never locks anyone out")
    func parallelCorrectPINs() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let verifier = Verifier(store: store.store, policy: store.policy, clock: SystemClock())
        let outcomes = Counter()
        runConcurrently(64) { _ in
            outcomes.add(verifier.verify(uid: 1000, input: secret("0427")) == .ok ? "ok" : "refused")
        }
        #expect(outcomes["ok"] == 64)
        #expect(try store.record()?.failures == 0)
    }

    @Test("a mix of wrong and right in parallel: never more KDF runs than free failures + successes")
    func mixedParallel() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let kdfRuns = Counter()
        var verifier = Verifier(store: store.store, policy: store.policy, clock: SystemClock())
        verifier.faultHook = { step in if step == .verified { kdfRuns.add("kdf") } }
        let frozen = verifier
        let outcomes = Counter()
        runConcurrently(32) { index in
            let outcome = frozen.verify(uid: 1000, input: secret(index % 2 == 0 ? "0427" : "9999"))
            outcomes.add(outcome == .ok ? "ok" : (outcome.isWrong ? "wrong" : "refused"))
        }
        // Every wrong answer was a verification that counted; between two
        // successes at most 5 wrong ones can run. (Whether any right PIN gets
        // through depends on the order the threads arrive in: five wrong ones
        // first lock the record, as they should.)
        #expect(kdfRuns["kdf"] == outcomes["ok"] + outcomes["wrong"])
        #expect(outcomes["wrong"] <= 5 * (outcomes["ok"] + 1))
    }

    @Test("status does not call a lockout final while a verification that may clear it is in flight")
    func statusWaitsOutInFlightVerifications() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        for guess in 1...4 { _ = store.verifier.verify(uid: 1000, input: secret(wrongPIN(guess))) }
        let now = Verifier(store: store.store, policy: store.policy, clock: SystemClock())
        let parked = ParkedAttempt(now, input: "0427", parkedAt: .released)
        // The 5th attempt is counted (a timeout is now on disk) but still in flight.
        #expect(now.status(uid: 1000) == .enrolled(kind: .pin, gridSize: 0, pinLength: 4, failures: 5))
        #expect(parked.finish() == .ok)
        #expect(now.status(uid: 1000) == .enrolled(kind: .pin, gridSize: 0, pinLength: 4, failures: 0))
        // With nothing in flight, the same count is a lockout.
        for guess in 1...5 { _ = now.verify(uid: 1000, input: secret(wrongPIN(guess))) }
        guard case .locked = now.status(uid: 1000) else { Issue.record("expected locked"); return }
    }

    @Test("two users verify in parallel: one stalled in its KDF does not hold up the other")
    func differentUsersDoNotWait() throws {
        let store = try TestStore()
        try store.enrollPIN("0427", uid: 1000)
        try store.enrollPIN("3859", uid: 1001)
        let parked = ParkedAttempt(store.verifier, input: "0427", parkedAt: .released)
        // User 1000's verification is parked between counting and its KDF.
        #expect(store.verifier.verify(uid: 1001, input: secret("3859")) == .ok)
        #expect(store.verifier.status(uid: 1000) == .enrolled(kind: .pin, gridSize: 0, pinLength: 4, failures: 1))
        #expect(parked.finish() == .ok)
        #expect(try store.record(1000)?.failures == 0)
    }
}

private func format4(_ value: Int) -> String {
    let text = String(value % 10_000)
    return String(repeating: "0", count: 4 - text.count) + text
}

extension VerifyOutcome {
    var isWrong: Bool { if case .wrong = self { return true } else { return false } }
}
