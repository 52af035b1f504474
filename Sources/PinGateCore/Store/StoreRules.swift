/// The objects of the store, each with one rule (owner, group, type, exact
/// mode, and for files a size): the store refuses to use an object that
/// breaks it, and `pingate doctor` reports the same problems with the same
/// check.
///
/// The modes are exact, not "no more than": the setgid helper reaches the
/// store only through the `pingate` group, so a key at 0600 or a directory
/// at 0700 locks every non-root caller out while root's CLI still works, and
/// a mode with bits for others shows who is enrolled, or the key itself.
/// One exact mode per object is the one that works and is the one install
/// creates.
public enum StoreObject: Equatable, Sendable {
    /// The store directory: root:pingate 0750.
    case directory
    /// The machine key: root:pingate 0640, 32 bytes.
    case key
    /// One user's record: root:pingate 0660, 1024 bytes, one hard link.
    case record(uid: UInt32)
    /// The machine key sealed by the TPM: root:pingate 0600 (only root's
    /// `pingate key load` reads it; the helper only sees that it is there).
    case sealedKey
    /// Where the unsealed key lives this boot (a ramfs): root:pingate 0750.
    case loadedKeyDirectory
    /// The unsealed key: root:pingate 0640, 32 bytes, as the key file.
    case loadedKey

    /// The exact permission bits the object must have.
    public var mode: FileMode {
        switch self {
        case .directory: return StoreLocation.directoryMode
        case .key: return StoreLocation.keyMode
        case .record: return StoreLocation.recordMode
        case .sealedKey: return StoreLocation.sealedKeyMode
        case .loadedKeyDirectory: return StoreLocation.directoryMode
        case .loadedKey: return StoreLocation.keyMode
        }
    }

    /// The exact size of a file, nil for the directory.
    public var size: Int? {
        switch self {
        case .directory, .loadedKeyDirectory, .sealedKey: return nil
        case .key, .loadedKey: return MachineKey.byteCount
        case .record: return RecordCodec.fileSize
        }
    }

    public var isDirectory: Bool { self == .directory || self == .loadedKeyDirectory }
}

/// How an object breaks its rule.
public enum StoreViolation: Equatable, Sendable {
    case missing
    case symbolicLink
    /// Not a directory (for the store) or not a regular file.
    case wrongType
    case owner(found: UserID)
    case group(found: GroupID)
    case mode(found: FileMode)
    case linkCount(found: Int)
    case size(found: Int)

    /// Owner, group and mode are root's to set right in place; anything else
    /// means moving the object away (a key is never rewritten in place).
    public var isRepairableInPlace: Bool {
        switch self {
        case .owner, .group, .mode: return true
        default: return false
        }
    }
}

/// One problem of one object: what is wrong and the command that fixes it.
public struct StoreProblem: Equatable, Sendable, CustomStringConvertible {
    public let object: StoreObject
    public let path: String
    public let violation: StoreViolation
    /// Who must own it, to name in messages and fixes.
    public let location: StoreLocation

    /// "has mode 0644, expected 0640"
    public var problem: String {
        switch violation {
        case .missing: return object.isDirectory ? "does not exist" : "is missing"
        case .symbolicLink: return "is a symbolic link"
        case .wrongType: return object.isDirectory ? "is not a directory" : "is not a regular file"
        case let .owner(found):
            return "is owned by \(location.describeOwner(found)), expected \(location.describeOwner(location.owner))"
        case let .group(found):
            return "has group \(found), expected \(location.group) (\(location.expectedGroupName))"
        case let .mode(found):
            if object.isDirectory, found & 0o022 != 0 {
                return "is writable by group or others (mode \(octal(found)), expected \(octal(object.mode)))"
            }
            return "has mode \(octal(found)), expected \(octal(object.mode))"
        case let .linkCount(found): return "has \(found) hard links, expected 1"
        case let .size(found): return "is \(found) bytes, expected \(object.size ?? 0)"
        }
    }

