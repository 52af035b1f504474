import Synchronization
@testable import PinGateCore

/// A clock a test sets by hand. `advance(by:)` is time passing: both clocks
/// move. `setWallClock(to:)` and `moveWallClock(by:)` are someone setting the
/// clock: only the wall clock moves. `reboot(upFor:)` starts a new boot.
/// Verifications on other threads read it, so its state is behind a mutex.
final class ManualClock: Clock {
    private struct Readings {
        var wall: Int64
        var boot: BootInstant
    }

    private let readings: Mutex<Readings>

    init(_ wallSeconds: Int64, bootSeconds: Int64 = 600) {
        readings = Mutex(Readings(wall: wallSeconds, boot: BootInstant(bootID: newBootID(), seconds: bootSeconds)))
    }

    func now() -> Int64 { readings.withLock { $0.wall } }
    func bootNow() -> BootInstant? { readings.withLock { $0.boot } }

    /// `seconds` of time pass, on both clocks.
    func advance(by seconds: Int64) {
        precondition(seconds >= 0, "time does not go back; use moveWallClock(by:)")
        readings.withLock {
            $0.wall += seconds
            $0.boot.seconds += seconds
        }
    }

    func setWallClock(to seconds: Int64) { readings.withLock { $0.wall = seconds } }
    func moveWallClock(by seconds: Int64) { readings.withLock { $0.wall += seconds } }

    /// A new boot that has been up `seconds`; the wall clock reads on.
    func reboot(upFor seconds: Int64 = 20) {
        readings.withLock { $0.boot = BootInstant(bootID: newBootID(), seconds: seconds) }
    }
}

private func newBootID() -> BootID {
    BootID(bytes: (0..<BootID.byteCount).map { _ in UInt8.random(in: 1...255) })!
}
