import PinGateCore

// What the verifier's outcomes mean to a person at the command line, whether
// they came from the Verifier itself (root) or back from the helper's answer
// (everyone else): one message and one exit status for each. `kind` is the
// user's credential (nil: not known, as when not enrolled); each kind has
// whole sentences of its own, so that every language can word them.

extension VerifyOutcome {
    /// The error that ends the command, for anything but `.ok`.
    func failure(kind: CredentialKind?, user: String) -> CLIError? {
        let pattern = kind == .pattern
        switch self {
        case .ok:
            return nil
        case let .wrong(failures, left, seconds, disabled):
            if disabled {
                return .failed(pattern ? L("wrong pattern for %s (it is now disabled; root can run 'pingate unlock %s')", user, user)
                    : L("wrong PIN for %s (it is now disabled; root can run 'pingate unlock %s')", user, user))
            } else if seconds > 0 {
                return .failed(pattern ? LP("wrong pattern for %2$s (locked for %3$s after %1$d failed attempt)", "wrong pattern for %2$s (locked for %3$s after %1$d failed attempts)", failures, user, Output.duration(seconds))
                    : LP("wrong PIN for %2$s (locked for %3$s after %1$d failed attempt)", "wrong PIN for %2$s (locked for %3$s after %1$d failed attempts)", failures, user, Output.duration(seconds)))
            }
            return .failed(pattern ? LP("wrong pattern for %2$s (%1$d attempt left before a timeout)", "wrong pattern for %2$s (%1$d attempts left before a timeout)", left, user)
                : LP("wrong PIN for %2$s (%1$d attempt left before a timeout)", "wrong PIN for %2$s (%1$d attempts left before a timeout)", left, user))
        case let .repeatedWrong(failures, left):
            return VerifyOutcome.wrong(failures: failures, attemptsLeft: left, lockedSeconds: 0, disabled: false).failure(kind: kind, user: user)
        case let .locked(seconds, failures):
            return StatusOutcome.locked(seconds: seconds, failures: failures).refusal(kind: kind, user: user)
        case let .disabled(failures):
            return StatusOutcome.disabled(failures: failures).refusal(kind: kind, user: user)
        case .notEnrolled:
            return StatusOutcome.notEnrolled.refusal(kind: kind, user: user)
        case let .notLocal(reason):
            return StatusOutcome.notLocal(reason).refusal(kind: kind, user: user)
        case let .notOffered(service):
            return StatusOutcome.notOffered(service: service).refusal(kind: kind, user: user)
        case let .passwordFirst(reason):
            return StatusOutcome.passwordFirst(reason).refusal(kind: kind, user: user)
        case let .malformed(reason):
            return .failed(pattern ? L("not a well-formed pattern: %s (nothing was counted)", reason.localized)
                : L("not a well-formed PIN: %s (nothing was counted)", reason.localized))
        case let .storeError(message):
            return CLIError(status: .storeOrConfig, message: message.description)
        }
    }

    /// True for a wrong secret with attempts left: the one failure worth asking again after.
    var isWrongWithAttemptsLeft: Bool {
        if case .wrong(_, _, let seconds, let disabled) = self { return seconds == 0 && !disabled }
        if case .repeatedWrong = self { return true }
        return false
    }
}

extension StatusOutcome {
    /// Why no attempt can be made now (not enrolled, locked, disabled, a
    /// store error), or nil when one can.
    func refusal(kind: CredentialKind?, user: String) -> CLIError? {
        let pattern = kind == .pattern
        switch self {
        case .enrolled:
            return nil
        case let .locked(seconds, failures):
            return .failed(pattern ? LP("%2$s's pattern is locked for %3$s after %1$d failed attempt; wait, or root can run 'pingate unlock %2$s'", "%2$s's pattern is locked for %3$s after %1$d failed attempts; wait, or root can run 'pingate unlock %2$s'", failures, user, Output.duration(seconds))
                : LP("%2$s's PIN is locked for %3$s after %1$d failed attempt; wait, or root can run 'pingate unlock %2$s'", "%2$s's PIN is locked for %3$s after %1$d failed attempts; wait, or root can run 'pingate unlock %2$s'", failures, user, Output.duration(seconds)))
        case let .disabled(failures):
            return .failed(pattern ? LP("%2$s's pattern is disabled after %1$d failed attempt; root can run 'pingate unlock %2$s'", "%2$s's pattern is disabled after %1$d failed attempts; root can run 'pingate unlock %2$s'", failures, user)
                : LP("%2$s's PIN is disabled after %1$d failed attempt; root can run 'pingate unlock %2$s'", "%2$s's PIN is disabled after %1$d failed attempts; root can run 'pingate unlock %2$s'", failures, user))
        case .notEnrolled:
            return .notFound(L("%s has no PIN or pattern; ask an administrator to enrol one (sudo pingate enroll %s)", user, user))
        case let .notLocal(reason):
            return CLIError(status: .permission, message: L("a PIN or pattern can be tried only by someone at the machine, and this is not (%s); nothing was counted — use your password, or try at the machine", reason))
        case let .notOffered(service):
            return CLIError(status: .permission, message: L("no PIN or pattern is offered to the service %s (the services key of pingate.conf); nothing was counted", service))
        case let .passwordFirst(reason):
            return CLIError(status: .permission, message: L("the first sign-in since the machine started takes the password (%s); nothing was counted", reason))
        case let .storeError(message):
            return CLIError(status: .storeOrConfig, message: message.description)
        }
    }
}

extension HelperClientError {
    var cliError: CLIError {
        switch self {
        case let .refused(message):
            return CLIError(status: .permission, message: L("%s refused: %s", HelperClient.installedPath, message))
        default:
            return CLIError(status: .storeOrConfig, message: description)
        }
    }
}

/// Runs `body`, turning a helper client's error into the CLI's.
func helperCall<Result>(_ body: () throws(HelperClientError) -> Result) throws(CLIError) -> Result {
    do { return try body() } catch { throw error.cliError }
}
