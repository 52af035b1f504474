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

    /// Enrolled? Which kind? Locked? It never counts or verifies; the one
    /// thing it writes is a timeout's restart (`restartTimeout`).
    public func status(uid: UInt32) -> StatusOutcome {
        statusAndNotice(uid: uid).outcome
    }

    /// The status, and the failed attempts the owner is to be told of
    /// before typing (`UserRecord.noticeBeforeAttempt`), from one reading
    /// of the record. Neither spends anything. `readOnly` (the owner's own
    /// `pingate status`, answered from anywhere) opens the record only for
    /// reading and writes nothing, not even a timeout's restart.
    public func statusAndNotice(uid: UInt32, readOnly: Bool = false) -> (outcome: StatusOutcome, notice: FailureNotice?) {
        var notice: FailureNotice? = nil
        do {
            // Opened for writing, as a verify opens it: where this process
            // cannot write the record (a read-only mount, a sandbox) no
            // attempt could be counted, so no PIN is offered, and the module
            // asks for the password only.
            let (outcome, restarts) = try store.withRecord(uid: uid, writable: !readOnly) { file -> (StatusOutcome, Bool) in
                guard let file else { return (.notEnrolled, false) }
                let record = try file.read()
                notice = record.noticeBeforeAttempt
                // A credential that cannot be checked is not offered: the module
                // then goes straight to the password instead of prompting in vain.
                _ = try store.loadKey()
                let block = policy.lockout.block(for: record, now: clock.reading())
                let outcome = status(of: record, block: block)
                switch outcome {
                case .locked, .disabled:
                    // A lockout that verifications still in flight may clear
                    // (one may be the right PIN) is not final: offer the
                    // prompt, and let verify wait for them and decide.
                    guard file.verificationsInFlight() else {
                        guard case .timeout(_, restartsFromNow: true)? = block else { return (outcome, false) }
                        return (outcome, true)
                    }
                    return (.enrolled(kind: record.kind, gridSize: record.gridSize, pinLength: record.pinLength, failures: record.failures), false)
                default:
                    return (outcome, false)
                }
            }
            if restarts, !readOnly { restartTimeout(uid: uid) }
            return (outcome, notice)
        } catch {
            return (.storeError(FailClosedError(error)), nil)
        }
    }

    /// A timeout whose start this boot's clock cannot measure (the last
    /// failure was in another boot) runs again in full from now, and the
    /// restart is written, so that it runs out: no client attempts while
    /// the status says locked, so the status writes it, under the lock, as
    /// a refused attempt does. The lock is tried without waiting (a status
    /// never waits): if it is held, or the write fails, the next status
    /// tries again, and the timeout only starts later (fail closed).
    private func restartTimeout(uid: UInt32) {
        _ = try? store.withRecord(uid: uid, writable: true) { file in
            guard let file else { return }
            _ = try file.withLock(until: .now()) {
                var record = try file.read()
                let now = clock.reading()
                // Without this boot's clock, a stamp would measure nothing.
                guard now.boot != nil,
                      case .timeout(_, restartsFromNow: true)? = policy.lockout.block(for: record, now: now) else { return }
                try restart(&record, now: now, file: file)
            }
        }
    }

    /// The state `record` is in now, without any I/O (for listing many users).
    public func status(of record: UserRecord) -> StatusOutcome {
        status(of: record, block: policy.lockout.block(for: record, now: clock.reading()))
    }

    private func status(of record: UserRecord, block: LockoutBlock?) -> StatusOutcome {
        switch block {
        case .disabled: return .disabled(failures: record.failures)
        case let .timeout(remaining, _): return .locked(seconds: remaining, failures: record.failures)
        case nil: return .enrolled(kind: record.kind, gridSize: record.gridSize, pinLength: record.pinLength, failures: record.failures)
        }
    }

    /// Verifies typed `input` for `uid`. Counts the attempt unless it is refused
    /// (locked, disabled, malformed, not enrolled, store error). A success
    /// marks `sessionOpener`, a process outside any session that may now
    /// open one with it, in the same write (`PINOpenedSessions`).
    public func verify(uid: UInt32, input: borrowing Secret, sessionOpener: ProcessInstance? = nil) -> VerifyOutcome {
        withHasher { hasher in try attempt(uid: uid, input: input, hasher: hasher, replacement: nil, sessionOpener: sessionOpener) }
    }

    /// Verifies `current` (a counted attempt) and, if it is right, replaces the
    /// credential with `replacement` in the same locked update.
    public func change(uid: UInt32, current: borrowing Secret, replacement: borrowing Credential) -> VerifyOutcome {
        withHasher { hasher in
            let hashed = try Replacement(hashing: replacement, uid: uid, with: hasher)
            return try attempt(uid: uid, input: current, hasher: hasher, replacement: hashed, sessionOpener: nil)
        }
    }

    /// The key is loaded before anything is counted: a missing or unsafe key
    /// fails closed without spending the user's attempts.
    private func withHasher(_ body: (borrowing CredentialHasher) throws -> VerifyOutcome) -> VerifyOutcome {
        do {
            return try body(CredentialHasher(key: try store.loadKey(), parameters: policy.kdf))
        } catch {
            return .storeError(FailClosedError(error))
        }
    }

    private func attempt(uid: UInt32, input: borrowing Secret, hasher: borrowing CredentialHasher, replacement: Replacement?,
                         sessionOpener: ProcessInstance?) throws -> VerifyOutcome {
        for _ in 0..<3 {
            let outcome: VerifyOutcome? = try store.withRecord(uid: uid, writable: true) { file in
                guard let file else { return .notEnrolled }
                faultHook?(.opened)
                return try attempt(on: file, input: input, hasher: hasher, replacement: replacement, sessionOpener: sessionOpener)
            }
            if let outcome { return outcome }
        }
        throw StoreError.recordReplaced(path: store.location.recordPath(forUID: uid), duringVerification: false)
    }

    /// Steps 1–5 on an open record. Returns nil if root replaced the record
    /// before it was counted (the caller reopens it).
    private func attempt(on file: RecordFile, input: borrowing Secret, hasher: borrowing CredentialHasher, replacement: Replacement?,
                         sessionOpener: ProcessInstance?) throws -> VerifyOutcome? {
        let counted: CountedAttempt
        switch try admit(input, on: file, hasher: hasher) {
        case nil: return nil
        case let .refused(outcome)?: return outcome
        case let .repeated(failures)?:
            // Answered at once, without the KDF: running it for every repeat
            // would let anyone spend CPU and memory without limit, and it
            // could only say again what it said (a new credential clears the
            // tag). The typist learns only that this answer was given before.
            return .repeatedWrong(failures: failures, attemptsLeft: policy.lockout.attemptsLeft(afterFailures: failures))
        case let .counted(attempt)?: counted = attempt
        }
        defer { file.endVerification() }

        // Step 4: the slow part, with no lock held.
        let matched = try hasher.check(counted.credential, uid: file.uid, against: counted.record.hash)
        faultHook?(.verified)
        guard matched else {
            // Best effort: a tag that cannot be kept (a full disk) only
            // means the next repeat is counted; the answer is still "wrong".
            try? rememberWrong(counted, on: file, hasher: hasher)
            return wrong(afterFailures: counted.record.failures)
        }
        return try clear(counted, on: file, hasher: hasher, replacement: replacement, sessionOpener: sessionOpener)
    }

    /// Keeps the repeat tag of a credential just verified wrong, unless root
    /// replaced the credential meanwhile. Only now, after the verification:
    /// identical guesses made in parallel before it are all counted.
    private func rememberWrong(_ attempt: borrowing CountedAttempt, on file: RecordFile, hasher: borrowing CredentialHasher) throws {
        let tag = hasher.repeatTag(attempt.credential, uid: file.uid)
        _ = try file.withLock {
            var record = try file.read()
            guard record.hash == attempt.record.hash else { return }
            if let last = record.lastWrongTag, tag.constantTimeEquals(last) { return }
            // The one copy out of the `Secret`: the tag of an answer just
            // verified wrong, which the record keeps on disk anyway.
            record.lastWrongTag = tag.withUnsafeBytes { Array($0) }
            // Lost in a crash, the same wrong guess is counted again: stricter.
            try file.write(record, durability: .pageCache)
        }
    }

    private func wrong(afterFailures failures: Int) -> VerifyOutcome {
        .wrong(failures: failures,
               attemptsLeft: policy.lockout.attemptsLeft(afterFailures: failures),
               lockedSeconds: policy.lockout.timeout(afterFailures: failures),
               disabled: policy.lockout.isDisabled(afterFailures: failures))
    }
}
