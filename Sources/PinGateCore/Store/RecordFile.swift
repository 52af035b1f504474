#if DEBUG
import Synchronization
#endif

/// One open record: checked on open, locked with flock for writing, updated in
/// place one slot at a time.
public final class RecordFile {
    public let path: String
    public let uid: UInt32
    let descriptor: FileDescriptor
    private let name: String
    private let directory: FileDescriptor
    /// Who the uid is now, asked once per open record, when it is first read.
    private let accounts: any AccountDirectory
    private var accountNow: AccountLookup?
    /// The slot and sequence of the state last read or written, whether that
    /// slot was written without waiting for the disk, and whether the other
    /// slot is valid: together they choose the slot of the next write.
    private var currentSlot = 0
    private var currentSequence: UInt64 = 0
    private var currentUnsynced = false
    private var otherSlotValid = false

    /// The byte whose shared OFD locks mark verifications in flight (past the
    /// end of the file: locks need no data there).
    static let inFlightByte = RecordCodec.fileSize

    /// Opens the record of `uid`, or returns nil if there is none. Any record
    /// that is not exactly what root made (a symlink, another type, owner,
    /// group, mode, size) is a `StoreError` and is left untouched.
    static func open(uid: UInt32, directory: FileDescriptor, location: StoreLocation, accounts: any AccountDirectory,
                     writable: Bool) throws -> RecordFile? {
        let name = location.recordName(forUID: uid)
        let path = location.recordPath(forUID: uid)
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(
                name, [writable ? .readWrite : .readOnly, .noFollow, .nonBlocking, .noControllingTerminal],
                relativeTo: directory)
        } catch let error as Errno {
            switch error {
            case .noSuchFile: return nil
            case .tooManySymbolicLinks: throw StoreError.unsafe(StoreProblem(object: .record(uid: uid), path: path, violation: .symbolicLink, location: location))
            case .isDirectory: throw StoreError.unsafe(StoreProblem(object: .record(uid: uid), path: path, violation: .wrongType, location: location))
            default: throw StoreError.systemError(path: path, operation: "open", errno: error)
            }
        }
        do {
            if let problem = location.problems(of: .record(uid: uid), status: try descriptor.status()).first {
                throw StoreError.unsafe(problem)
            }
        } catch {
            descriptor.close()
            throw error
        }
        return RecordFile(path: path, name: name, uid: uid, descriptor: descriptor, directory: directory, accounts: accounts)
    }

    private init(path: String, name: String, uid: UInt32, descriptor: FileDescriptor, directory: FileDescriptor,
                 accounts: any AccountDirectory) {
        self.path = path
        self.name = name
        self.uid = uid
        self.descriptor = descriptor
        self.directory = directory
        self.accounts = accounts
    }

    deinit { descriptor.close() }

    /// Reads the current state: the valid slot with the higher sequence, of
    /// a record made for the account its uid has now. Any other record — made
    /// for a deleted account whose uid was given to another, of format 1 (no
    /// account named), or whose account the user database cannot tell — is a
    /// `StoreError`, so that nobody verifies, counts or changes it; root's
    /// `remove` and `enroll --force` do not read it, and so repair it.
    public func read() throws -> UserRecord {
        let record = try readAnyAccount()
        if accountNow == nil { accountNow = accounts.account(forUID: uid) }
        if let refusal = record.binding.refusal(uid: uid, path: path, now: accountNow ?? .unavailable) { throw refusal }
        return record
    }

    /// The current state whatever account it names: for root's migration,
    /// which binds a record of format 1 (`Store.migrateRecords`).
    func readAnyAccount() throws -> UserRecord {
        var bytes = [UInt8](repeating: 0, count: RecordCodec.fileSize)
        let count: Int
        do {
            count = try bytes.withUnsafeMutableBytes { try descriptor.read(fromAbsoluteOffset: 0, into: $0) }
        } catch let error as Errno {
            throw StoreError.systemError(path: path, operation: "read", errno: error)
        }
        guard count == RecordCodec.fileSize, let decoded = RecordCodec.decodeFile(bytes) else {
            throw StoreError.recordCorrupt(path: path)
        }
        guard decoded.record.uid == uid else { throw StoreError.recordForAnotherUser(path: path, uid: decoded.record.uid) }
        currentSlot = decoded.slot
        currentSequence = decoded.sequence
        currentUnsynced = decoded.unsynced
        otherSlotValid = decoded.otherSlotValid
        return decoded.record
    }

    /// How far a write must get before `write` returns.
    public enum Durability: Sendable {
        /// On the disk (fdatasync): a count above all, which no answer may
        /// leave before, and a new credential.
        case onDisk
        /// Started towards the disk (sync_file_range), not waited for. Only
        /// for a write whose loss makes the record stricter: a cleared count,
        /// a notice taken, a repeat tag. The slot says so (`unsynced`), and the
        /// next write goes over it rather than over the other slot, the synced
        /// one, so that a crash, whatever it tears, leaves a state at least as
        /// counted as every answer given (docs/design.md, section 4).
        case pageCache
    }

    /// Writes `record` with the next sequence number and, unless told
    /// otherwise, waits for it to reach the disk (fdatasync). Call `read()`
    /// first, under the lock. On error the state before it is still the
    /// readable one, or, when the write went over an unsynced slot, the
    /// synced state before that (stricter, as after a crash).
    ///
    /// The slot: the older one, as always, unless the newer one was written
    /// unsynced; then that one again, and the older, synced slot stays what a
    /// torn write falls back to. (With the older slot not valid, the newer
    /// one is synced first and the older one is written.)
    public func write(_ record: UserRecord, durability: Durability = .onDisk) throws {
        precondition(record.uid == uid, "a record is written only for its own uid")
        let overwriteCurrent = currentUnsynced && otherSlotValid
        let slot = overwriteCurrent ? currentSlot : 1 - currentSlot
        let unsynced = durability == .pageCache
        let bytes = RecordCodec.encode(record, sequence: currentSequence + 1, unsynced: unsynced)
        do {
            if currentUnsynced && !overwriteCurrent { try descriptor.dataSync() }
            try bytes.withUnsafeBytes { try descriptor.write(toAbsoluteOffset: slot * RecordCodec.slotSize, $0) }
            if unsynced { descriptor.startWriteOut() } else { try descriptor.dataSync() }
        } catch let error as Errno {
            throw StoreError.systemError(path: path, operation: "write", errno: error)
        }
        #if DEBUG
        RecordFile.writeObserver.withLock { $0 }?(path, slot, bytes, !unsynced)
        #endif
        if !overwriteCurrent { otherSlotValid = true }
        currentSlot = slot
        currentSequence += 1
        currentUnsynced = unsynced
    }

    #if DEBUG
    /// Test seam (debug builds only): told of every slot write (the record's
    /// path, the slot, its bytes, whether it was synced), after it, so that a
    /// test can model what a disk holds at any moment (RecordDurabilityTests).
    static let writeObserver = Mutex<(@Sendable (String, Int, [UInt8], Bool) -> Void)?>(nil)
    #endif

    /// Takes the writer lock (flock), waiting at most until `deadline`.
    /// Returns false if, meanwhile, root replaced or removed the record: the
    /// caller reopens it. Throws `StoreError.recordBusy`, naming the holder,
    /// if the lock is still held at the deadline.
    public func lock(until deadline: Deadline = LockWait.deadline()) throws -> Bool {
        do {
            guard try descriptor.lockExclusive(until: deadline) else {
                let holder = LockHolder.holders(of: try descriptor.status(), kind: .flock).first
                throw StoreError.recordBusy(path: path, holder: holder)
            }
            let mine = try descriptor.status()
            let linked = try? FileStatus(notFollowing: name, relativeTo: directory)
            guard let linked, mine.linkCount != 0, linked.inode == mine.inode, linked.device == mine.device else {
                descriptor.unlock()
                return false
            }
            return true
        } catch let error as Errno {
            throw StoreError.systemError(path: path, operation: "lock", errno: error)
        }
    }

    public func unlock() { descriptor.unlock() }

    /// Runs `body` holding the writer lock, and releases it on every way out.
    /// Returns nil, without running `body`, if root replaced or removed the
    /// record meanwhile (see `lock(until:)`).
    public func withLock<Result: ~Copyable>(until deadline: Deadline = LockWait.deadline(), _ body: () throws -> Result) throws -> Result? {
        guard try lock(until: deadline) else { return nil }
        defer { unlock() }
        return try body()
    }

    /// Marks this process's verification as in flight until `endVerification`.
    /// The marks are shared locks, and nobody takes the byte exclusively (see
    /// `waitForVerificationsInFlight`), so this does not wait in practice;
    /// it is bounded all the same.
    func beginVerification() throws {
        do {
            guard try LockWait.deadline().retry({ try descriptor.tryLockByte(RecordFile.inFlightByte, shared: true) }) else {
                throw StoreError.recordBusy(path: path, holder: nil)
            }
        } catch let error as Errno {
            throw StoreError.systemError(path: path, operation: "lock", errno: error)
        }
    }

    func endVerification() { descriptor.unlockByte(RecordFile.inFlightByte) }

    /// True while another process has a verification of this record in flight.
    func verificationsInFlight() -> Bool {
        (try? descriptor.isByteLockedByOthers(RecordFile.inFlightByte)) ?? false
    }

    /// Waits at most until `deadline` for the verifications of this record
    /// in flight to end. Returns false if some were still in flight then: one
    /// may be stopped (SIGSTOP) with its mark held for good.
    func waitForVerificationsInFlight(until deadline: Deadline) -> Bool {
        (try? descriptor.waitUntilByteUnlockedByOthers(RecordFile.inFlightByte, until: deadline)) ?? true
    }
}

/// A mode as four octal digits, e.g. "0660", as chmod takes it.
public func octal(_ mode: FileMode) -> String {
    let text = String(mode, radix: 8)
    return String(repeating: "0", count: max(0, 4 - text.count)) + text
}
