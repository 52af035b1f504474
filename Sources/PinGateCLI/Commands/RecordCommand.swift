import PinGateCore

/// The shape of `remove` and `unlock`: root names one user, and the store
/// changes that user's record or says there is none.
protocol RecordCommand: Command where Arguments == RecordCommandArguments {
    var userName: String { get }
    var locations: Locations { get }
    init(userName: String, locations: Locations)

    /// Changes `owner`'s record; false if there is none.
    static func change(_ owner: RecordOwner, with administration: Administration) throws -> Bool
    /// The error (exit 4) for a user without a record.
    static func nothingToChange(_ user: String) -> String
    /// The line printed when done.
    static func changed(_ user: String) -> String
}

/// `USER`, required.
struct RecordCommandArguments: ArgumentGroup {
    let user = Positional.user(required: true)
}

extension RecordCommand {
    static var requiresRoot: Bool { true }
    static var arguments: RecordCommandArguments { RecordCommandArguments() }

    init(_ arguments: ParsedArguments) throws {
        self.init(userName: arguments[Self.arguments.user] ?? "", locations: Locations(arguments))
    }

    func run(caller: Caller) throws -> ExitStatus {
        let owner = try RecordOwner(userName)
        let administration = Administration(store: try locations.store(), policy: try locations.policy())
        guard try storeCall({ try Self.change(owner, with: administration) }) else {
            throw CLIError.notFound(Self.nothingToChange(owner.name))
        }
        Output.line(Self.changed(owner.name))
        return .ok
    }
}

/// Whose record `remove` or `unlock` changes: a user by name or uid, or a
/// bare uid no account has any more. A deleted account's record stays in
/// the store, and an account given its uid later would take its PIN; root
/// must be able to remove it (`doctor` names such records).
struct RecordOwner {
    let uid: UserID
    /// The account's name, or the uid's digits when no account has it.
    let name: String

    init(_ userName: String) throws {
        do {
            let user = try lookUpUser(userName)
            (uid, name) = (user.uid, user.name)
        } catch let error as CLIError {
            guard let uid = UInt32(userName) else { throw error }
            (self.uid, name) = (uid, String(uid))
        }
    }
}
