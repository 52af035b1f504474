import PinGateCore

/// `pingate init`: creates the store and the machine key, the one way every
/// installer (install.sh, the .deb's postinst, doctor's fix) does it.
struct InitCommand: Command {
    static let name = "init"
    static var abstract: String { L("create the store and the machine key if missing (root)") }
    static var discussion: String {
        HelpText.paragraph(L("Creates the store directory (root:%s 0750) and the machine key in it (root:%s 0640, 32 random bytes) when they are missing, and sets a wrong owner, group or mode right. An existing key is never replaced: every enrolled PIN and pattern depends on it. Running it again changes nothing.", StoreLocation.groupName, StoreLocation.groupName))
            + "\n\n" + HelpText.paragraph(L("Records of format 1, written before records named the account they are for, are migrated: each is bound to the name its uid has now, so its PIN or pattern works as before. A record whose uid has no account then is bound to none and stays refused, whoever is given the uid later; remove it. Until it is migrated, a record of format 1 is refused. In a staged root (--group-id) nothing is migrated: this system's user database is not that one's."))
    }
    static var exitStatuses: String? {
        HelpText.paragraph(L("Exit status: 0 the store is ready; 2 usage; 3 not root; 5 the group is missing or has members, or the store or key is unsafe and must be moved away."))
    }
    static let requiresRoot = true

    struct Arguments: ArgumentGroup {
        let groupID = Option("--group-id", value: "GID", in: 0...Int(UInt32.max - 1),
                             help: L("the group's number instead of looking 'pingate' up, for a store in a staged root whose /etc/group is not this system's"))
        let upgrade = Flag("--upgrade", help: L("an upgrade of an installed system: members of the group are warned about, not refused"))
    }
    static let arguments = Arguments()

    let locations: Locations
    let groupID: Int?
    let upgrade: Bool

    init(_ arguments: ParsedArguments) throws {
        locations = Locations(arguments)
        groupID = try arguments.value(Self.arguments.groupID)
        upgrade = arguments[Self.arguments.upgrade]
    }

    /// Why members of the store's group are a problem, naming them.
    static func membersProblem(group: String, members: [String]) -> String {
        L("group %s has members (%s): each can read the machine key and every record and rewrite them — guess every PIN offline, reset counts, plant a known PIN and sign in as anyone; that is as good as root. Remove them from the group.", group, members.joined(separator: ", "))
    }

    func run(caller: Caller) throws -> ExitStatus {
        // A staged root (--group-id) has its own /etc/group: not this system's members.
        if groupID == nil, let group = SystemGroup.lookup(name: StoreLocation.groupName) {
            let members = group.members
            if !members.isEmpty {
                let problem = Self.membersProblem(group: group.name, members: members)
                guard upgrade else { throw CLIError(status: .storeOrConfig, message: problem) }
                Output.error(L("WARNING: %s", problem))
            }
        }
        let store = try groupID.map { Store(location: StoreLocation(directory: locations.storeDirectory, owner: 0, group: GroupID($0))) }
            ?? locations.store()
        for action in try storeCall({ try store.setUp() }) { Output.line(Self.report(action)) }
        // The user database here is not a staged root's: its records wait for an init there.
        if groupID == nil {
            for migration in try storeCall({ try store.migrateRecords() }) { Self.report(migration) }
        }
        return .ok
    }

    /// A record bound on stdout; one that stays refused on stderr, which the
    /// package's postinst shows.
    static func report(_ migration: RecordMigration) {
        switch migration {
        case let .bound(uid, name):
            Output.line(L("bound the record of uid %d to %s", Int(uid), name))
        case let .orphaned(uid):
            Output.error(L("uid %d has no account: its record is bound to none and stays refused, whoever is given the uid later; remove it with 'pingate remove %d'", Int(uid), Int(uid)))
        case let .leftUnbound(uid, reason):
            Output.error(L("the record of uid %d stays in format 1, refused: %s; run 'pingate init --upgrade' again once that is fixed", Int(uid), reason))
        }
    }

    static func report(_ action: SetupAction) -> String {
        switch action {
        case let .created(.directory, path): return L("created the store %s (root:%s 0750)", path, StoreLocation.groupName)
        case let .created(_, path): return L("created the machine key %s (root:%s 0640)", path, StoreLocation.groupName)
        case let .unchanged(.sealedKey, path):
            return L("the machine key is sealed by the TPM: %s (kept; no clear key is made beside it)", path)
        case let .repaired(object, path, _):
            return L("repaired %s: now root:%s %s", path, StoreLocation.groupName, octal(object.mode))
        case let .unchanged(.directory, path): return L("the store %s is in place", path)
        case let .unchanged(_, path): return L("the machine key %s is in place (never replaced)", path)
        }
    }
}
