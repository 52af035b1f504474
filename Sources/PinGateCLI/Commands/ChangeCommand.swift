import PinGateCore

/// `pingate change [USER]`: a user changes their own credential, proving the
/// current one through the setgid helper; root changes anyone's without it.
struct ChangeCommand: Command {
    static let name = "change"
    static var abstract: String { L("change your own PIN or pattern (root: anyone's)") }
    static var discussion: String {
        HelpText.paragraph(L("A user other than root proves the current secret first, through %s (the attempt is counted like any other, so the lockout applies), then types the new one twice. Root changes any user's credential without the current one; failures and a lock are cleared. The new credential keeps the current kind unless --pin or --pattern is given. Ctrl-C, Esc or an empty entry cancels with nothing changed.", HelperClient.installedPath))
    }
    static var exitStatuses: String? {
        HelpText.paragraph(L("Exit status: 0 changed; 1 wrong current secret, locked, disabled, or the new secret refused; 2 usage; 3 another user's credential, a root-only option, or not at the machine (nothing counted); 4 not enrolled; 5 store error; 130 cancelled."))
    }

    struct Arguments: ArgumentGroup {
        let user = Positional.user(required: false)
        let kind = CredentialKindOptions(either: L("switch to a PIN or a pattern"), grid: L("pattern grid size, 3 to 6"))
        let stdin = StdinOption(help: L("read secrets as lines: the current one (not for root), then the new one twice"))
        let allowWeak = Flag("--allow-weak", rootOnly: true, help: L("root only: accept an easily guessed PIN"))
    }
    static let arguments = Arguments()

    let userName: String?
    let kind: CredentialKind?
    let gridSize: Int?
    let allowWeak: Bool
    let stdin: Bool
    let locations: Locations

    init(_ arguments: ParsedArguments) throws {
        let declared = Self.arguments
        userName = arguments[declared.user]
        kind = try arguments.choice(declared.kind.kind)
        gridSize = try arguments.value(declared.kind.grid)
        guard gridSize == nil || kind != .pin else {
            throw CLIError.usage(L("%s is for patterns, not with %s", declared.kind.grid.declaration.name, "--pin"), arguments.usage)
        }
        allowWeak = arguments[declared.allowWeak]
        stdin = arguments[declared.stdin.flag]
        locations = Locations(arguments)
    }

    func validate(caller: Caller) throws {
        try caller.requireSelfOrRoot(userName) { L("only root can change another user's credential (try: sudo pingate change %s)", $0) }
    }

    func run(caller: Caller) throws -> ExitStatus {
        let user = try userName.map(lookUpUser) ?? caller.user()
        let policy = try locations.policy()
        let entry = try SecretEntries.make(stdin: stdin, usage: usageLine(Self.usage))
        let dialog = CredentialDialog(entry: entry, policy: policy)
        if caller.isRoot {
            try changeAsRoot(user, policy: policy, dialog: dialog)
        } else {
            try changeOwn(user, policy: policy, dialog: dialog)
        }
        return .ok
    }

    /// The new credential's kind and grid: as asked, else as the current one.
    /// Asked before any secret is typed: a --grid that a PIN would ignore is
    /// refused, as enroll refuses it without --pattern.
    private func newShape(current: CredentialKind, currentGrid: Int, policy: Policy, user: String) throws -> (CredentialKind, PatternGrid) {
        let newKind = kind ?? current
        if gridSize != nil && newKind == .pin {
            throw CLIError.usage(L("%s is for patterns, and %s has a PIN; add %s to switch to a pattern",
                                   Self.arguments.kind.grid.declaration.name, user, "--pattern"), usageLine(Self.usage))
        }
        let size = gridSize ?? (newKind == .pattern && current == .pattern ? currentGrid : policy.patternGrid)
        return (newKind, try PatternGrid(size: size))
    }

    private func changeAsRoot(_ user: SystemUser, policy: Policy, dialog: CredentialDialog) throws {
        let store = try locations.store()
        let uid = UInt32(user.uid)
        guard let record = try storeCall({ try store.readRecord(uid: uid) }) else {
            throw StatusOutcome.notEnrolled.refusal(kind: nil, user: user.name)!
        }
        let (newKind, grid) = try newShape(current: record.kind, currentGrid: record.gridSize, policy: policy, user: user.name)
        let credential = try dialog.askNew(kind: newKind, grid: grid, user: user.name, allowWeak: allowWeak)
        let replaced = try storeCall {
            try Administration(store: store, policy: policy).replaceCredential(uid: uid, with: credential)
        }
        guard replaced else { throw StatusOutcome.notEnrolled.refusal(kind: nil, user: user.name)! }
        Output.line(newKind == .pin ? L("changed the PIN of %s", user.name) : L("changed the pattern of %s", user.name))
    }

    private func changeOwn(_ user: SystemUser, policy: Policy, dialog: CredentialDialog) throws {
        let client = HelperClient()
        let current = try OwnCredential.readyForAttempt(user: user.name, client: client, policy: policy)
        let (newKind, grid) = try newShape(current: current.kind, currentGrid: current.grid.size, policy: policy, user: user.name)
        let proof = try proveCurrent(user.name, credential: current, client: client, dialog: dialog)
        let credential = try dialog.askNew(kind: newKind, grid: grid, user: user.name, allowWeak: false)
        let change = HelperRequest(operation: .change, user: user.name, secret: proof,
                                   newKind: newKind, newGridSize: newKind == .pattern ? grid.size : nil,
                                   newSecret: credential.canonicalSecret())
        let outcome = try helperCall { () throws(HelperClientError) in try client.send(change).verifyOutcome }
        if let failure = outcome.failure(kind: current.kind, user: user.name) { throw failure }
        Output.line(newKind == .pin ? L("changed the PIN of %s", user.name) : L("changed the pattern of %s", user.name))
    }

    /// Asks for the current secret. On a terminal it is checked at once (a
    /// counted attempt) so a typo is caught before the new one is typed; a
    /// wrong entry may be tried again while the policy allows free attempts.
    private func proveCurrent(_ user: String, credential: OwnCredential, client: HelperClient,
                              dialog: CredentialDialog) throws -> Secret {
        let kind = credential.kind
        for attempt in 1...dialog.entry.tries {
            let current = try dialog.askExisting(kind: kind, grid: credential.grid,
                                                 prompt: kind == .pin ? L("Current PIN for %s", user) : L("Current pattern for %s", user))
            guard dialog.entry.tries > 1 else { return current }
            // Lent to the request and taken back: the same pages are sent again with the change.
            var check = HelperRequest.attempt(.verify, user: user, secret: current)
            let outcome = try helperCall { () throws(HelperClientError) in try client.send(check).verifyOutcome }
            guard let failure = outcome.failure(kind: kind, user: user) else { return check.secret.take()! }
            guard outcome.isWrongWithAttemptsLeft, attempt < dialog.entry.tries else { throw failure }
            dialog.entry.notice(L("%s — try again", failure.message))
        }
        throw CLIError.failed(kind == .pin ? L("the current PIN was not proven; nothing was changed")
            : L("the current pattern was not proven; nothing was changed"))
    }
}
