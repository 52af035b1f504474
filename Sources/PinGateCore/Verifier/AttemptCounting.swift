/// How an attempt enters the count before it is verified, and how much of the
/// count a success may clear afterwards. Verifications run unlocked between
/// the two, so other attempts may be counted in between.
extension UserRecord {
    /// Counts one attempt as a failure stamped now (step 3 of the verifier's
    /// order) and returns its attempt serial, for `failuresCounted(after:)`.
    mutating func countAttempt(at now: ClockReading) -> UInt64 {
        if failures == 0 { firstFailure = now.wall }
        failures += 1
        stampFailure(at: now)
        attemptSerial += 1
        return attemptSerial
    }

    /// The time of the last failure on both clocks, as it stands.
    var failureStamps: FailureStamps { FailureStamps(wall: lastFailure, boot: lastFailureBoot) }

    /// Marks now as the time of the last failure, on both clocks: the timeout
    /// in force runs from here.
    mutating func stampFailure(at now: ClockReading) {
        lastFailure = now.wall
        lastFailureBoot = now.boot
    }

    /// The failures that still stand when the attempt counted as `serial`
    /// succeeds: the ones counted after it (wrong guesses raced against the
    /// right one stay counted), but never more than stand now (a later success
    /// or an admin may have cleared them already).
    func failuresCounted(after serial: UInt64) -> Int {
        // A serial that went back means the record was rewritten by something
        // that does not keep it; which failures came later is unknown, so all
        // of them stay counted (fail closed).
        guard attemptSerial >= serial else { return failures }
        return Int(clamping: min(UInt64(failures), attemptSerial - serial))
    }

    /// Keeps `count` failures that are being cleared for the owner's notice:
    /// they add to the unseen ones, whose first time stays the earliest.
    mutating func setAsideForNotice(_ count: Int) {
        guard count > 0 else { return }
        if unseenFailures == 0 { unseenSince = firstFailure != 0 ? firstFailure : lastFailure }
        // Held within what the answer's grammar takes (unseen ≤ 10⁶).
        unseenFailures = min(unseenFailures + count, 1_000_000)
    }

    /// A success clears the failures counted before its own attempt (its
    /// own count included); those before it are set aside for the notice.
    ///
    /// Its own count stamped it as a failure (step 3 counts before it
    /// verifies). When no failure remains and nothing stamped the record
    /// since (`counted`, its stamps after that count), the stamps go back to
    /// `before`, what the count found: the last failure shown is one that
    /// was, and no timeout can run from a success. Otherwise a later count,
    /// an unlock or a timeout's restart owns them, and they stay.
    mutating func clearFailures(forSuccessOf serial: UInt64, stamps counted: FailureStamps, before: FailureStamps) {
        let remaining = failuresCounted(after: serial)
        setAsideForNotice(failures - remaining - 1)
        failures = remaining
        firstFailure = remaining > 0 ? lastFailure : 0
        lastWrongTag = nil
        if remaining == 0, failureStamps == counted {
            (lastFailure, lastFailureBoot) = (before.wall, before.boot)
        }
    }

    /// The notice the owner has not seen, taken: it is told once.
    mutating func takeNotice() -> FailureNotice? {
        guard unseenFailures > 0 else { return nil }
        defer { (unseenFailures, unseenSince) = (0, 0) }
        return FailureNotice(failures: unseenFailures, firstAt: unseenSince)
    }

    /// The notice waiting for the owner, left in place: failures a success
    /// (or an admin) cleared that the owner has not been told of.
    public var pendingNotice: FailureNotice? {
        unseenFailures > 0 ? FailureNotice(failures: unseenFailures, firstAt: unseenSince) : nil
    }

    /// What the owner is told before typing the PIN: every failed attempt
    /// not yet told — those cleared unseen and those counted since the last
    /// success — with the time of the first. A status shows it and never
    /// spends it; a success spends it only where it was shown
    /// (`Verifier.takeNotice(uid:shown:)`).
    public var noticeBeforeAttempt: FailureNotice? {
        let total = unseenFailures + failures
        guard total > 0 else { return nil }
        let first = unseenFailures > 0 ? unseenSince : firstFailure
        return FailureNotice(failures: total, firstAt: first)
    }
}

/// The last failure's time on both clocks: the wall clock's for display,
/// the boot clock's for the timeout (`UserRecord.lastFailure`, `lastFailureBoot`).
struct FailureStamps: Equatable {
    let wall: Int64
    let boot: BootInstant?
}
