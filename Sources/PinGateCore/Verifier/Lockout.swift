/// Why a record refuses attempts right now.
enum LockoutBlock: Equatable {
    /// A timeout is in force for `remaining` seconds. `restartsFromNow` means
    /// its start cannot be measured on this boot's clock (the last failure was
    /// in another boot, or the record has no boot stamp): the full timeout runs
    /// again from now.
    case timeout(remaining: Int64, restartsFromNow: Bool)
    case disabled
}

extension LockoutSchedule {
    /// The block in force for `record` at `now`, or nil if an attempt may be
    /// made. Only the boot clock counts: setting the wall clock, forward or
    /// back, neither ends nor extends a timeout.
    func block(for record: UserRecord, now: ClockReading) -> LockoutBlock? {
        if record.disabled || isDisabled(afterFailures: record.failures) { return .disabled }
        let timeout = timeout(afterFailures: record.failures)
        guard timeout > 0 else { return nil }
        guard let boot = now.boot, let lastFailure = record.lastFailureBoot, let elapsed = boot.seconds(since: lastFailure) else {
            return .timeout(remaining: timeout, restartsFromNow: true)
        }
        // Both stamps are whole seconds of the boot clock, cut down, so
        // `elapsed` may be up to a second more than the time really passed:
        // the timeout holds through its last whole second too (reported as
        // 1), and never ends early.
        let remaining = timeout - elapsed
        return remaining >= 0 ? .timeout(remaining: max(remaining, 1), restartsFromNow: false) : nil
    }
}
