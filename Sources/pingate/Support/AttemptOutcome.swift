import PinGateCore

/// The result of a verification or change, whether it came from the Verifier
/// (root) or from the helper's answer line (everyone else), in one shape so
/// both paths print the same messages and exit with the same status.
enum AttemptOutcome {
    case ok
    case wrong(failures: Int, attemptsLeft: Int, lockedSeconds: Int64, disabled: Bool)
    case locked(seconds: Int64, failures: Int)
    case disabled(failures: Int)
    case notEnrolled
    case malformed(String)
    case storeError(String)
    case refused(String)

    init(_ outcome: VerifyOutcome) {
        switch outcome {
        case .ok: self = .ok
        case let .wrong(failures, left, seconds, disabled):
            self = .wrong(failures: failures, attemptsLeft: left, lockedSeconds: seconds, disabled: disabled)
        case let .locked(seconds, failures): self = .locked(seconds: seconds, failures: failures)
        case let .disabled(failures): self = .disabled(failures: failures)
        case .notEnrolled: self = .notEnrolled
        case let .malformed(error): self = .malformed(error.localized)
        case let .storeError(message): self = .storeError(message)
        }
    }

    init(_ answer: HelperClient.Answer) {
        let failures = Int(answer.integer("failures"))
        switch answer.word {
        case "ok": self = .ok
        case "wrong":
            self = .wrong(failures: failures, attemptsLeft: Int(answer.integer("left")),
                          lockedSeconds: answer.integer("locked"), disabled: answer.fields["disabled"] != nil)
        case "locked": self = .locked(seconds: answer.integer("seconds"), failures: failures)
        case "disabled": self = .disabled(failures: failures)
        case "not-enrolled": self = .notEnrolled
        case "malformed": self = .malformed(answer.message)
        case "refused": self = .refused(answer.message)
        case "error": self = .storeError(answer.message)
        default: self = .storeError("unexpected answer from \(HelperClient.path): '\(answer.word.prefix(40))'")
        }
    }

    /// The error that ends the command for anything but `.ok`. `kind` is the
    /// user's credential (nil: not known, as when not enrolled); each kind has
    /// whole sentences of its own, so that every language can word them.
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
        case let .locked(seconds, failures):
            return .failed(pattern ? LP("%2$s's pattern is locked for %3$s after %1$d failed attempt; wait, or root can run 'pingate unlock %2$s'", "%2$s's pattern is locked for %3$s after %1$d failed attempts; wait, or root can run 'pingate unlock %2$s'", failures, user, Output.duration(seconds))
                : LP("%2$s's PIN is locked for %3$s after %1$d failed attempt; wait, or root can run 'pingate unlock %2$s'", "%2$s's PIN is locked for %3$s after %1$d failed attempts; wait, or root can run 'pingate unlock %2$s'", failures, user, Output.duration(seconds)))
        case let .disabled(failures):
            return .failed(pattern ? LP("%2$s's pattern is disabled after %1$d failed attempt; root can run 'pingate unlock %2$s'", "%2$s's pattern is disabled after %1$d failed attempts; root can run 'pingate unlock %2$s'", failures, user)
                : LP("%2$s's PIN is disabled after %1$d failed attempt; root can run 'pingate unlock %2$s'", "%2$s's PIN is disabled after %1$d failed attempts; root can run 'pingate unlock %2$s'", failures, user))
        case .notEnrolled:
            return .notFound(L("%s has no PIN or pattern; root can enrol one with 'pingate enroll %s'", user, user))
        case let .malformed(reason):
            return .failed(pattern ? L("not a well-formed pattern: %s (nothing was counted)", reason)
                : L("not a well-formed PIN: %s (nothing was counted)", reason))
        case let .storeError(message):
            return CLIError(status: .storeOrConfig, message: message)
        case let .refused(message):
            return CLIError(status: .permission, message: L("%s refused: %s", HelperClient.path, message))
        }
    }

    /// `failure` for an outcome known not to be `.ok` (a status already read).
    func refusal(kind: CredentialKind?, user: String) -> CLIError {
        failure(kind: kind, user: user) ?? .failed(L("unexpected answer for %s", user))
    }

    /// True for a wrong secret, the one failure worth asking again after.
    var isWrong: Bool {
        if case .wrong(_, _, let seconds, let disabled) = self { return seconds == 0 && !disabled }
        return false
    }
}
