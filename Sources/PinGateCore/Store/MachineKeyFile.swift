extension Store {
    /// Loads the machine key from where it lives (`MachineKeyState`): the
    /// key file, or — when the store holds a sealed key — the copy `pingate
    /// key load` unsealed into memory this boot, never a clear file beside
    /// it. Either copy must keep its rule (`StoreRules.swift`): no symlink,
    /// root:pingate 0640, 32 bytes. Sealed and not loaded is an error that
    /// says why, before anything is counted.
    public func loadKey() throws -> MachineKey {
        let directory = try openDirectory()
        defer { directory.close() }
        switch keyState(in: directory) {
        case .sealedAndLoaded:
            return try loadMemoryKey()
        case let .sealedNotLoaded(failure):
            throw StoreError.keyNotLoaded(sealedPath: location.sealedKeyPath, reason: failure?.summary)
        case .file, .missing:
            return try readKey(.key, named: StoreLocation.keyFileName, in: directory)
        }
    }

    /// The key file in the store, even when a sealed key is there too (for
    /// `pingate key seal`, which moves it into the TPM).
    public func loadKeyFile() throws -> MachineKey {
        let directory = try openDirectory()
        defer { directory.close() }
        return try readKey(.key, named: StoreLocation.keyFileName, in: directory)
    }

    /// The unsealed key in memory, through its directory's rule (a user who
    /// made /run/pingate first must not choose the key).
    func loadMemoryKey() throws -> MachineKey {
        let path = location.loadedKeyDirectory
        let directory: FileDescriptor
        do {
            directory = try FileDescriptor.open(path, [.readOnly, .directory, .noFollow])
        } catch let error as Errno {
            if error == .noSuchFile { throw StoreError.keyNotLoaded(sealedPath: location.sealedKeyPath, reason: nil) }
            throw StoreError.systemError(path: path, operation: "open", errno: error)
        }
        defer { directory.close() }
        do {
            if let problem = location.problems(of: .loadedKeyDirectory, status: try directory.status()).first { throw StoreError.unsafe(problem) }
        } catch let error as Errno {
            throw StoreError.systemError(path: path, operation: "inspect", errno: error)
        }
        return try readKey(.loadedKey, named: StoreLocation.keyFileName, in: directory)
    }

    private func readKey(_ object: StoreObject, named name: String, in directory: FileDescriptor) throws -> MachineKey {
        let path = location.path(of: object)
        func problem(_ violation: StoreViolation) -> StoreProblem {
            StoreProblem(object: object, path: path, violation: violation, location: location)
        }
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(name, [.readOnly, .noFollow, .nonBlocking, .noControllingTerminal], relativeTo: directory)
        } catch let error as Errno {
            switch error {
            case .noSuchFile:
                if object == .loadedKey { throw StoreError.keyNotLoaded(sealedPath: location.sealedKeyPath, reason: lastLoadFailure()?.summary) }
                throw StoreError.unsafe(problem(.missing))
            case .tooManySymbolicLinks: throw StoreError.unsafe(problem(.symbolicLink))
            default: throw StoreError.systemError(path: path, operation: "open", errno: error)
            }
        }
        defer { file.close() }
        do {
            if let problem = location.problems(of: object, status: try file.status()).first { throw StoreError.unsafe(problem) }
            var bytes = Secret(capacity: MachineKey.byteCount)
            switch MachineKeyPage.judge(lockRefusal: bytes.lockRefusal, limitBytes: memoryLockLimitBytes(), pageBytes: memoryPageSize) {
            case .locked: break
            case let .unlocked(refusal): MachineKeyPage.logUnlockedOnce(path: path, refusal: refusal)
            case .refused: throw StoreError.keyNotLockedInRAM(path: path)
            }
            let count = try bytes.appendWritten { try file.read(fromAbsoluteOffset: 0, into: $0) }
            guard count == MachineKey.byteCount else { throw StoreError.unsafe(problem(.size(found: count))) }
            return try MachineKey(bytes: bytes)
        } catch let error as Errno {
            throw StoreError.systemError(path: path, operation: "read", errno: error)
        }
    }

    /// Creates the machine key if there is none — neither a key file nor a
    /// sealed key; never overwrites one (every enrolled hash depends on it).
    /// Returns true if a key was created.
    @discardableResult
    public func createKeyIfMissing() throws -> Bool {
        let directory = try openDirectory()
        defer { directory.close() }
        // A sealed key is a key: a new clear one would break every PIN.
        guard keyState(in: directory) == .missing else { return false }
        return try publish(StoreLocation.keyFileName, in: directory, mode: StoreLocation.keyMode, placement: .neverReplacing) { file in
            try MachineKey.generate().bytes.withUnsafeBytes { try file.write(toAbsoluteOffset: 0, $0) }
        }
    }
}
