/// How an attempt enters the count before it is verified, and how much of the
/// count a success may clear afterwards. Verifications run unlocked between
/// the two, so other attempts may be counted in between.
extension UserRecord {
    /// Counts one attempt as a failure stamped now (step 3 of the verifier's
    /// order) and returns its attempt serial, for `failuresCounted(after:)`.
    mutating func countAttempt(at now: ClockReading) -> UInt64 {
        failures += 1
        stampFailure(at: now)
        attemptSerial += 1
        return attemptSerial
    }

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
}
