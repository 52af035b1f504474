import Glibc

/// A moment on CLOCK_MONOTONIC by which a wait must end.
///
/// Monotonic, not wall-clock: setting the clock (or a clock rolled back by an
/// attacker) neither stretches nor cuts a wait. Linux has no flock(2) or OFD
/// lock with a timeout, so bounded waits are non-blocking attempts repeated
/// by `retry(_:)` until the deadline.
public struct Deadline: Sendable, Comparable {
    /// Nanoseconds on CLOCK_MONOTONIC.
    let nanoseconds: UInt64

    /// The first pause between attempts, and the longest: short enough that a
    /// released lock is taken within ~10 ms, long enough that hundreds of
    /// waiting helpers do not spin a core.
    static let firstPauseNanoseconds: UInt64 = 1_000_000
    static let longestPauseNanoseconds: UInt64 = 10_000_000

    public static func now() -> Deadline { Deadline(nanoseconds: monotonicNanoseconds()) }

    /// `milliseconds` from now.
    public static func after(milliseconds: Int) -> Deadline {
        Deadline(nanoseconds: monotonicNanoseconds() + UInt64(max(0, milliseconds)) * 1_000_000)
    }

    public var hasPassed: Bool { monotonicNanoseconds() >= nanoseconds }

    /// Whole milliseconds until the deadline, rounded up; 0 once it has passed
    /// (for poll(2)'s timeout).
    public var millisecondsLeft: Int {
        let now = monotonicNanoseconds()
        return now >= nanoseconds ? 0 : Int((nanoseconds - now + 999_999) / 1_000_000)
    }

    public static func < (left: Deadline, right: Deadline) -> Bool { left.nanoseconds < right.nanoseconds }

    /// Calls `attempt` until it returns true or this deadline passes, pausing
    /// between attempts (1 ms, doubling up to 10 ms, never past the deadline).
    /// Always attempts at least once, so a passed deadline still takes a free
    /// lock. Returns the last attempt's result: false means timed out.
    public func retry(_ attempt: () throws -> Bool) rethrows -> Bool {
        var pause = Deadline.firstPauseNanoseconds
        while try !attempt() {
            let now = monotonicNanoseconds()
            guard now < nanoseconds else { return false }
            sleep(nanoseconds: min(pause, nanoseconds - now))
            pause = min(pause * 2, Deadline.longestPauseNanoseconds)
        }
        return true
    }
}

/// nanosleep(2). A signal may end the pause early; callers re-check their
/// deadline, so the rest of the pause is not slept.
func sleep(nanoseconds: UInt64) {
    var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
    _ = nanosleep(&request, nil)
}
