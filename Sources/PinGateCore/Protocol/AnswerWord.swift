import CPinGateContract

/// The first word of the helper's answer line, and the exit status that
/// goes with it: PINGATE_WORD_* and PINGATE_EXIT_* of pam/pingate_protocol.h,
/// imported from the header the module compiles with.
public enum AnswerWord: CaseIterable, RawRepresentable, Sendable {
    case enrolled, ok, wrong, locked, disabled, notEnrolled, malformed, notLocal, notOffered, passwordFirst, error, refused

    public init?(rawValue: String) {
        guard let word = AnswerWord.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = word
    }

    public var rawValue: String {
        switch self {
        case .enrolled: PINGATE_WORD_ENROLLED
        case .ok: PINGATE_WORD_OK
        case .wrong: PINGATE_WORD_WRONG
        case .locked: PINGATE_WORD_LOCKED
        case .disabled: PINGATE_WORD_DISABLED
        case .notEnrolled: PINGATE_WORD_NOT_ENROLLED
        case .malformed: PINGATE_WORD_MALFORMED
        case .notLocal: PINGATE_WORD_NOT_LOCAL
        case .notOffered: PINGATE_WORD_NOT_OFFERED
        case .passwordFirst: PINGATE_WORD_PASSWORD_FIRST
        case .error: PINGATE_WORD_ERROR
        case .refused: PINGATE_WORD_REFUSED
        }
    }

    public var exitCode: HelperAnswer.ExitCode {
        switch self {
        case .enrolled, .ok: .ok
        case .wrong: .wrong
        case .locked: .locked
        case .disabled: .disabled
        case .notEnrolled: .notEnrolled
        case .malformed: .malformed
        case .notLocal: .notLocal
        case .notOffered: .notOffered
        case .passwordFirst: .passwordFirst
        case .error: .error
        case .refused: .refused
        }
    }
}
