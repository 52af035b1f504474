import PinGateCore

/// `pingate enroll USER`: root gives a user a PIN (the default) or a pattern.
struct EnrollCommand: Command {
    static let name = "enroll"
    static var abstract: String { L("give a user a PIN or a pattern (root)") }
    static var discussion: String {
        HelpText.paragraph(L("Asks for the new secret twice and stores its hash in the user's record. On a terminal a PIN is typed on a pad that shows one ● per digit, and a pattern is drawn on a grid (or typed as 1-5-9-6) and shown for confirmation; Esc or Ctrl-C cancels with nothing changed (exit 130)."))
    }
    static var exitStatuses: String? {
        HelpText.paragraph(L("Exit status: 0 enrolled; 1 the secret was refused (malformed, weak, the two entries differ); 2 usage, or already enrolled without --force; 3 not root; 4 no such user; 5 store or configuration error; 130 cancelled."))
    }
    static let requiresRoot = true

    struct Arguments: ArgumentGroup {
        let user = Positional.user(required: true)
        let kind = CredentialKindOptions(pin: L("enrol a PIN (the default)"), pattern: L("enrol a pattern"),
                                         grid: L("pattern grid size, 3 to 6 (default: pattern_grid)"))
        let stdin = StdinOption(help: L("read the new secret twice, one per line, from stdin"))
        let force = Flag("--force", help: L("replace the user's existing credential"))
        let allowWeak = Flag("--allow-weak", help: L("accept a PIN that is easy to guess (1111, 1234, …)"))
    }
    static let arguments = Arguments()

    let userName: String
    let kind: CredentialKind
    let gridSize: Int?
    let force: Bool
    let allowWeak: Bool
    let stdin: Bool
    let locations: Locations

    init(_ arguments: ParsedArguments) throws {
        let declared = Self.arguments
        userName = arguments[declared.user] ?? ""
        kind = try arguments.choice(declared.kind.kind) ?? .pin
        gridSize = try arguments.value(declared.kind.grid)
        guard gridSize == nil || kind == .pattern else {
            throw CLIError.usage(L("%s needs %s", declared.kind.grid.declaration.name, "--pattern"), arguments.usage)
        }
        force = arguments[declared.force]
        allowWeak = arguments[declared.allowWeak]
        stdin = arguments[declared.stdin.flag]
        locations = Locations(arguments)
    }

    func run(caller: Caller) throws -> ExitStatus {
        let user = try lookUpUser(userName)
        let policy = try locations.policy()
        let store = try locations.store()
        let uid = UInt32(user.uid)
        // Refuse before asking, so nobody types a secret twice for nothing.
        if !force, let existing = try storeCall({ try store.readRecord(uid: uid) }) {
            throw alreadyEnrolled(user.name, existing.kind)
        }
        let entry = try SecretEntries.make(stdin: stdin, usage: usageLine(Self.usage))
        let grid = try PatternGrid(size: gridSize ?? policy.patternGrid)
        let credential = try CredentialDialog(entry: entry, policy: policy)
            .askNew(kind: kind, grid: grid, user: user.name, allowWeak: allowWeak)
        do {
            try Administration(store: store, policy: policy).enroll(uid: uid, credential: credential, replacing: force)
        } catch StoreError.recordExists {
            throw alreadyEnrolled(user.name, nil)
        } catch {
            throw CLIError.store(error)
        }
        Output.line(kind == .pin ? L("enrolled a PIN for %s", user.name)
            : L("enrolled a %d×%d pattern for %s", grid.size, grid.size, user.name))
        if !Self.anyServiceOffersIt {
            Output.line(L("nothing asks for it yet: 'pingate enable sudo' offers it to sudo (pingate doctor names the lock screens found here)"))
        }
        return .ok
    }

    /// Whether a PAM stack has the module yet: a service `pingate enable`
    /// changed, or the profile in common-auth.
    private static var anyServiceOffersIt: Bool {
        if !PAMServiceSwitcher().enabledServices().isEmpty { return true }
        let commonAuth = (try? readSmallFile(PAMServiceSwitcher.file(of: "common-auth"), limit: 1 << 20)) ?? nil
        return commonAuth?.contains("pam_pingate.so") ?? false
    }

    private func alreadyEnrolled(_ user: String, _ kind: CredentialKind?) -> CLIError {
        let message: String
        switch kind {
        case .pin: message = L("%s already has a PIN; pass --force to replace it (or 'pingate change %s')", user, user)
        case .pattern: message = L("%s already has a pattern; pass --force to replace it (or 'pingate change %s')", user, user)
        case nil: message = L("%s already has a PIN or pattern; pass --force to replace it (or 'pingate change %s')", user, user)
        }
        return CLIError(status: .usage, message: message)
    }
}

/// Runs a store operation, turning its errors into exit status 5.
func storeCall<Result: ~Copyable>(_ body: () throws -> Result) throws -> Result {
    do { return try body() } catch let error as CLIError { throw error } catch { throw CLIError.store(error) }
}
