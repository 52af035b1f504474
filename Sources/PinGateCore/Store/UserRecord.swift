/// One user's state: the credential's hash and the lockout counters.
/// Times are Unix seconds; 0 means "never".
public struct UserRecord: Equatable, Sendable {
    public var uid: UInt32
    /// The account the record was made for (`AccountBinding`): a reader
    /// refuses the record when its uid is someone else's now.
    public var binding: AccountBinding
    public var kind: CredentialKind
    /// Grid size of a pattern, 0 for a PIN.
    public var gridSize: Int
    /// Digits of a PIN; 0 for a pattern, and for PINs enrolled before the
    /// length was recorded.
    public var pinLength: Int
    /// The Argon2id string from `CredentialHasher`.
    public var hash: String
    public var failures: Int
    /// Wall-clock time of the last failure, for display; timeouts run on `lastFailureBoot`.
    public var lastFailure: Int64
    /// The boot clock at the last failure; nil in records from before boot
    /// stamps (a timeout then restarts in full, see `LockoutSchedule.block`).
    public var lastFailureBoot: BootInstant?
    public var disabled: Bool
    public var createdAt: Int64
    public var changedAt: Int64
    public var lastSuccess: Int64
    /// How many attempts have ever been counted on this record; only counting
    /// changes it, by one, so a verification knows which failures came after its own.
    public var attemptSerial: UInt64
    /// Wall-clock time of the first of the failures counted now; 0 when none.
    public var firstFailure: Int64
    /// Failures a success or an admin cleared that the owner has not been
    /// told of yet, and the time of the first of them (`FailureNotice`).
    public var unseenFailures: Int
    public var unseenSince: Int64
    /// `CredentialHasher.repeatTag` of the last credential verified wrong:
    /// the same answer again is refused as wrong without being counted (a
    /// client that retries on its own, a person pressing Enter twice).
    public var lastWrongTag: [UInt8]?
    /// The processes of this boot that may have opened a session with the
    /// PIN, which the first-sign-in rule does not count (`PINOpenedSessions`).
    public var pinOpenedSessions: PINOpenedSessions

    public init(uid: UInt32, binding: AccountBinding, kind: CredentialKind, gridSize: Int, pinLength: Int = 0, hash: String, now: Int64) {
        self.uid = uid
        self.binding = binding
        self.kind = kind
        self.gridSize = gridSize
        self.pinLength = pinLength
        self.hash = hash
        failures = 0
        lastFailure = 0
        lastFailureBoot = nil
        disabled = false
        createdAt = now
        changedAt = now
        lastSuccess = 0
        attemptSerial = 0
        firstFailure = 0
        unseenFailures = 0
        unseenSince = 0
        lastWrongTag = nil
        pinOpenedSessions = .none
    }
}

extension UserRecord {
    /// Root's clearing (unlock, a new credential): no failures, no timeout
    /// on either clock, not disabled. The attempt serial goes on counting,
    /// and the owner is still told of the failures (`setAsideForNotice`).
    public mutating func clearLockout() {
        setAsideForNotice(failures)
        failures = 0
        firstFailure = 0
        lastWrongTag = nil
        lastFailure = 0
        lastFailureBoot = nil
        disabled = false
    }
}
