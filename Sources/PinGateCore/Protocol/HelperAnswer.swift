import CPinGateContract

/// The helper's one-line answer and its exit status (see pingate_protocol.h).
public struct HelperAnswer: Equatable, Sendable {
    /// The exit statuses PINGATE_EXIT_* of pam/pingate_protocol.h.
    public struct ExitCode: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let ok = ExitCode(rawValue: PINGATE_EXIT_OK)
        public static let wrong = ExitCode(rawValue: PINGATE_EXIT_WRONG)
        public static let locked = ExitCode(rawValue: PINGATE_EXIT_LOCKED)
        public static let disabled = ExitCode(rawValue: PINGATE_EXIT_DISABLED)
        public static let notEnrolled = ExitCode(rawValue: PINGATE_EXIT_NOT_ENROLLED)
        public static let malformed = ExitCode(rawValue: PINGATE_EXIT_MALFORMED)
        public static let error = ExitCode(rawValue: PINGATE_EXIT_ERROR)
        public static let refused = ExitCode(rawValue: PINGATE_EXIT_REFUSED)
        public static let notLocal = ExitCode(rawValue: PINGATE_EXIT_NOT_LOCAL)
        public static let notOffered = ExitCode(rawValue: PINGATE_EXIT_NOT_OFFERED)
        public static let passwordFirst = ExitCode(rawValue: PINGATE_EXIT_PASSWORD_FIRST)
    }

    public let line: String
    public let exitCode: ExitCode

    /// The most bytes the module reads, newline included.
    public static let maximumSize = Int(PINGATE_ANSWER_MAX)

    public init(line: String, exitCode: ExitCode) {
        // One line, always: a message can never smuggle a second answer.
        // (Rebuilt only when there is a line break: the standard library's
        // unspecialised String(Sequence) costs a Swift metadata lookup.)
        var oneLine = line.contains(where: { $0.isNewline }) ? String(line.map { $0.isNewline ? " " : $0 }) : line
        // A long message (a deep store path) is cut, not sent whole: the
        // module refuses an over-long answer as no answer at all.
        while oneLine.utf8.count >= HelperAnswer.maximumSize { oneLine.removeLast() }
        self.line = oneLine
        self.exitCode = exitCode
    }

    /// An answer that starts with `word` (and so exits with its status).
    public init(_ word: AnswerWord, _ rest: String = "") {
        self.init(line: rest.isEmpty ? word.rawValue : "\(word.rawValue) \(rest)", exitCode: word.exitCode)
    }

    public init(_ outcome: StatusOutcome) {
        switch outcome {
        case let .enrolled(kind, gridSize, pinLength, failures):
            let grid = kind == .pattern ? " grid=\(gridSize)" : ""
            let length = pinLength > 0 ? " length=\(pinLength)" : ""
            self.init(.enrolled, "kind=\(kind)\(grid)\(length) failures=\(failures)")
        case let .locked(seconds, failures):
            self.init(.locked, "seconds=\(seconds) failures=\(failures)")
        case let .disabled(failures):
            self.init(.disabled, "failures=\(failures)")
        case .notEnrolled:
            self.init(AnswerWord.notEnrolled)
        case let .notLocal(reason):
            self.init(.notLocal, reason)
        case let .notOffered(service):
            self.init(.notOffered, service)
        case let .passwordFirst(reason):
            self.init(.passwordFirst, reason)
        case let .storeError(error):
            self.init(.error, error.description)
        }
    }

    public init(_ outcome: VerifyOutcome) {
        switch outcome {
        case .ok:
            self.init(AnswerWord.ok)
        case let .wrong(failures, left, lockedSeconds, disabled):
            var fields = "failures=\(failures) left=\(left)"
            if disabled { fields += " disabled" } else if lockedSeconds > 0 { fields += " locked=\(lockedSeconds)" }
            self.init(.wrong, fields)
        case let .repeatedWrong(failures, left):
            self.init(.wrong, "failures=\(failures) left=\(left) repeated")
        case let .malformed(error):
            self.init(.malformed, error.rulesOutEveryCredential ? "never \(error)" : "\(error)")
        // The refusals a status can give too are written the same way.
        case let .locked(seconds, failures): self.init(StatusOutcome.locked(seconds: seconds, failures: failures))
        case let .disabled(failures): self.init(StatusOutcome.disabled(failures: failures))
        case .notEnrolled: self.init(StatusOutcome.notEnrolled)
        case let .notLocal(reason): self.init(StatusOutcome.notLocal(reason))
        case let .notOffered(service): self.init(StatusOutcome.notOffered(service: service))
        case let .passwordFirst(reason): self.init(StatusOutcome.passwordFirst(reason))
        case let .storeError(error): self.init(StatusOutcome.storeError(error))
        }
    }

    /// Adds `kind=… [grid=R]` to a locked or disabled answer, so the module
    /// can say "pattern locked" rather than "PIN locked".
    public func describingCredential(kind: CredentialKind, gridSize: Int) -> HelperAnswer {
        guard exitCode == .locked || exitCode == .disabled else { return self }
        let grid = kind == .pattern ? " grid=\(gridSize)" : ""
        return HelperAnswer(line: "\(line) kind=\(kind)\(grid)", exitCode: exitCode)
    }

    /// Adds `unseen=N since=T` to an `ok` or `enrolled` answer: the notice
    /// the caller shows the owner (nothing when there is none).
    public func telling(_ notice: FailureNotice?) -> HelperAnswer {
        guard let notice, exitCode == .ok else { return self }
        // Within the grammar both readers take, so a notice never turns a success into no answer.
        let failures = min(max(notice.failures, 0), 1_000_000), since = min(max(notice.firstAt, 0), 100_000_000_000)
        return HelperAnswer(line: "\(line) unseen=\(failures) since=\(since)", exitCode: exitCode)
    }

    public static func refused(_ message: String) -> HelperAnswer {
        HelperAnswer(.refused, message)
    }
}
