/// The two clocks the lockout reads. The wall clock dates what records show
/// (last failure, last success); timeouts are measured on the boot clock,
/// which setting the time does not move, and restart in full when it cannot
/// be compared (after a reboot). So no clock change shortens a lockout.
public protocol Clock: Sendable {
    /// Wall-clock Unix seconds.
    func now() -> Int64
    /// The boot clock now, or nil if it cannot be read (then every timeout in
    /// force restarts in full: unknown is never taken for "time has passed").
    func bootNow() -> BootInstant?
}

/// Both clocks, read at one moment.
public struct ClockReading: Equatable, Sendable {
    /// Wall-clock Unix seconds, for what records show.
    public var wall: Int64
    /// The boot clock, for timeouts; nil if it cannot be read.
    public var boot: BootInstant?

    public init(wall: Int64, boot: BootInstant?) {
        self.wall = wall
        self.boot = boot
    }
}

extension Clock {
    public func reading() -> ClockReading { ClockReading(wall: now(), boot: bootNow()) }
}

public struct SystemClock: Clock {
    public init() {}
    public func now() -> Int64 { wallClockSeconds() }

    public func bootNow() -> BootInstant? {
        guard let bootID = SystemClock.bootID, let seconds = try? bootClockSeconds() else { return nil }
        return BootInstant(bootID: bootID, seconds: seconds)
    }

    /// Read once: a process never outlives the boot it started in.
    private static let bootID: BootID? = try? readBootID()
}
