/// Why a record refuses attempts right now.
enum LockoutBlock: Equatable {
    /// A timeout is in force for `remaining` seconds. `clockRolledBack` means
    /// the clock reads earlier than the last failure: the full timeout restarts.
    case timeout(remaining: Int64, clockRolledBack: Bool)
    case disabled
}

extension LockoutSchedule {
    /// The block in force for `record` at `now`, or nil if an attempt may be made.
    func block(for record: UserRecord, now: Int64) -> LockoutBlock? {
        if record.disabled || isDisabled(afterFailures: record.failures) { return .disabled }
        let timeout = timeout(afterFailures: record.failures)
        guard timeout > 0 else { return nil }
        if now < record.lastFailure { return .timeout(remaining: timeout, clockRolledBack: true) }
        let remaining = record.lastFailure + timeout - now
        return remaining > 0 ? .timeout(remaining: remaining, clockRolledBack: false) : nil
    }
}
