import PinGateCore

/// The exit statuses of `pingate`, listed in docs/design.md and documented in pingate(8).
public enum ExitStatus: Int32, Sendable {
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

/// "usage: pingate …", with "usage:" in the user's language.
func usageLine(_ usage: String) -> String { L("usage: %s", usage) }

/// An error that ends the command: one line on stderr, then the exit status.
struct CLIError: Error {
    let status: ExitStatus
    let message: String
    /// Usage errors also print the command's usage line.
    var usageLine: String? = nil
    /// A stable word for what failed, where a command records it (the
    /// cause of a failed `pingate key load`).
    var cause: String? = nil
    /// What the system said, without advice (recorded with `cause`).
    var detail: String? = nil

    static func usage(_ message: String, _ usageLine: String) -> CLIError {
        CLIError(status: .usage, message: message, usageLine: usageLine)
    }

    static func mustBeRoot(_ command: String) -> CLIError {
        CLIError(status: .permission, message: L("%s must be run as root (try: sudo pingate %s ...)", command, command))
    }

    static var cancelled: CLIError { CLIError(status: .cancelled, message: L("cancelled; nothing was changed")) }

    static func failed(_ message: String) -> CLIError { CLIError(status: .failed, message: message) }
    static func notFound(_ message: String) -> CLIError { CLIError(status: .notFound, message: message) }
    static func store(_ error: Error) -> CLIError {
        CLIError(status: .storeOrConfig, message: (error as? StoreError)?.localized ?? (error as? ConfigError)?.localized
                 ?? String(describing: error))
    }
}