    /// The shell command that fixes it, as root.
    public var fix: String {
        let initCommand = "pingate init" + (location.directory == StoreLocation.defaultDirectory ? "" : " --store \(location.directory)")
        switch (object, violation) {
        case (_, .owner), (_, .group):
            return "chown \(location.owner == 0 ? "root" : String(location.owner)):\(location.expectedGroupName) \(path)"
        case (_, .mode):
            // After any chown: chown clears set-id bits, chmod must come last.
            return "chmod \(octal(object.mode)) \(path)"
        case (.directory, .missing), (.key, .missing):
            return initCommand
        case (.loadedKeyDirectory, _), (.loadedKey, _):
            return "pingate key load"
        case (.sealedKey, _):
            return "mv \(path) \(path).unsafe   # then restore the key file from a trusted copy, or re-enrol every user"
        case (.directory, _):
            return "mv \(path) \(path).unsafe && \(initCommand)"
        case (.key, _):
            return "mv \(path) \(path).unsafe && \(initCommand)   # then re-enrol every user"
        case let (.record(uid), violation):
            let user = SystemUser.lookup(uid: uid)?.name ?? String(uid)
            // A directory is neither replaced by a rename nor unlinked.
            guard violation != .wrongType else { return "mv \(path) \(path).unsafe && pingate enroll --force \(user)" }
            return "pingate enroll --force \(user)   # or: pingate remove \(user)"
        }
    }

    public var description: String {
        let what: String
        switch object {
        case .directory: what = "store"
        case .key: what = "machine key"
        case .record: what = "record"
        case .sealedKey: what = "sealed machine key"
        case .loadedKeyDirectory: what = "loaded-key directory"
        case .loadedKey: what = "loaded machine key"
        }
        return "\(what) \(path) \(problem)"
    }
}

extension StoreLocation {
    /// The path of `object` in this store.
    public func path(of object: StoreObject) -> String {
        switch object {
        case .directory: return directory
        case .key: return keyPath
        case let .record(uid): return recordPath(forUID: uid)
        case .sealedKey: return sealedKeyPath
        case .loadedKeyDirectory: return loadedKeyDirectory
        case .loadedKey: return loadedKeyPath
        }
    }

    /// The expected group's name, for messages and fixes (its number if it has none).
    public var expectedGroupName: String { SystemGroup.lookup(gid: group)?.name ?? String(group) }

    /// The rule's check: every problem of `object` given its status (from
    /// fstat of the object opened without following a symbolic link, or
    /// lstat); nil status means it does not exist. Empty: usable.
    public func problems(of object: StoreObject, status: FileStatus?) -> [StoreProblem] {
        let path = path(of: object)
        func problem(_ violation: StoreViolation) -> StoreProblem {
            StoreProblem(object: object, path: path, violation: violation, location: self)
        }
        guard let status else { return [problem(.missing)] }
        if status.isSymbolicLink { return [problem(.symbolicLink)] }
        guard object.isDirectory ? status.isDirectory : status.isRegularFile else { return [problem(.wrongType)] }
        var problems: [StoreProblem] = []
        if status.owner != owner { problems.append(problem(.owner(found: status.owner))) }
        if status.group != group { problems.append(problem(.group(found: status.group))) }
        if status.permissions != object.mode { problems.append(problem(.mode(found: status.permissions))) }
        if case .record = object, status.linkCount != 1 { problems.append(problem(.linkCount(found: status.linkCount))) }
        if let size = object.size, status.size != size { problems.append(problem(.size(found: status.size))) }
        return problems
    }

    /// `problems(of:status:)` for the object at its path now (lstat), for
    /// reports; the store itself checks what it has opened.
    public func inspect(_ object: StoreObject) -> [StoreProblem] {
        problems(of: object, status: try? FileStatus(notFollowing: path(of: object)))
    }
}
