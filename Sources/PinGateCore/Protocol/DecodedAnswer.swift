/// The helper's answer read back into the core's own types — what the
/// module's C parser does (pam/pingate_helper.c), for Swift callers: the
/// admin CLI and the lock screen. `HelperAnswer` writes these lines.
public struct DecodedAnswer: Sendable, Equatable {
    public let word: AnswerWord
    /// The `key=value` fields after the word.
    public let fields: [String: String]
    /// The bare word `disabled` of a wrong answer: this failure disabled the credential.
    public let disabled: Bool
    /// The bare word `repeated` of a wrong answer: the last wrong answer
    /// again, not counted a second time.
    public let repeated: Bool
    /// `malformed never …`: the input can be no credential of the user's.
    public let rulesOutEveryCredential: Bool
    /// The text after the word: the message of `error`, `malformed` (after
    /// its `never`) and `not-local`, the service of `not-offered`.
    public let message: String

    /// Reads `line`, which must start with a known word that agrees with
    /// `exitCode`, by the module's grammar (pam/pingate_answer.c; the two are
    /// compared line by line in ContractTests): each known field at most
    /// once and well formed, unknown fields kept unchecked. A `refused` answer is
    /// thrown: the request itself was bad.
    public init(line: String, exitCode: Int32) throws(HelperClientError) {
        let garbled = HelperClientError.garbled("\"\(line.prefix(80))\" with exit status \(exitCode)")
        let first = line.prefix { $0 != " " }
        guard let word = AnswerWord(rawValue: String(first)), word.exitCode.rawValue == exitCode else { throw garbled }
        var rest = String(line.dropFirst(first.count).drop { $0 == " " })
        if word == .refused { throw .refused(rest) }
        var fields: [String: String] = [:]
        var disabled = false, repeated = false
        let never = word == .malformed && rest.split(separator: " ").first == "never"
        if never { rest = String(rest.dropFirst("never".count).drop { $0 == " " }) }
        if !DecodedAnswer.messageWords.contains(word) {
            var slots: Set<String> = []
            for item in rest.split(separator: " ") {
                guard let equals = item.firstIndex(of: "=") else {
                    disabled = disabled || item == "disabled"
                    repeated = repeated || item == "repeated"
                    continue
                }
                let key = String(item[..<equals]), value = String(item[item.index(after: equals)...])
                // Unknown keys are for newer helpers: kept unchecked, as the module skips them.
                if let rule = DecodedAnswer.fieldRules[key] {
                    guard rule.accepts(value), slots.insert(rule.slot).inserted else { throw garbled }
                }
                fields[key] = value
            }
            guard word != .enrolled || fields["kind"] != nil, fields["kind"] != "pattern" || fields["grid"] != nil else { throw garbled }
        }
        self.word = word
        self.fields = fields
        self.disabled = disabled
        self.repeated = repeated
        self.rulesOutEveryCredential = never
        self.message = rest
    }

    /// Words whose rest is a message, not fields.
    static let messageWords: Set<AnswerWord> = [.malformed, .notLocal, .notOffered, .passwordFirst, .error, .refused]

    /// The fields both sides read, with the values they accept. `slot`:
    /// `seconds` (of locked) and `locked` (of wrong) are one value.
    struct FieldRule: Sendable {
        let slot: String
        let accepts: @Sendable (String) -> Bool

        static func number(_ range: ClosedRange<UInt64>, slot: String) -> FieldRule {
            FieldRule(slot: slot) { text in
                !text.isEmpty && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && UInt64(text).map(range.contains) == true
            }
        }
    }

    static let fieldRules: [String: FieldRule] = [
        "kind": FieldRule(slot: "kind") { $0 == "pin" || $0 == "pattern" },
        "grid": .number(3...6, slot: "grid"),
        "length": .number(1...64, slot: "length"),
        "failures": .number(0...1_000_000, slot: "failures"),
        "left": .number(0...1_000_000, slot: "left"),
        "seconds": .number(0...100_000_000, slot: "seconds"),
        "locked": .number(0...100_000_000, slot: "seconds"),
        "unseen": .number(0...1_000_000, slot: "unseen"),
        "since": .number(0...100_000_000_000, slot: "since"),
    ]

    private func integer(_ key: String) -> Int { fields[key].flatMap { Int($0) } ?? 0 }

    /// The credential's kind, when the answer names it (enrolled, and locked
    /// or disabled answers).
    public var kind: CredentialKind? { fields["kind"].flatMap(CredentialKind.init(name:)) }
    public var gridSize: Int { integer("grid") }
    /// The PIN's digits; 0 when not known.
    public var pinLength: Int { integer("length") }

    /// The failed attempts the owner is to be told of (`unseen=N since=T`,
    /// after `ok` or `enrolled` for a request with `notice=1`).
    public var notice: FailureNotice? {
        let failures = integer("unseen")
        guard failures > 0 else { return nil }
        return FailureNotice(failures: failures, firstAt: Int64(fields["since"] ?? "0") ?? 0)
    }

    /// The answer to a status request.
    public var statusOutcome: StatusOutcome {
        switch word {
        case .enrolled, .ok, .wrong:
            return .enrolled(kind: kind ?? .pin, gridSize: gridSize, pinLength: pinLength, failures: integer("failures"))
        case .locked: return .locked(seconds: Int64(integer("seconds")), failures: integer("failures"))
        case .disabled: return .disabled(failures: integer("failures"))
        case .notEnrolled: return .notEnrolled
        case .notLocal: return .notLocal(message)
        case .notOffered: return .notOffered(service: message)
        case .passwordFirst: return .passwordFirst(message)
        case .malformed, .error, .refused: return .storeError(.message(message))
        }
    }

    /// The answer to a verify or change request.
    public var verifyOutcome: VerifyOutcome {
        switch word {
        case .ok: return .ok
        // A status-shaped answer to a verification is no answer: never success
        // (the module treats it the same way).
        case .enrolled: return .storeError(.message("unexpected answer to a verification: \(word.rawValue) \(message)"))
        case .wrong where repeated:
            return .repeatedWrong(failures: integer("failures"), attemptsLeft: integer("left"))
        case .wrong:
            return .wrong(failures: integer("failures"), attemptsLeft: integer("left"),
                          lockedSeconds: Int64(integer("locked")), disabled: disabled)
        case .locked: return .locked(seconds: Int64(integer("seconds")), failures: integer("failures"))
        case .disabled: return .disabled(failures: integer("failures"))
        case .notEnrolled: return .notEnrolled
        case .notLocal: return .notLocal(message)
        case .notOffered: return .notOffered(service: message)
        case .passwordFirst: return .passwordFirst(message)
        case .malformed: return .malformed(.reported(message))
        case .error, .refused: return .storeError(.message(message))
        }
    }
}
