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
        return try publish(StoreLocation.keyFileName, in: directory, mode: StoreLocation.keyMode, placement: .neverReplacing) { file in
            try MachineKey.generate().bytes.withUnsafeBytes { try file.write(toAbsoluteOffset: 0, $0) }
        }
    }
}
