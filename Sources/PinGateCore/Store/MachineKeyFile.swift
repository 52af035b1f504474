import Glibc

extension Store {
    /// Loads the machine key, refusing a key that breaks its rule
    /// (`StoreRules.swift`): a symlink, not root:pingate 0640, not 32 bytes.
    public func loadKey() throws -> MachineKey {
        let directory = try openDirectory()
        defer { directory.close() }
        let path = location.keyPath
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(StoreLocation.keyFileName, [.readOnly, .noFollow, .nonBlocking, .noControllingTerminal], relativeTo: directory)
        } catch let error as Errno {
            switch error {
            case .noSuchFile: throw StoreError.unsafe(keyProblem(.missing))
            case .tooManySymbolicLinks: throw StoreError.unsafe(keyProblem(.symbolicLink))
            default: throw StoreError.systemError(path: path, operation: "open", errno: error)
            }
        }
        defer { file.close() }
        do {
            if let problem = location.problems(of: .key, status: try file.status()).first { throw StoreError.unsafe(problem) }
            let bytes = SecretBytes(count: MachineKey.byteCount)
            let count = try bytes.withUnsafeMutableBytes { try file.read(fromAbsoluteOffset: 0, into: $0) }
            guard count == MachineKey.byteCount else { throw StoreError.unsafe(keyProblem(.size(found: count))) }
            return try MachineKey(bytes: bytes)
        } catch let error as Errno {
            throw StoreError.systemError(path: path, operation: "read", errno: error)
        }
    }

    private func keyProblem(_ violation: StoreViolation) -> StoreProblem {
        StoreProblem(object: .key, path: location.keyPath, violation: violation, location: location)
    }

    /// Creates the machine key if there is none; never overwrites one (every
    /// enrolled hash depends on it). Returns true if a key was created.
    @discardableResult
    public func createKeyIfMissing() throws -> Bool {
        let directory = try openDirectory()
        defer { directory.close() }
        let temporaryName = ".\(StoreLocation.keyFileName).new"
        let temporaryPath = location.directory + "/" + temporaryName
        _ = unlinkat(directory.rawValue, temporaryName, 0)
        do {
            let file = try FileDescriptor.open(temporaryName, [.writeOnly, .create, .exclusiveCreate, .noFollow], permissions: 0o600, relativeTo: directory)
            defer { file.close() }
            try file.changeOwner(user: location.owner, group: location.group)
            try file.changeMode(StoreLocation.keyMode)
            let key = MachineKey.generate()
            try key.bytes.withUnsafeBytes { try file.write(toAbsoluteOffset: 0, $0) }
            try file.sync()
        } catch let error as Errno {
            _ = unlinkat(directory.rawValue, temporaryName, 0)
            throw StoreError.systemError(path: temporaryPath, operation: "create", errno: error)
        }
        // link(2) fails if the key exists, so a key is never replaced.
        let linked = linkat(directory.rawValue, temporaryName, directory.rawValue, StoreLocation.keyFileName, 0) == 0
        let linkError = Errno.current
        _ = unlinkat(directory.rawValue, temporaryName, 0)
        if !linked {
            if linkError == .fileExists { return false }
            throw StoreError.systemError(path: location.keyPath, operation: "create", errno: linkError)
        }
        do { try directory.sync() } catch let error as Errno {
            throw StoreError.systemError(path: location.directory, operation: "sync", errno: error)
        }
        return true
    }
}
