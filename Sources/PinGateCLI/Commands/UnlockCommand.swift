import PinGateCore

/// `pingate unlock USER`: root clears failures, a timeout and a disable.
struct UnlockCommand: Command {
    static let name = "unlock"
    static var abstract: String { L("clear a user's failures, timeout and disable (root)") }
    static let usage = "pingate unlock USER"
    static var discussion: String {
        HelpText.compose(
            HelpText.paragraph(L("Sets the failure count to 0, ending any timeout and re-enabling a credential disabled after max_failures. The credential is unchanged.")),
            HelpText.paragraph(L("Exit status: 0 unlocked; 2 usage; 3 not root; 4 no such user or not enrolled; 5 store error.")))
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
        guard try storeCall({ try administration.unlock(uid: UInt32(user.uid)) }) else {
            throw CLIError.notFound(L("%s has no PIN or pattern; nothing to unlock", user.name))
        }
        SystemLog.write(.notice, "unlock: failures cleared by root (user=\(user.name) uid=\(user.uid))")
        Output.line(L("unlocked %s", user.name))
        return .ok
    }
}
