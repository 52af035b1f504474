import PinGateCore

/// `pingate verify USER [--stdin]`: a real, counted attempt through the same
/// verifier the PAM module uses.
struct VerifyCommand: Command {
    static let name = "verify"
    static var abstract: String { L("check a PIN or pattern (a counted attempt)") }
    static var discussion: String {
        HelpText.paragraph(L("Asks for USER's PIN or pattern and checks it with the verifier, exactly as a login would: the attempt is counted first, a wrong one moves the user toward a timeout, a right one clears the failures. Root may check any user; other users only themselves (through %s).", HelperClient.installedPath))
    }
    static var exitStatuses: String? {
        HelpText.paragraph(L("Exit status: 0 correct; 1 wrong, locked, disabled, or not a well-formed secret (not counted); 2 usage; 3 another user, or not at the machine (nothing counted); 4 no such user or not enrolled; 5 store or configuration error; 130 cancelled."))
    }

    struct Arguments: ArgumentGroup {
        let user = Positional.user(required: true)
        let stdin = StdinOption(help: L("read the secret as one line from standard input"))
    }
    static let arguments = Arguments()

    let userName: String
    let stdin: Bool
    let locations: Locations

    init(_ arguments: ParsedArguments) throws {
        userName = arguments[Self.arguments.user] ?? ""
        stdin = arguments[Self.arguments.stdin.flag]
        locations = Locations(arguments)
    }

    func validate(caller: Caller) throws {
        try caller.requireSelfOrRoot(userName) { L("checking another user's credential must be run as root (try: sudo pingate verify %s)", $0) }
    }

    func run(caller: Caller) throws -> ExitStatus {
        let user = try lookUpUser(userName)
        let uid = UInt32(user.uid)
        let policy = try locations.policy()
        let entry = try SecretEntries.make(stdin: stdin, usage: usageLine(Self.usage))
        let dialog = CredentialDialog(entry: entry, policy: policy)
        let outcome: VerifyOutcome
        let kind: CredentialKind
        let notice: FailureNotice?
        if caller.isRoot {
            // Root's own attempts face the rule the helper applies to everyone else's.
            if case let .elsewhere(reason) = LocalityRule().judge(.thisProcess) {
                throw StatusOutcome.notLocal(reason).refusal(kind: nil, user: user.name)!
            }
            let store = try locations.store()
            guard let record = try storeCall({ try store.readRecord(uid: uid) }) else {
                throw StatusOutcome.notEnrolled.refusal(kind: nil, user: user.name)!
            }
            kind = record.kind
            let typed = try dialog.askExisting(kind: record.kind, grid: try PatternGrid(size: max(record.gridSize, 3)),
                                               prompt: Self.prompt(kind, user.name))
            let verifier = Verifier(store: store, policy: policy)
            outcome = verifier.verify(uid: uid, input: typed)
            // Root checking another user's credential sees the notice but
            // leaves it for its owner.
            notice = outcome != .ok ? nil
                : uid == 0 ? try? verifier.takeNotice(uid: uid) : (try? store.readRecord(uid: uid))??.pendingNotice
        } else {
            let client = HelperClient()
            let credential = try OwnCredential.readyForAttempt(user: user.name, client: client, policy: policy)
            kind = credential.kind
            let shown = credential.showNotice()
            let typed = try dialog.askExisting(kind: kind, grid: credential.grid, prompt: Self.prompt(kind, user.name))
            var request = HelperRequest.attempt(.verify, user: user.name, secret: typed)
            request.shownFailures = shown?.failures ?? 0
            request.shownSince = shown?.firstAt ?? 0
            let answer = try helperCall { () throws(HelperClientError) in try client.send(request) }
            outcome = answer.verifyOutcome
            notice = nil   // told before the PIN was asked
        }
        if let failure = outcome.failure(kind: kind, user: user.name) { throw failure }
        Output.line(kind == .pin ? L("correct PIN for %s", user.name) : L("correct pattern for %s", user.name))
        if let notice { Output.line(notice.text(kind: kind)) }
        return .ok
    }

    private static func prompt(_ kind: CredentialKind, _ user: String) -> String {
        kind == .pin ? L("PIN for %s", user) : L("Pattern for %s", user)
    }
}
