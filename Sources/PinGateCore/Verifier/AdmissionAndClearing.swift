// The verifier's two steps under the record's writer lock: admission
// (steps 1–3, `Verifier.admit`), which counts an attempt and produces a
// `CountedAttempt`, and clearing (step 5, `Verifier.clear`), which consumes it
// after a match. Step 4, the KDF, runs between them with no lock held
// (Verifier.swift).

/// An attempt that is counted and on disk (steps 1–3 of the verifier's order),
/// with its verification marked in flight: what step 4 checks and step 5 clears.
/// `~Copyable`: it holds the typed credential.
struct CountedAttempt: ~Copyable {
    /// The well-formed credential that was typed.
    let credential: Credential
    /// The record as counted: failures include this attempt.
    let record: UserRecord
    /// This attempt's place in the count: a success clears only the failures
    /// counted up to it (`UserRecord.failuresCounted(after:)`).
    let serial: UInt64
    /// The last-failure stamps as the count found them, put back by a
    /// success that leaves no failure (`UserRecord.clearFailures`).
    let stampsBeforeCount: FailureStamps
    /// Whether the record's hash was made with other parameters than the
    /// current ones: read once, with the check that it can be read at all.
    let needsRehash: Bool
}

/// A credential replacing the verified one (`change`), hashed before anything
/// is counted: what its record keeps, and no longer the credential itself.
struct Replacement {
    let kind: CredentialKind
    let gridSize: Int
    let pinLength: Int
    let hash: String

    init(hashing credential: borrowing Credential, uid: UInt32, with hasher: borrowing CredentialHasher) throws {
        (kind, gridSize, pinLength) = credential.recordShape
        hash = try hasher.hash(credential, uid: uid)
    }
}

/// What steps 1–3 make of an attempt.
enum Admission: ~Copyable {
    /// Counted and in flight: run the KDF, then `endVerification()`.
    case counted(CountedAttempt)
    /// Refused under the lock, nothing verified and nothing counted.
    case refused(VerifyOutcome)
    /// The credential verified wrong last time, typed again: not counted,
    /// not verified, answered wrong (with the failures standing).
    case repeated(failures: Int)

    var isCounted: Bool {
        switch self {
        case .counted: return true
        case .refused: return false
        case .repeated: return false
        }
    }
}

extension Verifier {
    /// Steps 1–3: take the writer lock, refuse if locked, disabled or
    /// malformed, else count the attempt, fdatasync it and mark it in flight.
    /// Every lock wait shares one `LockWait` deadline. Returns nil if root
    /// replaced the record before it was counted (the caller reopens it).
    func admit(_ input: borrowing Secret, on file: RecordFile, hasher: borrowing CredentialHasher) throws -> Admission? {
        let deadline = LockWait.deadline()
        while true {
            guard let step = try file.withLock(until: deadline, { try admitLocked(input, on: file, hasher: hasher, deadline: deadline) }) else {
                return nil
            }
            switch consume step {
            case let .decided(admission):
                if admission.isCounted { faultHook?(.released) }
                return admission
            case .waitForVerificationsInFlight:
                _ = file.waitForVerificationsInFlight(until: deadline)
            }
        }
    }

    private enum LockedStep: ~Copyable {
        case decided(Admission)
        /// A lockout is in force but verifications still in flight may clear
        /// it (one may be the right PIN): wait for them, unlocked, and look again.
        case waitForVerificationsInFlight
    }

