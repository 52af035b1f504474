import CPinGateContract

/// Where the store is and who must own it. Production uses `system()`;
/// tests point it at a temporary directory owned by themselves.
public struct StoreLocation: Sendable, Equatable {
    public static let defaultDirectory = PINGATE_STORE_DIR
    public static let groupName = PINGATE_GROUP
    public static let recordMode: FileMode = 0o660
    public static let keyMode: FileMode = 0o640
    public static let directoryMode: FileMode = 0o750
    static let keyFileName = "machine.key"
    /// The machine key sealed by the TPM (`pingate key seal`): only root reads it.
    static let sealedKeyFileName = "machine.key.sealed"
    public static let sealedKeyMode: FileMode = 0o600
    /// Where `pingate key load` puts the unsealed key for this boot: a ramfs
    /// (never swapped), root:pingate 0750 like the store, the key 0640.
    public static let defaultLoadedKeyDirectory = "/run/pingate"
    static let loadFailureFileName = "load-failure"
    static let recordSuffix = ".record"

    public var directory: String
    /// Expected owner of the directory, records and key (root).
    public var owner: UserID
    /// Expected group of the directory, records and key (`pingate`).
    public var group: GroupID
    /// Where the key unsealed from the TPM lives while the machine runs.
    public var loadedKeyDirectory: String

    public init(directory: String, owner: UserID, group: GroupID,
                loadedKeyDirectory: String = StoreLocation.defaultLoadedKeyDirectory) {
        self.directory = directory
        self.owner = owner
        self.group = group
        self.loadedKeyDirectory = loadedKeyDirectory
    }

    /// The installed store: owned by root, group `pingate`.
    public static func system(directory: String = defaultDirectory) throws -> StoreLocation {
        guard let group = SystemGroup.lookup(name: groupName) else { throw StoreError.groupMissing(name: groupName) }
        return StoreLocation(directory: directory, owner: 0, group: group.gid)
    }

    /// The installed store as the setgid helper meets it: the store's group
    /// is the group the installer gave the helper's file (`pingate`), which
    /// its setgid bit made its effective group. Taken from there, it needs
    /// no group lookup, which cost each run ~25 µs (NSS, two nscd probes
    /// included). Only when the running file (/proc/self/exe, one stat) is
    /// setgid to the effective group: on a nosuid mount, under
    /// no_new_privs, or for a copy without the bit (a test's direct run),
    /// the effective group may be the caller's, and the group is looked up
    /// by name as `system()` does. A helper installed with another group
    /// finds the store's files not of its group, and fails closed.
    public static func setgidHelper(directory: String = defaultDirectory) throws -> StoreLocation {
        let group = effectiveGroupID()
        guard let program = try? FileStatus(following: runningProgramPath), program.isSetGroupID, program.group == group
        else { return try system(directory: directory) }
        return StoreLocation(directory: directory, owner: 0, group: group)
    }

    /// The file this process runs, as the kernel names it.
    static let runningProgramPath = "/proc/self/exe"

    public func recordName(forUID uid: UInt32) -> String { "\(uid)\(StoreLocation.recordSuffix)" }
    public func recordPath(forUID uid: UInt32) -> String { directory + "/" + recordName(forUID: uid) }
    public var keyPath: String { directory + "/" + StoreLocation.keyFileName }
    public var sealedKeyPath: String { directory + "/" + StoreLocation.sealedKeyFileName }
    public var loadedKeyPath: String { loadedKeyDirectory + "/" + StoreLocation.keyFileName }
    public var loadFailurePath: String { loadedKeyDirectory + "/" + StoreLocation.loadFailureFileName }

    /// The uid a record file name stands for, or nil for any other name.
    static func uid(fromRecordName name: String) -> UInt32? {
        guard name.hasSuffix(recordSuffix) else { return nil }
        let digits = name.dropLast(recordSuffix.count)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt32(digits)
    }

    func describeOwner(_ uid: UserID) -> String { uid == 0 ? "root" : "uid \(uid)" }
}
