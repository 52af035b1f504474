import Glibc

/// Where the kernel publishes the running boot's id, one UUID line.
let bootIDPath = "/proc/sys/kernel/random/boot_id"

/// Seconds since boot, suspend included (CLOCK_BOOTTIME). Unlike the wall
/// clock, settimeofday and NTP steps do not move it; unlike CLOCK_MONOTONIC,
/// it keeps counting while the machine sleeps, so a lockout runs out during
/// a suspend as it would on the wall clock.
func bootClockSeconds() throws -> Int64 {
    var time = timespec()
    _ = try retryingOnInterrupt { clock_gettime(CLOCK_BOOTTIME, &time) }
    return Int64(time.tv_sec)
}

/// The running boot's id; nil if the kernel's file is missing (no /proc).
public func readBootID() throws -> BootID? {
    guard let text = try readSmallFile(bootIDPath, limit: 64) else { return nil }
    return BootID(parsing: text)
}
