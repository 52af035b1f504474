import PinGateCore

/// `--json`: machine-readable output whose schema is documented at the top of
/// each command that takes it, and in pingate(8). Its help row says what that
/// command prints.
struct JSONOption: ArgumentGroup {
    let flag: Flag
    init(help: String? = nil) { flag = Flag("--json", help: help) }
}

/// `--stdin`: secrets as lines on standard input, for scripts. Its help row
/// says which lines that command reads.
struct StdinOption: ArgumentGroup {
    let flag: Flag
    init(help: String) { flag = Flag("--stdin", help: help) }
}

/// `--pin | --pattern [--grid R]`: the kind of a new credential and a pattern's grid.
struct CredentialKindOptions: ArgumentGroup {
    let kind: FlagChoice<CredentialKind>
    let grid: Option<Int>

    /// One help row per flag (`pin`, `pattern`), or one for both (`either`).
    init(pin: String? = nil, pattern: String? = nil, either: String? = nil, grid gridHelp: String) {
        kind = FlagChoice([("--pin", .pin, pin), ("--pattern", .pattern, pattern)], help: either)
        grid = Option("--grid", value: "R", in: PatternGrid.supportedSizes, help: gridHelp)
    }

    var usage: String { "[\(kind.alternatives) \(grid.usage)]" }
}

/// `--store DIR` and `--config FILE`: test and recovery overrides of the
/// installed locations, for root only (the setgid helper ignores both). The
/// store still must be owned by root, group pingate. Accepted before or after
/// the subcommand.
struct StoreOptions: ArgumentGroup {
    let store = Option<String>("--store", value: "DIR", rootOnly: true,
                               help: L("use the store in DIR (default %s)", StoreLocation.defaultDirectory))
    let config = Option<String>("--config", value: "FILE", rootOnly: true,
                                help: L("read the policy from FILE (default %s)", Policy.defaultPath))
}

/// The options every command takes, after its own.
struct GlobalOptions: ArgumentGroup {
    static let arguments = GlobalOptions()

    let locations = StoreOptions()
    let help = Flag("-h", "--help", help: L("show this help"))
}

/// Where the store and the policy are: the defaults, or `--store`/`--config`.
struct Locations {
    let storeDirectory: String
    let configPath: String

    init(_ arguments: ParsedArguments) {
        let options = GlobalOptions.arguments.locations
        storeDirectory = (try? arguments.value(options.store)) ?? StoreLocation.defaultDirectory
        configPath = (try? arguments.value(options.config)) ?? Policy.defaultPath
    }

    func policy() throws -> Policy {
        do { return try ConfigParser.load(path: configPath) } catch { throw CLIError.store(error) }
    }

    func store() throws -> Store {
        do { return Store(location: try StoreLocation.system(directory: storeDirectory)) } catch { throw CLIError.store(error) }
    }
}

/// Who is running the command.
struct Caller {
    let uid: UserID
    var isRoot: Bool { uid == 0 }

    static func current() -> Caller { Caller(uid: realUserID()) }

    func requireRoot(_ command: String) throws(CLIError) {
        guard isRoot else { throw CLIError.mustBeRoot(command) }
    }

    /// The rule of status, change and verify: anyone may act on their own
    /// credential, only root on another user's. `refusal` words the error
    /// for the user named.
    func requireSelfOrRoot(_ userName: String?, refusal: (String) -> String) throws {
        guard !isRoot, let userName, try lookUpUser(userName).uid != uid else { return }
        throw CLIError(status: .permission, message: refusal(userName))
    }

    /// The caller's own account, for commands whose USER is optional.
    func user() throws -> SystemUser {
        guard let user = SystemUser.lookup(uid: uid) else {
            throw CLIError.notFound(L("uid %d has no entry in the user database", uid))
        }
        return user
    }
}

/// Looks up USER by name (or by a numeric uid): exit 4 if there is no such user.
func lookUpUser(_ name: String) throws -> SystemUser {
    if let user = SystemUser.lookup(name: name) { return user }
    if let uid = UInt32(name), let user = SystemUser.lookup(uid: uid) { return user }
    throw CLIError.notFound(L("no such user '%s'; check the name with 'getent passwd'", name.prefix(64)))
}
