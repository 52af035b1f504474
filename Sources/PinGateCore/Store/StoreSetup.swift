/// What `Store.setUp()` did to one object.
public enum SetupAction: Equatable, Sendable {
    case created(StoreObject, path: String)
    /// Owner, group or mode were wrong and are now right.
    case repaired(StoreObject, path: String, problems: [StoreProblem])
    case unchanged(StoreObject, path: String)
}

extension Store {
    /// Makes the store usable, the one way every installer does it
    /// (`pingate init`): creates the directory (root:pingate 0750) and the
    /// machine key (root:pingate 0640, 32 random bytes) if missing, and sets
    /// a wrong owner, group or mode right. Never replaces or rewrites a key:
    /// every enrolled hash depends on it. A symlink, a wrong type or a key of
    /// the wrong size is an error naming its fix. Root only; idempotent.
    public func setUp() throws -> [SetupAction] {
        [try setUpDirectory(), try setUpKey()]
    }

    private func setUpDirectory() throws -> SetupAction {
        let path = location.directory
        // 0700 until owner and group are right: nobody else looks in meanwhile.
        do {
            try FileDescriptor.makeDirectory(path, permissions: 0o700)
        } catch let error as Errno {
            guard error == .fileExists else { throw StoreError.systemError(path: path, operation: "create", errno: error) }
            return try repair(.directory)
        }
        do {
            let directory = try FileDescriptor.open(path, [.readOnly, .directory, .noFollow])
            defer { directory.close() }
            try directory.changeOwner(user: location.owner, group: location.group)
            try directory.changeMode(StoreLocation.directoryMode)
            try directory.sync()
        } catch let error as Errno {
            throw StoreError.systemError(path: path, operation: "set up", errno: error)
        }
        return .created(.directory, path: path)
    }

    /// A sealed key counts as the key (`pingate key seal`): it is checked
    /// and repaired, and no clear key is made beside it.
    private func setUpKey() throws -> SetupAction {
        if try createKeyIfMissing() { return .created(.key, path: location.keyPath) }
        switch try keyState() {
        case .sealedAndLoaded, .sealedNotLoaded: return try repair(.sealedKey)
        case .file, .missing: return try repair(.key)
        }
    }

    /// Sets owner, group and mode of an existing object right, through a
    /// descriptor opened without following a symlink and checked again.
    private func repair(_ object: StoreObject) throws -> SetupAction {
        let path = location.path(of: object)
        let problems = location.inspect(object)
        if problems.isEmpty { return .unchanged(object, path: path) }
        if let unrepairable = problems.first(where: { !$0.violation.isRepairableInPlace }) { throw StoreError.unsafe(unrepairable) }
        do {
            var options: FileDescriptor.OpenOptions = [.readOnly, .noFollow, .nonBlocking]
            if object.isDirectory { options.insert(.directory) }
            let file = try FileDescriptor.open(path, options)
            defer { file.close() }
            if let unrepairable = location.problems(of: object, status: try file.status()).first(where: { !$0.violation.isRepairableInPlace }) {
                throw StoreError.unsafe(unrepairable)
            }
            try file.changeOwner(user: location.owner, group: location.group)
            try file.changeMode(object.mode)
        } catch let error as Errno {
            throw StoreError.systemError(path: path, operation: "repair", errno: error)
        }
        return .repaired(object, path: path, problems: problems)
    }
}
