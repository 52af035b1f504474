import Glibc

// The wall and monotonic clocks. The boot clock, which a lockout measures
// its timeouts on, is read with the boot's id in BootClock.swift.

/// time(2): wall-clock Unix seconds, for what records show (a last failure,
/// a last success). Setting the clock moves it; never measure waits with it.
public func wallClockSeconds() -> Int64 { Int64(time(nil)) }

/// clock_gettime(CLOCK_MONOTONIC) in nanoseconds, for deadlines and
/// durations. Cannot fail with a valid clock id.
public func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}
