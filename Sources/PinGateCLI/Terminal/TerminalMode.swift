import PinGateCore

// The settings to put back if a signal arrives while the terminal is changed.
// Globals because a signal handler can capture nothing; written only while no
// handler is installed.
nonisolated(unsafe) private var savedSettings: TerminalAttributes? = nil
nonisolated(unsafe) private var savedTerminal: FileDescriptor? = nil

/// Restores the terminal, then dies of the same signal (default disposition),
/// so the shell sees the usual 128 + N. Only async-signal-safe calls.
private func restoreTerminalAndReraise(_ number: CInt) {
    if let terminal = savedTerminal, let settings = savedSettings {
        try? settings.apply(to: terminal)
        let showCursor: [UInt8] = Array("\u{1B}[?25h\r\n".utf8)
        try? terminal.writeAll(showCursor)
    }
    let signal = Signal(rawValue: number)
    signal.resetToDefault()
    signal.raise()
}

/// Changes the terminal's mode for the length of a closure and puts it back on
/// every way out: return, throw, and SIGINT/SIGTERM/SIGHUP/SIGQUIT (handlers
/// that restore, then re-raise).
enum TerminalMode {
    case raw       // no echo, no line editing, no signals from keys: a key at a time
    case echoOff   // lines as usual, but nothing typed is shown

    static let handledSignals: [Signal] = [.interrupt, .terminate, .hangUp, .quit]

    func with<Result: ~Copyable>(descriptor: FileDescriptor, _ body: () throws -> Result) throws -> Result {
        let original: TerminalAttributes
        do { original = try TerminalAttributes(of: descriptor) } catch {
            throw CLIError(status: .storeOrConfig, message: "cannot read the terminal settings: \(error)")
        }
        var changed = original
        switch self {
        case .raw:
            changed.localModes.subtract([.echo, .echoNewline, .canonical, .signals, .extendedInput])
            changed.inputModes.subtract([.outputFlowControl, .carriageReturnToNewline, .newlineToCarriageReturn,
                                         .ignoreCarriageReturn, .stripEighthBit])
            changed.setReadReturns(minimumBytes: 1, timeoutDeciseconds: 0)
        case .echoOff:
            changed.localModes.remove(.echo)
            changed.localModes.insert(.echoNewline)
        }
        savedSettings = original
        savedTerminal = descriptor
        let previous = TerminalMode.handledSignals.map { $0.setHandler(restoreTerminalAndReraise) }
        defer {
            try? original.apply(to: descriptor)
            for (signal, handler) in zip(TerminalMode.handledSignals, previous) { signal.setHandler(handler) }
            savedTerminal = nil
        }
        do { try changed.apply(to: descriptor) } catch {
            throw CLIError(status: .storeOrConfig, message: "cannot change the terminal settings: \(error)")
        }
        return try body()
    }
}

/// The terminal a prompt talks to: keys from `input`, drawing to `output`.
struct TerminalIO {
    let input: FileDescriptor
    let output: FileDescriptor

    static let standard = TerminalIO(input: .standardInput, output: .standardOutput)

    /// True when stdin and stdout are terminals and TERM can draw.
    static var isInteractive: Bool {
        guard FileDescriptor.standardInput.isTerminal, FileDescriptor.standardOutput.isTerminal,
              let name = environmentValue("TERM") else { return false }
        return !name.isEmpty && name != "dumb"
    }

    func write(_ text: String) {
        var bytes = Array(text.utf8)
        try? output.writeAll(bytes)
        bytes.removeAll()
    }

    func bell() { write("\u{07}") }
}
