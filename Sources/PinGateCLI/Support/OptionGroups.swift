import Glibc
import PinGateCore

/// `--json`: machine-readable output whose schema is documented at the top of
/// each command that takes it, and in pingate(8).
struct JSONOption {
    static let spec = ArgumentSpec(flags: ["--json"])
    let enabled: Bool
    init(_ arguments: ParsedArguments) { enabled = arguments.has("--json") }
}

/// `--stdin`: secrets as lines on standard input, for scripts.
struct StdinOption {
    static let spec = ArgumentSpec(flags: ["--stdin"])
    let enabled: Bool
    init(_ arguments: ParsedArguments) { enabled = arguments.has("--stdin") }
}

/// `--store DIR` and `--config FILE`: test and recovery overrides of the
/// installed locations. The store still must be owned by root, group pingate.
/// Accepted before or after the subcommand.
struct StoreOptions {
    static let spec = ArgumentSpec(options: ["--store", "--config"])
    static var helpText: String {
        """
          --store DIR      \(L("use the store in DIR (default %s)", StoreLocation.defaultDirectory))
          --config FILE    \(L("read the policy from FILE (default %s)", Policy.defaultPath))
        """
    }
    let storeDirectory: String
    let configPath: String
    /// True when either location was given: the setgid helper ignores both,
    /// so commands that go through it refuse the overrides.
    let isOverridden: Bool

    init(_ arguments: ParsedArguments) {
        storeDirectory = arguments.value("--store") ?? StoreLocation.defaultDirectory
        configPath = arguments.value("--config") ?? Policy.defaultPath
        isOverridden = arguments.value("--store") != nil || arguments.value("--config") != nil
    }

    func policy() throws -> Policy {
        do { return try ConfigParser.load(path: configPath) } catch { throw CLIError.store(error) }
    }

    func store() throws -> Store {
        do { return Store(location: try StoreLocation.system(directory: storeDirectory)) } catch { throw CLIError.store(error) }
    }
}

/// The USER operand of the root-only commands that act on one user (enroll,
/// remove, unlock): required, and checked before anything else happens.
struct UserOperand {
    let name: String?

    init(_ arguments: ParsedArguments) { name = arguments.positional(0) }

    /// The shared validate(): a missing USER is a usage error, then root is required.
    func validate(caller: Caller, command: String, usage: String) throws {
        guard name != nil else { throw CLIError.usage(L("missing USER"), usageLine(usage)) }
        try caller.requireRoot(command)
    }

    /// The account, or a "no such user" error (exit 4).
    func lookUp() throws -> SystemUser { try lookUpUser(name ?? "") }
}

/// Who is running the command.
struct Caller {
    let uid: uid_t
    var isRoot: Bool { uid == 0 }

    static func current() -> Caller { Caller(uid: getuid()) }

    func requireRoot(_ command: String) throws {
        guard isRoot else { throw CLIError.mustBeRoot(command) }
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
