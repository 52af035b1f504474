/// The helper's answer read back into the core's own types — what the
/// module's C parser does (pam/pingate_helper.c), for Swift callers: the
/// admin CLI and the lock screen. `HelperAnswer` writes these lines.
public struct DecodedAnswer: Sendable, Equatable {
    public let word: AnswerWord
    /// The `key=value` fields after the word (and bare words, with "").
    public let fields: [String: String]
    /// The text after the word: the message of `error`, `malformed` and `not-local`.
    public let message: String

    /// Reads `line`, which must start with a known word that agrees with
    /// `exitCode`. A `refused` answer is thrown: the request itself was bad.
    public init(line: String, exitCode: Int32) throws(HelperClientError) {
        let first = line.prefix { $0 != " " }
        guard let word = AnswerWord(rawValue: String(first)), word.exitCode.rawValue == exitCode else {
            throw .garbled("\"\(line.prefix(80))\" with exit status \(exitCode)")
        }
        let rest = String(line.dropFirst(first.count).drop { $0 == " " })
        if word == .refused { throw .refused(rest) }
        var fields: [String: String] = [:]
        if word != .error, word != .malformed, word != .notLocal {
            for item in rest.split(separator: " ") {
                let parts = item.split(separator: "=", maxSplits: 1)
                fields[String(parts[0])] = parts.count == 2 ? String(parts[1]) : ""
            }
        }
        self.word = word
        self.fields = fields
        self.message = rest
    }

    private func integer(_ key: String) -> Int { fields[key].flatMap { Int($0) } ?? 0 }

    /// The credential's kind, when the answer names it (enrolled, and locked
    /// or disabled answers).
    public var kind: CredentialKind? { fields["kind"].flatMap(CredentialKind.init(name:)) }
    public var gridSize: Int { integer("grid") }
    /// The PIN's digits; 0 when not known.
    public var pinLength: Int { integer("length") }

    /// The answer to a status request.
    public var statusOutcome: StatusOutcome {
        switch word {
        case .enrolled, .ok, .wrong:
            return .enrolled(kind: kind ?? .pin, gridSize: gridSize, pinLength: pinLength, failures: integer("failures"))
        case .locked: return .locked(seconds: Int64(integer("seconds")), failures: integer("failures"))
        case .disabled: return .disabled(failures: integer("failures"))
        case .notEnrolled: return .notEnrolled
        case .notLocal: return .notLocal(message)
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
        case .wrong:
            return .wrong(failures: integer("failures"), attemptsLeft: integer("left"),
                          lockedSeconds: Int64(integer("locked")), disabled: fields["disabled"] != nil)
        case .locked: return .locked(seconds: Int64(integer("seconds")), failures: integer("failures"))
        case .disabled: return .disabled(failures: integer("failures"))
        case .notEnrolled: return .notEnrolled
        case .notLocal: return .notLocal(message)
        case .malformed: return .malformed(.reported(message))
        case .error, .refused: return .storeError(.message(message))
        }
    }
}
