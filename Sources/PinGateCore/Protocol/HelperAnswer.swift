/// The helper's one-line answer and its exit status (see pingate_protocol.h).
public struct HelperAnswer: Equatable, Sendable {
    public enum ExitCode: Int32, Sendable {
        case ok = 0, wrong = 1, locked = 2, disabled = 3, notEnrolled = 4, malformed = 5, error = 6, refused = 7
    }

    public let line: String
    public let exitCode: ExitCode

    public init(line: String, exitCode: ExitCode) {
        // One line, always: a message can never smuggle a second answer.
        self.line = String(line.map { $0.isNewline ? " " : $0 })
        self.exitCode = exitCode
    }

    public init(_ outcome: StatusOutcome) {
        switch outcome {
        case let .enrolled(kind, gridSize, failures):
            let grid = kind == .pattern ? " grid=\(gridSize)" : ""
            self.init(line: "enrolled kind=\(kind)\(grid) failures=\(failures)", exitCode: .ok)
        case let .locked(seconds, failures):
            self.init(line: "locked seconds=\(seconds) failures=\(failures)", exitCode: .locked)
        case let .disabled(failures):
            self.init(line: "disabled failures=\(failures)", exitCode: .disabled)
        case .notEnrolled:
            self.init(line: "not-enrolled", exitCode: .notEnrolled)
        case let .storeError(message):
            self.init(line: "error \(message)", exitCode: .error)
        }
    }

    public init(_ outcome: VerifyOutcome) {
        switch outcome {
        case .ok:
            self.init(line: "ok", exitCode: .ok)
        case let .wrong(failures, left, lockedSeconds, disabled):
            var line = "wrong failures=\(failures) left=\(left)"
            if disabled { line += " disabled" } else if lockedSeconds > 0 { line += " locked=\(lockedSeconds)" }
            self.init(line: line, exitCode: .wrong)
        case let .locked(seconds, failures):
            self.init(line: "locked seconds=\(seconds) failures=\(failures)", exitCode: .locked)
        case let .disabled(failures):
            self.init(line: "disabled failures=\(failures)", exitCode: .disabled)
        case .notEnrolled:
            self.init(line: "not-enrolled", exitCode: .notEnrolled)
        case let .malformed(error):
            self.init(line: "malformed \(error)", exitCode: .malformed)
        case let .storeError(message):
            self.init(line: "error \(message)", exitCode: .error)
        }
    }

    /// Adds `kind=… [grid=R]` to a locked or disabled answer, so the module
    /// can say "pattern locked" rather than "PIN locked".
    public func describingCredential(kind: CredentialKind, gridSize: Int) -> HelperAnswer {
        guard exitCode == .locked || exitCode == .disabled else { return self }
        let grid = kind == .pattern ? " grid=\(gridSize)" : ""
        return HelperAnswer(line: "\(line) kind=\(kind)\(grid)", exitCode: exitCode)
    }

    public static func refused(_ message: String) -> HelperAnswer {
        HelperAnswer(line: "refused \(message)", exitCode: .refused)
    }
}
