/// Checks credentials against the store under the lockout policy, in the
/// order docs/design.md describes ("The verifier's order"):
///
/// 1. open and check the record, take its writer lock;
/// 2. if a timeout or disable is in force, answer locked/disabled;
/// 3. count the attempt and fdatasync it, mark a verification in flight,
///    release the writer lock;
/// 4. run the KDF and the constant-time compare;
/// 5. on success clear the count up to this attempt (locked, on disk) and
///    answer ok; on failure answer wrong.
///
/// No answer exists before step 3 is on disk, so killing any process at any
/// moment never yields an uncounted guess, and N parallel wrong guesses meet
/// the lockout after `freeFailures + 1` verifications.
///
/// One refinement: an attempt that finds a lockout in force while other
/// verifications of the same record are still in flight waits for them
/// instead of answering at once — one of them may be a correct PIN that
/// clears the lockout. So 64 parallel correct PINs all succeed, while 64
/// parallel wrong ones still get exactly 5 verifications.
///
/// Nothing waits forever (a user may SIGSTOP their own helper while it holds
/// a lock): every lock wait before the count shares one `LockWait` deadline.
/// A writer lock still held then is a store error naming the holder, and
/// verifications still in flight then leave the lockout to answer `locked`.
/// Either way nothing is counted. (The clear after a success has a deadline
/// of its own; if it passes, the attempt stays counted: fail closed.)
public struct Verifier: Sendable {
    public let store: Store
    public let policy: Policy
    public let clock: any Clock
    public var faultHook: VerifierFaultHook?

    public init(store: Store, policy: Policy, clock: any Clock = SystemClock(), faultHook: VerifierFaultHook? = nil) {
        self.store = store
        self.policy = policy
        self.clock = clock
        self.faultHook = faultHook
    }

    /// Enrolled? Which kind? Locked? Read-only: it never counts or verifies.
    public func status(uid: UInt32) -> StatusOutcome {
        do {
            return try store.withRecord(uid: uid, writable: false) { file in
                guard let file else { return .notEnrolled }
                let record = try file.read()
                // A credential that cannot be checked is not offered: the module
                // then goes straight to the password instead of prompting in vain.
                _ = try store.loadKey()
                let outcome = status(of: record)
                switch outcome {
                case .locked, .disabled:
                    // A lockout that verifications still in flight may clear
                    // (one may be the right PIN) is not final: offer the
                    // prompt, and let verify wait for them and decide.
                    guard file.verificationsInFlight() else { return outcome }
                    return .enrolled(kind: record.kind, gridSize: record.gridSize, pinLength: record.pinLength, failures: record.failures)
                default:
                    return outcome
                }
            }
        } catch {
            return .storeError(String(describing: error))
        }
    }

    /// The state `record` is in now, without any I/O (for listing many users).
    public func status(of record: UserRecord) -> StatusOutcome {
        switch policy.lockout.block(for: record, now: clock.reading()) {
        case .disabled: return .disabled(failures: record.failures)
        case let .timeout(remaining, _): return .locked(seconds: remaining, failures: record.failures)
        case nil: return .enrolled(kind: record.kind, gridSize: record.gridSize, pinLength: record.pinLength, failures: record.failures)
        }
    }

    /// Verifies typed `input` for `uid`. Counts the attempt unless it is refused
    /// (locked, disabled, malformed, not enrolled, store error).
    public func verify(uid: UInt32, input: SecretBytes) -> VerifyOutcome {
        attempt(uid: uid, input: input, replacement: nil)
    }

    /// Verifies `current` (a counted attempt) and, if it is right, replaces the
    /// credential with `replacement` in the same locked update.
    public func change(uid: UInt32, current: SecretBytes, replacement: Credential) -> VerifyOutcome {
        attempt(uid: uid, input: current, replacement: replacement)
    }

    private func attempt(uid: UInt32, input: SecretBytes, replacement: Credential?) -> VerifyOutcome {
        do {
            // The key is loaded before anything is counted: a missing or unsafe
            // key fails closed without spending the user's attempts.
            let hasher = CredentialHasher(key: try store.loadKey(), parameters: policy.kdf)
            let replacementHash = try replacement.map { try hasher.hash($0, uid: uid) }
            for _ in 0..<3 {
                let outcome: VerifyOutcome? = try store.withRecord(uid: uid, writable: true) { file in
                    guard let file else { return .notEnrolled }
                    faultHook?(.opened)
                    return try attempt(on: file, input: input, hasher: hasher,
                                       replacement: replacement.map { ($0, replacementHash ?? "") })
                }
                if let outcome { return outcome }
            }
            return .storeError("record \(store.location.recordPath(forUID: uid)) keeps being replaced; try again")
        } catch {
            return .storeError(String(describing: error))
        }
    }

