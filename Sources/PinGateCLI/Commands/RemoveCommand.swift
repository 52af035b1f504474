import PinGateCore

/// `pingate remove USER`: root deletes a user's credential and counters.
struct RemoveCommand: Command {
    static let name = "remove"
    static var abstract: String { L("delete a user's PIN or pattern (root)") }
    static let usage = "pingate remove USER"
    static var discussion: String {
        HelpText.compose(
            HelpText.paragraph(L("Deletes the user's record: their PIN or pattern and its failure count. The user then authenticates with the password only, until enrolled again.")),
            HelpText.paragraph(L("Exit status: 0 removed; 2 usage; 3 not root; 4 no such user or not enrolled; 5 store error.")))
    }
    static let spec = ArgumentSpec(positionals: 1)

    let user: UserOperand
    let locations: StoreOptions

    init(_ arguments: ParsedArguments) throws {
        user = UserOperand(arguments)
        locations = StoreOptions(arguments)
    }

    func validate(caller: Caller) throws {
        try user.validate(caller: caller, command: Self.name, usage: Self.usage)
    }

    func run(caller: Caller) throws -> ExitStatus {
        let user = try self.user.lookUp()
        let administration = Administration(store: try locations.store(), policy: try locations.policy())
        guard try storeCall({ try administration.remove(uid: UInt32(user.uid)) }) else {
            throw CLIError.notFound(L("%s has no PIN or pattern; nothing to remove", user.name))
        }
        Output.line(L("removed the credential of %s", user.name))
        return .ok
    }
}
