import PinGateCore

/// A non-root caller's own credential, as the helper reports it, when an
/// attempt on it may be made now. `verify` and `change` both check this
/// first, so a locked or disabled credential is reported before anyone
/// types a secret the helper would refuse.
struct OwnCredential {
    let kind: CredentialKind
    let grid: PatternGrid
    /// The failed attempts not yet told, shown before the secret is asked
    /// (`showNotice`); the attempt then spends them if they are still all.
    let notice: FailureNotice?

    /// The caller's credential, or the error that says why no attempt can be made.
    static func readyForAttempt(user: String, client: HelperClient, policy: Policy) throws -> OwnCredential {
        // The owner's status is answered anywhere (it only reads); an attempt
        // is not, and the helper refuses it by this same rule: said here
        // before a secret is typed, as the status used to say it.
        if case let .elsewhere(reason) = LocalityRule(userManagerCallers: policy.userManagerCallers).judge(.thisProcess) {
            throw StatusOutcome.notLocal(reason).refusal(kind: nil, user: user)!
        }
        let answer = try helperCall { () throws(HelperClientError) in try client.status(of: user) }
        let status = answer.statusOutcome
        if let refusal = status.refusal(kind: answer.kind, user: user) { throw refusal }
        let kind = answer.kind ?? .pin
        let size = kind == .pattern ? answer.gridSize : policy.patternGrid
        return OwnCredential(kind: kind, grid: try PatternGrid(size: size), notice: answer.notice)
    }

    /// Says the notice on stderr, before the secret is asked, and returns
    /// it (for the request's `notice=N notice_since=T`).
    func showNotice() -> FailureNotice? {
        guard let notice else { return nil }
        Output.rawError(notice.text(kind: kind))
        return notice
    }
}

extension HelperRequest {
    /// A counted attempt by the CLI, which names no PAM service.
    static func attempt(_ operation: Operation, user: String, secret: consuming Secret) -> HelperRequest {
        HelperRequest(operation: operation, user: user, secret: secret)
    }
}
