/// The root-owned store: a directory of per-uid records and the machine key.
///
/// Only root creates, replaces or removes files here (temp file, fsync,
/// rename, fsync of the directory). Everyone else — the setgid helper
/// included — only rewrites slots of existing records in place.
public struct Store: Sendable {
    public let location: StoreLocation
    /// Who the uids are now: a record made for another account than its
    /// uid's is refused (`AccountBinding`). The passwd database but in tests.
    public let accounts: any AccountDirectory

    public init(location: StoreLocation, accounts: any AccountDirectory = SystemAccounts()) {
        self.location = location
        self.accounts = accounts
    }

    /// Opens and checks the directory against its rule (`StoreRules.swift`):
    /// a real directory (no symlink), root:pingate 0750.
    func openDirectory() throws -> FileDescriptor {
        let path = location.directory
        let directory: FileDescriptor
        do {
            directory = try FileDescriptor.open(path, [.readOnly, .directory, .noFollow])
        } catch let error as Errno {
            switch error {
            case .noSuchFile, .tooManySymbolicLinks, .notDirectory:
                // O_NOFOLLOW with O_DIRECTORY reports a symlink as either;
                // the rule's check on lstat tells which problem it is.
                if let problem = location.inspect(.directory).first { throw StoreError.unsafe(problem) }
                throw StoreError.systemError(path: path, operation: "open", errno: error)
            default: throw StoreError.systemError(path: path, operation: "open", errno: error)
            }
        }
        do {
            if let problem = location.problems(of: .directory, status: try directory.status()).first {
                throw StoreError.unsafe(problem)
            }
        } catch let error as Errno {
            directory.close()
            throw StoreError.systemError(path: path, operation: "inspect", errno: error)
        } catch {
            directory.close()
            throw error
        }
        return directory
    }

    /// Runs `body` with the record of `uid` (nil if not enrolled).
    public func withRecord<Result>(uid: UInt32, writable: Bool, _ body: (RecordFile?) throws -> Result) throws -> Result {
        let directory = try openDirectory()
        defer { directory.close() }
        let record = try RecordFile.open(uid: uid, directory: directory, location: location, accounts: accounts, writable: writable)
        return try body(record)
    }

    /// Reads the state of `uid`'s record without locking (a reader always sees
    /// one whole slot); nil if not enrolled.
    public func readRecord(uid: UInt32) throws -> UserRecord? {
        try withRecord(uid: uid, writable: false) { try $0?.read() }
    }

    /// Reads the records of many uids with one open of the directory (for
    /// `pingate list`); each result is the record, nil if it vanished, or the
    /// error that makes it unusable.
    public func readRecords(uids: [UInt32]) throws -> [(uid: UInt32, result: Result<UserRecord?, StoreError>)] {
        let directory = try openDirectory()
        defer { directory.close() }
        return uids.map { uid in
            do {
                let file = try RecordFile.open(uid: uid, directory: directory, location: location, accounts: accounts, writable: false)
                return (uid, .success(try file?.read()))
            } catch let error as StoreError {
                return (uid, .failure(error))
            } catch {
                return (uid, .failure(.recordCorrupt(path: location.recordPath(forUID: uid))))
            }
        }
    }

    /// Creates (or, with `replacing`, replaces) a record. Root only: the file
    /// is made as a temp file, fsynced, renamed into place, and the directory
    /// fsynced, so a crash leaves either the old record or the new one.
    public func createRecord(_ record: UserRecord, replacing: Bool) throws {
        let directory = try openDirectory()
        defer { directory.close() }
        let name = location.recordName(forUID: record.uid)
        let path = location.recordPath(forUID: record.uid)
        let existing: RecordFile?
        do {
            existing = try RecordFile.open(uid: record.uid, directory: directory, location: location, accounts: accounts, writable: true)
        } catch let StoreError.unsafe(problem) where replacing && problem.object == .record(uid: record.uid) {
            // A record the rules refuse (its size, links, type, owner or
            // mode) is what replacing it repairs, as its error's fix says:
            // nothing can update it in place, so there is no lock to hold,
            // and the rename replaces the name itself, never following it.
            existing = nil
        }
        if existing != nil, !replacing { throw StoreError.recordExists(path: path) }
        // Hold the old record's writer lock so no in-place update is lost to the rename.
        if let existing { _ = try existing.lock() }
        defer { existing?.unlock() }

        _ = try publish(name, in: directory, mode: StoreLocation.recordMode, placement: .replacing) { file in
            var bytes = RecordCodec.encode(record, sequence: 1)
            bytes += [UInt8](repeating: 0, count: RecordCodec.slotSize)
            try bytes.withUnsafeBytes { try file.write(toAbsoluteOffset: 0, $0) }
        }
    }

    /// Removes `uid`'s record (root only). Returns false if there was none.
    @discardableResult
    public func removeRecord(uid: UInt32) throws -> Bool {
        let directory = try openDirectory()
        defer { directory.close() }
        do {
            try directory.removeEntry(location.recordName(forUID: uid))
        } catch let error as Errno {
            if error == .noSuchFile { return false }
            throw StoreError.systemError(path: location.recordPath(forUID: uid), operation: "remove", errno: error)
        }
        try syncDirectory(directory)
        return true
    }

    /// Updates `uid`'s record under its lock: read, change, write one slot.
    /// Returns the new state, or nil if the user is not enrolled.
    @discardableResult
    public func updateRecord(uid: UInt32, _ change: (inout UserRecord) throws -> Void) throws -> UserRecord? {
        for _ in 0..<3 {
            let outcome: UserRecord?? = try withRecord(uid: uid, writable: true) { file in
                guard let file else { return .some(nil) }
                let updated = try file.withLock {
                    var record = try file.read()
                    try change(&record)
                    try file.write(record)
                    return record
                }
                // nil: replaced meanwhile, open it again.
                guard let updated else { return nil }
                return .some(updated)
            }
            if let outcome { return outcome }
        }
        throw StoreError.recordReplaced(path: location.recordPath(forUID: uid), duringVerification: false)
    }

    /// The uids that have a record, in ascending order.
    public func enrolledUIDs() throws -> [UInt32] {
        let directory = try openDirectory()
        defer { directory.close() }
        do {
            return try directory.directoryEntryNames().compactMap(StoreLocation.uid(fromRecordName:)).sorted()
        } catch let error as Errno {
            throw StoreError.systemError(path: location.directory, operation: "list", errno: error)
        }
    }

    func syncDirectory(_ directory: FileDescriptor) throws {
        do { try directory.sync() } catch let error as Errno {
            throw StoreError.systemError(path: location.directory, operation: "sync", errno: error)
        }
    }
}
