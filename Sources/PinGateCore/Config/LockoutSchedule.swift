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

    /// Attempts that may still be made before one more failure starts a
    /// timeout or the disable: after the 1st of 4 free failures, 4 (the 5th
    /// attempt is allowed; its failure locks). 0 once a timeout is in force.
    public func attemptsLeft(afterFailures failures: Int) -> Int {
        if isDisabled(afterFailures: failures) { return 0 }
        return max(0, min(maxFailures, freeFailures + 1) - failures)
    }
}