    /// Steps 1–3 with the writer lock held.
    private func admitLocked(_ input: borrowing Secret, on file: RecordFile, hasher: borrowing CredentialHasher, deadline: Deadline) throws -> LockedStep {
        var record = try file.read()
        faultHook?(.lockHeld)
        let now = clock.reading()
        if let block = policy.lockout.block(for: record, now: now) {
            // Past the deadline the lockout answers even with verifications
            // still in flight: one of them may be stopped for good.
            if !deadline.hasPassed, file.verificationsInFlight() { return .waitForVerificationsInFlight }
            return .decided(.refused(try refusal(block, record: &record, now: now, file: file)))
        }
        let credential: Credential
        do {
            credential = try Credential(parsing: input, kind: record.kind, gridSize: record.gridSize, policy: policy)
        } catch let error as CredentialError {
            return .decided(.refused(.malformed(error)))
        }
        guard let needsRehash = hasher.needsRehashIfReadable(record.hash) else {
            return .decided(.refused(.storeError(.hashing(.unreadableHash))))
        }
        guard hasher.canAllocateWorkingMemory(toVerify: record.hash) else {
            let bytes = CredentialHasher.memoryBytes(of: record.hash) ?? hasher.parameters.memoryBytes
            return .decided(.refused(.storeError(.hashing(.outOfMemory(bytes: bytes)))))
        }

        // Only attempts a person made count: the answer verified wrong last
        // time, again (a client retrying on its own, Enter pressed twice), is
        // wrong without a second count. Compared under the lock, before the count.
        // The tag is a secret (it names the PIN to anyone with the key) and
        // is dropped, wiped, here: not held through the KDF, where it would
        // be one more locked page than RLIMIT_MEMLOCK may allow; a wrong
        // answer's is made again afterwards (`rememberWrong`).
        if let last = record.lastWrongTag, hasher.repeatTag(credential, uid: file.uid).constantTimeEquals(last) {
            return .decided(.repeated(failures: record.failures))
        }

        // Step 3: count first.
        let stampsBeforeCount = record.failureStamps
        let serial = record.countAttempt(at: now)
        if policy.lockout.isDisabled(afterFailures: record.failures) { record.disabled = true }
        try file.write(record)
        faultHook?(.counted)
        try file.beginVerification()
        return .decided(.counted(CountedAttempt(credential: credential, record: record, serial: serial, stampsBeforeCount: stampsBeforeCount,
                                                  needsRehash: needsRehash)))
    }

    /// The answer to an attempt made while `block` is in force.
    private func refusal(_ block: LockoutBlock, record: inout UserRecord, now: ClockReading, file: RecordFile) throws -> VerifyOutcome {
        switch block {
        case .disabled:
            return .disabled(failures: record.failures)
        case let .timeout(remaining, restartsFromNow):
            if restartsFromNow { try restart(&record, now: now, file: file) }
            return .locked(seconds: remaining, failures: record.failures)
        }
    }

    /// Restarts the full timeout from now, durably: neither a reboot nor a
    /// record without a boot stamp shortens it. Under the writer lock.
    func restart(_ record: inout UserRecord, now: ClockReading, file: RecordFile) throws {
        record.stampFailure(at: now)
        try file.write(record)
    }

    /// Step 5, after a match: clear the failures counted up to this attempt,
    /// set the replacement or upgrade the hash, on disk, under the lock.
    func clear(_ attempt: borrowing CountedAttempt, on file: RecordFile, hasher: borrowing CredentialHasher, replacement: Replacement?,
               sessionOpener: ProcessInstance?) throws -> VerifyOutcome {
        // Hashed before the lock is taken: the KDF is slow.
        let upgradedHash = replacement == nil && attempt.needsRehash
            ? try? hasher.hash(attempt.credential, uid: file.uid) : nil
        let cleared: Void? = try file.withLock {
            var record = try file.read()
            // Root may have set a new credential in place meanwhile (`pingate
            // change USER`): this match was against the old one, so it is no
            // success, and the count stays (fail closed).
            guard record.hash == attempt.record.hash, record.kind == attempt.record.kind else {
                throw StoreError.recordReplaced(path: file.path, duringVerification: true)
            }
            // Wrong guesses counted while this one was being verified are
            // not erased by its success.
            record.clearFailures(forSuccessOf: attempt.serial, stamps: attempt.record.failureStamps, before: attempt.stampsBeforeCount)
            record.disabled = policy.lockout.isDisabled(afterFailures: record.failures)
            record.lastSuccess = clock.now()
            // Without a boot id no mark can be made, and the first-sign-in
            // rule, which cannot read one either, then takes the password.
            if let sessionOpener, let boot = clock.bootNow()?.bootID {
                record.pinOpenedSessions.mark(sessionOpener, boot: boot)
            }
            if let replacement {
                record.kind = replacement.kind
                record.gridSize = replacement.gridSize
                record.pinLength = replacement.pinLength
                record.hash = replacement.hash
                record.changedAt = record.lastSuccess
            } else if let upgradedHash {
                record.hash = upgradedHash
            }
            // A clear that only lowers the count may be lost in a crash
            // (RecordFile.Durability); a new credential may not. A mark lost
            // in a crash is of a boot that ended, and means nothing after it.
            try file.write(record, durability: replacement == nil && upgradedHash == nil ? .pageCache : .onDisk)
            faultHook?(.cleared)
        }
        guard cleared != nil else { throw StoreError.recordReplaced(path: file.path, duringVerification: true) }
        return .ok
    }
}
