import PinGateCore

/// The conversations that ask for secrets, shared by enroll, change and verify.
struct CredentialDialog {
    let entry: any SecretEntry
    let policy: Policy

    /// Asks for a new credential twice and returns it. A malformed or weak
    /// entry (weak: unless `allowWeak`) or a mismatch is refused with the
    /// reason; on a terminal the user may try again, up to `entry.tries`.
    func askNew(kind: CredentialKind, grid: PatternGrid, user: String, allowWeak: Bool) throws -> Credential {
        let isPIN = kind == .pin
        let first = SecretPrompt(text: isPIN ? L("New PIN for %s", user) : L("New pattern for %s", user),
                                 kind: kind, grid: grid, policy: policy)
        let again = SecretPrompt(text: isPIN ? L("Repeat the new PIN") : L("Repeat the new pattern"),
                                 kind: kind, grid: grid, policy: policy)
        for attempt in 1...entry.tries {
            let last = attempt == entry.tries
            guard let typed = try entry.read(first) else { throw CLIError.cancelled }
            let credential: Credential
            do {
                credential = try Credential(parsing: typed, kind: kind, gridSize: grid.size, policy: policy)
            } catch {
                let reason = (error as? CredentialError)?.localized ?? "\(error)"
                try refuse(isPIN ? L("not a well-formed PIN: %s", reason) : L("not a well-formed pattern: %s", reason), last: last)
                continue
            }
            if !allowWeak, let weakness = credential.weakness() {
                try refuse(L("this PIN is too easy to guess: %s; choose another (root may pass --allow-weak)", weakness.localized), last: last)
                continue
            }
            guard let repeated = try entry.read(again) else { throw CLIError.cancelled }
            let matches = (try? Credential(parsing: repeated, kind: kind, gridSize: grid.size, policy: policy)
                .constantTimeEquals(credential)) ?? false
            guard matches else {
                try refuse(isPIN ? L("the two PINs do not match") : L("the two patterns do not match"), last: last)
                continue
            }
            switch credential {
            case let .pattern(pattern): guard try entry.confirm(pattern) else { throw CLIError.cancelled }
            case .pin: break
            }
            return credential
        }
        throw CLIError.failed(isPIN ? L("no PIN was set") : L("no pattern was set"))
    }

    /// Asks once for an existing credential (the caller verifies it).
    func askExisting(kind: CredentialKind, grid: PatternGrid, prompt: String) throws -> Secret {
        let request = SecretPrompt(text: prompt, kind: kind, grid: grid, policy: policy)
        guard let typed = try entry.read(request) else { throw CLIError.cancelled }
        return typed
    }

    /// Refuses an entry: on the last try it ends the command (exit 1),
    /// otherwise it tells the user and lets them try again.
    func refuse(_ reason: String, last: Bool) throws {
        if last { throw CLIError.failed(L("%s; nothing was changed", reason)) }
        entry.notice(L("%s — try again", reason))
    }
}
