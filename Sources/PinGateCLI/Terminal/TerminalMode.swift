import Glibc

// The settings to put back if a signal arrives while the terminal is changed.
// Globals because a signal handler can capture nothing; written only while no
// handler is installed.
nonisolated(unsafe) private var savedSettings = termios()
nonisolated(unsafe) private var savedDescriptor: CInt = -1

/// Restores the terminal, then dies of the same signal (default disposition),
/// so the shell sees the usual 128 + N. Only async-signal-safe calls.
private func restoreTerminalAndReraise(_ number: CInt) {
    if savedDescriptor >= 0 {
        _ = tcsetattr(savedDescriptor, TCSAFLUSH, &savedSettings)
        let showCursor: [UInt8] = Array("\u{1B}[?25h\r\n".utf8)
        _ = showCursor.withUnsafeBytes { write(savedDescriptor, $0.baseAddress, $0.count) }
    }
    signal(number, SIG_DFL)
    raise(number)
}

/// Changes the terminal's mode for the length of a closure and puts it back on
/// every way out: return, throw, and SIGINT/SIGTERM/SIGHUP/SIGQUIT (handlers
/// that restore, then re-raise).
enum TerminalMode {
    case raw       // no echo, no line editing, no signals from keys: a key at a time
    case echoOff   // lines as usual, but nothing typed is shown

    static let handledSignals: [CInt] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    func with<Result>(descriptor: CInt, _ body: () throws -> Result) throws -> Result {
        var original = termios()
        guard tcgetattr(descriptor, &original) == 0 else {
            throw CLIError(status: .storeOrConfig, message: "cannot read the terminal settings: \(String(cString: strerror(errno)))")
        }
        var changed = original
        switch self {
        case .raw:
            changed.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
            changed.c_iflag &= ~tcflag_t(IXON | ICRNL | INLCR | IGNCR | ISTRIP)
            withUnsafeMutableBytes(of: &changed.c_cc) { cc in
                cc[Int(VMIN)] = 1
                cc[Int(VTIME)] = 0
            }
        case .echoOff:
            changed.c_lflag &= ~tcflag_t(ECHO)
            changed.c_lflag |= tcflag_t(ECHONL)
        }
        savedSettings = original
        savedDescriptor = descriptor
        let previous = TerminalMode.handledSignals.map { signal($0, restoreTerminalAndReraise) }
        defer {
            var settings = original
            _ = tcsetattr(descriptor, TCSAFLUSH, &settings)
            for (number, handler) in zip(TerminalMode.handledSignals, previous) { signal(number, handler) }
            savedDescriptor = -1
        }
        guard tcsetattr(descriptor, TCSAFLUSH, &changed) == 0 else {
            throw CLIError(status: .storeOrConfig, message: "cannot change the terminal settings: \(String(cString: strerror(errno)))")
        }
        return try body()
    }
}

/// The terminal a prompt talks to: keys from `input`, drawing to `output`.
struct TerminalIO {
    let input: CInt
    let output: CInt

    static let standard = TerminalIO(input: 0, output: 1)

    /// True when stdin and stdout are terminals and TERM can draw.
    static var isInteractive: Bool {
        guard isatty(0) == 1, isatty(1) == 1, let term = getenv("TERM") else { return false }
        let name = String(cString: term)
        return !name.isEmpty && name != "dumb"
    }

    func write(_ text: String) {
        var bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                raw.baseAddress.map { Glibc.write(output, $0 + done, raw.count - done) } ?? -1
            }
            if count < 0 { if errno == EINTR { continue }; break }
            done += count
        }
        bytes.removeAll()
    }

    func bell() { write("\u{07}") }
}
