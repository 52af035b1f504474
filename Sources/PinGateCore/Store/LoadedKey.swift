/// The unsealed machine key's place in memory for this boot (root's side:
/// `pingate key load`, `seal`, `unseal`). The helper only reads it
/// (`Store.loadMemoryKey`).
///
/// Why a ramfs at /run/pingate and not the kernel keyring: the helper
/// already reads a 32-byte key file through the `pingate` group under one
/// rule, so the loaded key keeps that rule and the helper gains no new
/// system call and no keyring search path (a key in root's keyrings is not
/// in a locker's; one readable by the group needs its id published
/// anyway). A ramfs's pages are never swapped out, unlike tmpfs's. Neither
/// a ramfs nor a keyring stays out of a hibernation image: doctor warns
/// when the machine can hibernate.
extension Store {
    /// Makes the loaded-key directory a ramfs, root:pingate 0750, mounting
    /// one if it is anything else. Throws if it cannot be a ramfs.
    public func prepareMemory() throws -> FileSystemKind {
        let path = location.loadedKeyDirectory
        do {
            do { try FileDescriptor.makeDirectory(path, permissions: 0o700) } catch let error as Errno where error == .fileExists {}
            var directory = try FileDescriptor.open(path, [.readOnly, .directory, .noFollow])
            if try directory.fileSystemKind() != .ramfs {
                directory.close()
                try FileDescriptor.mountRamfs(at: path, mode: 0o700)
                directory = try FileDescriptor.open(path, [.readOnly, .directory, .noFollow])
            }
            defer { directory.close() }
            let kind = try directory.fileSystemKind()
            guard kind == .ramfs else { throw StoreError.systemError(path: path, operation: "mount a ramfs on", errno: .invalidArgument) }
            try directory.changeOwner(user: location.owner, group: location.group)
            try directory.changeMode(StoreLocation.directoryMode)
            return kind
        } catch let error as Errno {
            throw StoreError.systemError(path: path, operation: "prepare", errno: error)
        }
    }

    /// The file system the loaded key is on, nil if the directory is not there.
    public func loadedKeyFileSystem() -> FileSystemKind? {
        guard let directory = try? FileDescriptor.open(location.loadedKeyDirectory, [.readOnly, .directory, .noFollow]) else { return nil }
        defer { directory.close() }
        return try? directory.fileSystemKind()
    }

    /// Puts `key` in memory as the loaded key (root:pingate 0640), replacing
    /// what was loaded, and drops the note of a failed load.
    public func storeLoadedKey(_ key: borrowing MachineKey) throws {
        _ = try prepareMemory()
        try withMemoryDirectory { directory in
            try? directory.removeEntry(StoreLocation.loadFailureFileName)
            try writeMemoryFile(StoreLocation.keyFileName, in: directory, mode: StoreLocation.keyMode) { file in
                try key.bytes.withUnsafeBytes { try file.write(toAbsoluteOffset: 0, $0) }
            }
        }
    }

    /// Removes the loaded key (overwritten first), so that no key is loaded.
    public func discardLoadedKey() throws {
        try withMemoryDirectory { directory in
            if let file = try? FileDescriptor.open(StoreLocation.keyFileName, [.writeOnly, .noFollow, .nonBlocking], relativeTo: directory) {
                defer { file.close() }
                if (try? file.status().isRegularFile) == true {
                    try [UInt8](repeating: 0, count: MachineKey.byteCount).withUnsafeBytes { try file.write(toAbsoluteOffset: 0, $0) }
                }
            }
            do { try directory.removeEntry(StoreLocation.keyFileName) } catch let error as Errno where error == .noSuchFile {}
        }
    }

    /// Records why a load failed (root:pingate 0640: the helper's error names it).
    public func recordLoadFailure(_ failure: KeyLoadFailure) throws {
        try withMemoryDirectory { directory in
            try writeMemoryFile(StoreLocation.loadFailureFileName, in: directory, mode: StoreLocation.keyMode) { file in
                try file.writeAll(Array(failure.encoded.utf8))
            }
        }
    }

    /// Removes the note of a failed load (after `pingate key unseal`).
    public func forgetLoadFailure() {
        try? withMemoryDirectory { directory in try? directory.removeEntry(StoreLocation.loadFailureFileName) }
    }

    private func withMemoryDirectory(_ body: (FileDescriptor) throws -> Void) throws {
        let path = location.loadedKeyDirectory
        let directory: FileDescriptor
        do {
            directory = try FileDescriptor.open(path, [.readOnly, .directory, .noFollow])
        } catch let error as Errno where error == .noSuchFile {
            _ = try prepareMemory()
            return try withMemoryDirectory(body)
        } catch let error as Errno {
            throw StoreError.systemError(path: path, operation: "open", errno: error)
        }
        defer { directory.close() }
        do { try body(directory) } catch let error as Errno {
            throw StoreError.systemError(path: path, operation: "write", errno: error)
        }
    }

    /// A temporary name, owner and mode before the first byte, then rename:
    /// the helper sees the old file or the new one, never part of one.
    private func writeMemoryFile(_ name: String, in directory: FileDescriptor, mode: FileMode,
                                 write: (FileDescriptor) throws -> Void) throws {
        let temporaryName = ".\(name).new"
        try? directory.removeEntry(temporaryName)
        let file = try FileDescriptor.open(temporaryName, [.writeOnly, .create, .exclusiveCreate, .noFollow],
                                           permissions: 0o600, relativeTo: directory)
        defer { file.close() }
        do {
            try file.changeOwner(user: location.owner, group: location.group)
            try file.changeMode(mode)
            try write(file)
            try directory.renameEntry(temporaryName, to: name)
        } catch {
            try? directory.removeEntry(temporaryName)
            throw error
        }
    }
}
