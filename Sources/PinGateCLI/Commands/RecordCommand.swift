import PinGateCore

/// The shape of `remove` and `unlock`: root names one user, and the store
/// changes that user's record or says there is none.
protocol RecordCommand: Command where Arguments == RecordCommandArguments {
    var userName: String { get }
    var locations: Locations { get }
    init(userName: String, locations: Locations)

    /// Changes `user`'s record; false if there is none.
    static func change(_ user: SystemUser, with administration: Administration) throws -> Bool
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
        let user = try lookUpUser(userName)
        let administration = Administration(store: try locations.store(), policy: try locations.policy())
        guard try storeCall({ try Self.change(user, with: administration) }) else {
            throw CLIError.notFound(Self.nothingToChange(user.name))
        }
        Output.line(Self.changed(user.name))
        return .ok
    }
}
