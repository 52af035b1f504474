/// The exit statuses of `pingate`, fixed by DESIGN.md and documented in pingate(8).
enum ExitStatus: Int32 {
    case ok = 0
    /// Verification failed, locked, disabled, or a new credential was refused
    /// (mismatch, weak, malformed).
    case failed = 1
    /// Bad arguments, or a conflict the caller resolves with a flag (--force).
    case usage = 2
    case permission = 3
    /// No such user, or the user has no credential.
    case notFound = 4
    case storeOrConfig = 5
    /// The user cancelled at a prompt (Ctrl-C, Esc, empty input): 128 + SIGINT.
    case cancelled = 130
}

/// An error that ends the command: one line on stderr, then the exit status.
struct CLIError: Error {
    let status: ExitStatus
    let message: String
    /// Usage errors also print the command's usage line.
    var usageLine: String? = nil

    static func usage(_ message: String, _ usageLine: String) -> CLIError {
        CLIError(status: .usage, message: message, usageLine: usageLine)
    }

    static func mustBeRoot(_ command: String) -> CLIError {
        CLIError(status: .permission, message: "\(command) must be run as root (try: sudo pingate \(command) ...)")
    }

    static let cancelled = CLIError(status: .cancelled, message: "cancelled; nothing was changed")

    static func failed(_ message: String) -> CLIError { CLIError(status: .failed, message: message) }
    static func notFound(_ message: String) -> CLIError { CLIError(status: .notFound, message: message) }
    static func store(_ error: Error) -> CLIError { CLIError(status: .storeOrConfig, message: String(describing: error)) }
}
