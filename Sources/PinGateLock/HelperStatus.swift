/// The user's own PinGate state, from the helper's `status` answer
/// (pam/pingate_protocol.h): what to offer on the lock screen.
public enum HelperStatus: Equatable, Sendable {
    case pin(length: Int, failures: Int)
    case pattern(grid: Int, failures: Int)
    case locked(seconds: Int, failures: Int, isPattern: Bool)
    case disabled(failures: Int, isPattern: Bool)
    case notEnrolled
    /// No usable answer: the helper failed, is missing, or the store is broken.
    case unavailable(reason: String)

    /// The failure count the answer carried, if it named one.
    public var failures: Int? {
        switch self {
        case let .pin(_, failures), let .pattern(_, failures), let .locked(_, failures, _), let .disabled(failures, _):
            return failures
        case .notEnrolled, .unavailable:
            return nil
        }
    }

    /// The policy default PIN length, used until the helper's status answer
    /// carries `length=N` (the lead is adding it to the protocol).
    public static let defaultPINLength = 4

    /// Parses one answer line and the helper's exit status.
    public init(answer: String, exitStatus: Int32) {
        let words = answer.split(separator: " ")
        var fields: [Substring: Substring] = [:]
        var flags: Set<Substring> = []
        for word in words.dropFirst() {
            if let equals = word.firstIndex(of: "=") {
                fields[word[..<equals]] = word[word.index(after: equals)...]
            } else {
                flags.insert(word)
            }
        }
        func number(_ key: Substring) -> Int? { fields[key].flatMap { Int($0) } }
        let failures = number("failures") ?? 0
        let isPattern = fields["kind"] == "pattern"
        switch (words.first, exitStatus) {
        case ("enrolled", 0):
            if fields["kind"] == "pattern" {
                guard let grid = number("grid"), (3...6).contains(grid) else {
                    self = .unavailable(reason: "status without a valid grid: \(answer)")
                    return
                }
                self = .pattern(grid: grid, failures: failures)
            } else if fields["kind"] == "pin" {
                let length = number("length").flatMap { (1...64).contains($0) ? $0 : nil }
                self = .pin(length: length ?? HelperStatus.defaultPINLength, failures: failures)
            } else {
                self = .unavailable(reason: "status of an unknown kind: \(answer)")
            }
        case ("locked", 2):
            self = .locked(seconds: max(1, number("seconds") ?? 1), failures: failures, isPattern: isPattern)
        case ("disabled", 3):
            self = .disabled(failures: failures, isPattern: isPattern)
        case ("not-enrolled", 4):
            self = .notEnrolled
        default:
            let text = answer.isEmpty ? "no answer (exit status \(exitStatus))" : answer
            self = .unavailable(reason: text)
        }
    }
}
