/// Root's operations on the store: enrol, replace, unlock, remove. The CLI
/// checks that it runs as root; the store's ownership checks back that up.
public struct Administration: Sendable {
    public let store: Store
    public let policy: Policy
    public let clock: any Clock

    public init(store: Store, policy: Policy, clock: any Clock = SystemClock()) {
        self.store = store
        self.policy = policy
        self.clock = clock
    }

    /// Creates `uid`'s record with a fresh hash of `credential`, bound to the
    /// account `uid` has now (`AccountBinding`). Without
    /// `replacing`, an existing record is an error (`StoreError.recordExists`).
    public func enroll(uid: UInt32, credential: borrowing Credential, replacing: Bool) throws {
        let hasher = CredentialHasher(key: try store.loadKey(), parameters: policy.kdf)
        let (kind, gridSize, pinLength) = credential.recordShape
        let binding = try AccountBinding.forEnrolment(uid: uid, accounts: store.accounts)
        let hash = try hasher.hash(credential, uid: uid)
        let record = UserRecord(uid: uid, binding: binding, kind: kind, gridSize: gridSize, pinLength: pinLength, hash: hash, now: clock.now())
        try store.createRecord(record, replacing: replacing)
    }

    /// Sets a new credential in place (root's `change`), clearing failures.
    /// Returns false if the user is not enrolled.
    public func replaceCredential(uid: UInt32, with credential: borrowing Credential) throws -> Bool {
        let hasher = CredentialHasher(key: try store.loadKey(), parameters: policy.kdf)
        let (kind, gridSize, pinLength) = credential.recordShape
        let hash = try hasher.hash(credential, uid: uid)
        let now = clock.now()
        return try store.updateRecord(uid: uid) { record in
            record.kind = kind
            record.gridSize = gridSize
            record.pinLength = pinLength
            record.hash = hash
            record.changedAt = now
            record.clearLockout()
        } != nil
    }

    /// Clears failures, timeouts and a disable. Returns false if not enrolled.
    public func unlock(uid: UInt32) throws -> Bool {
        try store.updateRecord(uid: uid) { $0.clearLockout() } != nil
    }

    public func remove(uid: UInt32) throws -> Bool {
        try store.removeRecord(uid: uid)
    }
}
