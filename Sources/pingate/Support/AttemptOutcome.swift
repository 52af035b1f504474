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
        case let .malformed(error): self = .malformed(error.description)
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

    /// The error that ends the command for anything but `.ok`. `noun` is
    /// "PIN", "pattern" or "PIN or pattern"; `user` names whose it is.
    func failure(noun: String, user: String) -> CLIError? {
        switch self {
        case .ok:
            return nil
        case let .wrong(failures, left, seconds, disabled):
            let consequence: String
            if disabled {
                consequence = "it is now disabled; root can run 'pingate unlock \(user)'"
            } else if seconds > 0 {
                consequence = "locked for \(Output.duration(seconds)) after \(failures) failed attempts"
            } else {
                consequence = "\(left) attempt\(left == 1 ? "" : "s") left before a timeout"
            }
            return .failed("wrong \(noun) for \(user) (\(consequence))")
        case let .locked(seconds, failures):
            return .failed("\(user)'s \(noun) is locked for \(Output.duration(seconds)) after \(failures) failed attempts; wait, or root can run 'pingate unlock \(user)'")
        case let .disabled(failures):
            return .failed("\(user)'s \(noun) is disabled after \(failures) failed attempts; root can run 'pingate unlock \(user)'")
        case .notEnrolled:
            return .notFound("\(user) has no PIN or pattern; root can enrol one with 'pingate enroll \(user)'")
        case let .malformed(reason):
            return .failed("not a well-formed \(noun): \(reason) (nothing was counted)")
        case let .storeError(message):
            return CLIError(status: .storeOrConfig, message: message)
        case let .refused(message):
            return CLIError(status: .permission, message: "\(HelperClient.path) refused: \(message)")
        }
    }

    /// `failure` for an outcome known not to be `.ok` (a status already read).
    func refusal(noun: String, user: String) -> CLIError {
        failure(noun: noun, user: user) ?? .failed("unexpected answer for \(user)")
    }

    /// True for a wrong secret, the one failure worth asking again after.
    var isWrong: Bool {
        if case .wrong(_, _, let seconds, let disabled) = self { return seconds == 0 && !disabled }
        return false
    }
}
