/// How failures turn into waiting time: `freeFailures` cost nothing, each later
/// failure starts a timeout from the table (the last entry repeats), and at
/// `maxFailures` the credential is disabled until an admin unlocks it.
/// Defaults follow Android's Gatekeeper: 4 free, then 1, 5, 15, 30, 90 minutes,
/// disabled at 10.
public struct LockoutSchedule: Equatable, Sendable {
    public var freeFailures: Int = 4
    public var timeouts: [Int64] = [60, 300, 900, 1_800, 5_400]
    public var maxFailures: Int = 10

    public init() {}

    /// The timeout in seconds that `failures` consecutive failures impose
    /// (0 while they are free).
    public func timeout(afterFailures failures: Int) -> Int64 {
        guard failures > freeFailures, !timeouts.isEmpty else { return 0 }
        return timeouts[min(failures - freeFailures - 1, timeouts.count - 1)]
    }

    public func isDisabled(afterFailures failures: Int) -> Bool { failures >= maxFailures }

    /// Wrong attempts left before the next timeout or the disable.
    public func attemptsLeft(afterFailures failures: Int) -> Int {
        if isDisabled(afterFailures: failures) { return 0 }
        return max(0, freeFailures - failures)
    }
}
