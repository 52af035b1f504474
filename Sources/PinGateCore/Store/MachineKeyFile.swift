import Glibc

extension Store {
    /// Loads the machine key, refusing a key that is a symlink, not root's,
    /// readable by others or not exactly 32 bytes.
    public func loadKey() throws -> MachineKey {
        let directory = try openDirectory()
        defer { directory.close() }
        let path = location.keyPath
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(StoreLocation.keyFileName, [.readOnly, .noFollow, .nonBlocking, .noControllingTerminal], relativeTo: directory)
        } catch let error as Errno {
            switch error {
            case .noSuchFile: throw StoreError.keyMissing(path: path)
            case .tooManySymbolicLinks: throw StoreError.keyUnsafe(path: path, problem: "is a symbolic link")
            default: throw StoreError.systemError(path: path, operation: "open", errno: error)
            }
        }
        defer { file.close() }
        do {
            let status = try file.status()
            guard status.isRegularFile else { throw StoreError.keyUnsafe(path: path, problem: "is not a regular file") }
            guard status.owner == location.owner else {
                throw StoreError.keyUnsafe(path: path, problem: "is owned by \(location.describeOwner(status.owner)), expected \(location.describeOwner(location.owner))")
            }
            guard status.group == location.group else {
                throw StoreError.keyUnsafe(path: path, problem: "has group \(status.group), expected \(location.group) (\(StoreLocation.groupName))")
            }
            guard status.permissions & 0o7137 == 0 else {
                throw StoreError.keyUnsafe(path: path, problem: "has mode \(octal(status.permissions)), expected \(octal(StoreLocation.keyMode))")
            }
            guard status.size == MachineKey.byteCount else {
                throw StoreError.keyUnsafe(path: path, problem: "is \(status.size) bytes, expected \(MachineKey.byteCount)")
            }
            let bytes = SecretBytes(count: MachineKey.byteCount)
            let count = try bytes.withUnsafeMutableBytes { try file.read(fromAbsoluteOffset: 0, into: $0) }
            guard count == MachineKey.byteCount else { throw StoreError.keyUnsafe(path: path, problem: "is shorter than \(MachineKey.byteCount) bytes") }
            return try MachineKey(bytes: bytes)
        } catch let error as Errno {
            throw StoreError.systemError(path: path, operation: "read", errno: error)
        }
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
