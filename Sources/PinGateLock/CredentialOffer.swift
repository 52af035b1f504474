import PinGateCore

/// What the lock screen offers the user, from the helper's answer to
/// `status` (pam/pingate_protocol.h): their PIN pad or pattern grid, or,
/// with the reason, only the password.
public enum CredentialOffer: Equatable, Sendable {
    /// `length` is nil for a PIN enrolled before records kept their length.
    case pin(length: Int?, failures: Int)
    case pattern(grid: Int, failures: Int)
    case locked(seconds: Int, failures: Int, isPattern: Bool)
    case disabled(failures: Int, isPattern: Bool)
    case notEnrolled
    /// pingate.conf's `services` leaves the lock screen out: only the password.
    case notOffered
    /// No usable answer: the helper failed, is missing, or the store is broken.
    case unavailable(reason: String)

    /// The failure count the answer carried, if it named one.
    public var failures: Int? {
        switch self {
        case let .pin(_, failures), let .pattern(_, failures), let .locked(_, failures, _), let .disabled(failures, _):
            return failures
        case .notEnrolled, .notOffered, .unavailable:
            return nil
        }
    }

    /// The offer for the helper's decoded status answer.
    public init(_ answer: DecodedAnswer) {
        let isPattern = answer.kind == .pattern
        switch answer.statusOutcome {
        case let .enrolled(kind, grid, length, failures):
            if kind == .pattern {
                self = PatternGrid.supportedSizes.contains(grid)
                    ? .pattern(grid: grid, failures: failures)
                    : .unavailable(reason: "status without a valid grid: grid=\(grid)")
            } else {
                self = .pin(length: length > 0 ? length : nil, failures: failures)
            }
        case let .locked(seconds, failures):
            self = .locked(seconds: max(1, Int(seconds)), failures: failures, isPattern: isPattern)
        case let .disabled(failures):
            self = .disabled(failures: failures, isPattern: isPattern)
        case .notEnrolled:
            self = .notEnrolled
        case let .storeError(message):
            self = .unavailable(reason: message.description)
        case let .notLocal(reason):
            self = .unavailable(reason: "not at the machine: \(reason)")
        case .notOffered:
            self = .notOffered
        case let .passwordFirst(reason):
            self = .unavailable(reason: reason)
        }
    }

    /// Reads one answer line and the helper's exit status (see `DecodedAnswer`).
    public init(answer: String, exitStatus: Int32) {
        do {
            self.init(try DecodedAnswer(line: answer, exitCode: exitStatus))
        } catch {
            self = .unavailable(reason: error.description)
        }
    }
}