    /// Steps 1–5 on an open record. Returns nil if root replaced the record
    /// before it was counted (the caller reopens it).
    private func attempt(
        on file: RecordFile, input: SecretBytes, hasher: CredentialHasher,
        replacement: (credential: Credential, hash: String)?
    ) throws -> VerifyOutcome? {
        var record: UserRecord
        let credential: Credential
        let now: ClockReading
        let deadline = LockWait.deadline()
        while true {
            guard try file.lock(until: deadline) else { return nil }
            record = try file.read()
            faultHook?(.locked)
            let moment = clock.reading()
            if let block = policy.lockout.block(for: record, now: moment) {
                // Past the deadline the lockout answers even with verifications
                // still in flight: one of them may be stopped for good.
                if !deadline.hasPassed, file.verificationsInFlight() {
                    file.unlock()
                    _ = file.waitForVerificationsInFlight(until: deadline)
                    continue
                }
                defer { file.unlock() }
                switch block {
                case .disabled:
                    return .disabled(failures: record.failures)
                case let .timeout(remaining, restartsFromNow):
                    if restartsFromNow {
                        // Restart the full timeout from now, durably: neither a
                        // reboot nor a record without a boot stamp shortens it.
                        record.stampFailure(at: moment)
                        try file.write(record)
                    }
                    return .locked(seconds: remaining, failures: record.failures)
                }
            }
            do {
                credential = try Credential(parsing: input, kind: record.kind, gridSize: record.gridSize, policy: policy)
            } catch let error as CredentialError {
                file.unlock()
                return .malformed(error)
            }
            guard hasher.canAllocateWorkingMemory(toVerify: record.hash) else {
                file.unlock()
                let bytes = CredentialHasher.memoryBytes(of: record.hash) ?? hasher.parameters.memoryBytes
                return .storeError(HashingError.outOfMemory(bytes: bytes).description)
            }
            now = moment
            break
        }

        // Step 3: count first.
        let serial = record.countAttempt(at: now)
        if policy.lockout.isDisabled(afterFailures: record.failures) { record.disabled = true }
        do {
            try file.write(record)
            faultHook?(.counted)
            try file.beginVerification()
        } catch {
            file.unlock()
            throw error
        }
        file.unlock()
        faultHook?(.released)
        defer { file.endVerification() }

        // Step 4: the slow part, with no lock held.
        let matched = try hasher.check(credential, uid: file.uid, against: record.hash)
        faultHook?(.verified)
        guard matched else {
            return .wrong(
                failures: record.failures,
                attemptsLeft: policy.lockout.attemptsLeft(afterFailures: record.failures),
                lockedSeconds: policy.lockout.timeout(afterFailures: record.failures),
                disabled: policy.lockout.isDisabled(afterFailures: record.failures))
        }

        // Step 5: clear, and upgrade the hash if the cost parameters changed.
        let upgradedHash = replacement == nil && hasher.needsRehash(record.hash)
            ? try? hasher.hash(credential, uid: file.uid) : nil
        guard try file.lock() else {
            return .storeError("record \(file.path) was replaced during verification; try again")
        }
        defer { file.unlock() }
        var cleared = try file.read()
        // Clear only what was counted up to this attempt: wrong guesses counted
        // while it was being verified are not erased by its success.
        cleared.failures = cleared.failuresCounted(after: serial)
        cleared.disabled = policy.lockout.isDisabled(afterFailures: cleared.failures)
        cleared.lastSuccess = clock.now()
        if let replacement {
            cleared.kind = replacement.credential.kind
            cleared.gridSize = replacement.credential.gridSize
            cleared.pinLength = replacement.credential.pinLength
            cleared.hash = replacement.hash
            cleared.changedAt = cleared.lastSuccess
        } else if let upgradedHash {
            cleared.hash = upgradedHash
        }
        try file.write(cleared)
        faultHook?(.cleared)
        return .ok
    }
}
