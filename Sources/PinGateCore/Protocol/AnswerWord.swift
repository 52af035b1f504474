/// The first word of the helper's answer line, and the exit status that
/// goes with it (PINGATE_WORD_* and PINGATE_EXIT_* in pam/pingate_protocol.h;
/// ProtocolAgreementTests checks that both sides spell them alike).
public enum AnswerWord: String, CaseIterable, Sendable {
    case enrolled, ok, wrong, locked, disabled
    case notEnrolled = "not-enrolled"
    case malformed
    case notLocal = "not-local"
    case error, refused

    public var exitCode: HelperAnswer.ExitCode {
        switch self {
        case .enrolled, .ok: .ok
        case .wrong: .wrong
        case .locked: .locked
        case .disabled: .disabled
        case .notEnrolled: .notEnrolled
        case .malformed: .malformed
        case .notLocal: .notLocal
        case .error: .error
        case .refused: .refused
        }
    }
}
