/// When the locker may start the UI again after it died or could not be
/// started: at once (0.1 s) after a lone failure, every 2 s once it fails
/// more than three times in 10 s, so a broken UI cannot spin the CPU. Both
/// lockers (X11's and Wayland's) keep their cover meanwhile.
public struct RestartPacing: Sendable {
    private var recentFailures: [Double] = []
    /// The monotonic time (seconds) from which a start is due.
    public private(set) var startAt = 0.0

    public init() {}

    /// The UI died or could not be started at `now`.
    public mutating func failed(at now: Double) {
        recentFailures = recentFailures.filter { now - $0 < 10 } + [now]
        startAt = now + (recentFailures.count > 3 ? 2.0 : 0.1)
    }

    /// The UI was ended on purpose (replaced for a new geometry): no failure.
    public mutating func startNow() { startAt = 0 }

    public func due(at now: Double) -> Bool { now >= startAt }
}
