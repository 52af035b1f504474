import Glibc

/// A terminal's settings (`struct termios`), read with tcgetattr and put in
/// force with tcsetattr, for the CLI's key-at-a-time and echo-off prompts.
/// The flags are `OptionSet`s named for what they do; each names its C flag.
///
/// Errors are typed (`throws(Errno)`): a signal handler that puts a terminal
/// back may call `apply(to:)`, and a typed error needs no allocation there.
public struct TerminalAttributes: @unchecked Sendable {
    var settings: termios

    /// tcgetattr(3)
    public init(of terminal: FileDescriptor) throws(Errno) {
        var settings = termios()
        guard tcgetattr(terminal.rawValue, &settings) == 0 else { throw Errno.current }
        self.settings = settings
    }

    /// tcsetattr(3) with TCSAFLUSH: in force once pending output is written;
    /// input typed but not yet read is dropped.
    public func apply(to terminal: FileDescriptor) throws(Errno) {
        var settings = self.settings
        guard tcsetattr(terminal.rawValue, TCSAFLUSH, &settings) == 0 else { throw Errno.current }
    }

    /// `c_lflag`
    public struct LocalModes: OptionSet, Sendable {
        public let rawValue: tcflag_t
        public init(rawValue: tcflag_t) { self.rawValue = rawValue }
        /// ECHO: typed characters are shown.
        public static let echo = LocalModes(rawValue: tcflag_t(ECHO))
        /// ECHONL: a typed newline is shown even without ECHO.
        public static let echoNewline = LocalModes(rawValue: tcflag_t(ECHONL))
        /// ICANON: input comes a line at a time, with line editing.
        public static let canonical = LocalModes(rawValue: tcflag_t(ICANON))
        /// ISIG: Ctrl-C, Ctrl-\ and Ctrl-Z send signals.
        public static let signals = LocalModes(rawValue: tcflag_t(ISIG))
        /// IEXTEN: implementation-defined input processing (Ctrl-V).
        public static let extendedInput = LocalModes(rawValue: tcflag_t(IEXTEN))
    }

    /// `c_iflag`
    public struct InputModes: OptionSet, Sendable {
        public let rawValue: tcflag_t
        public init(rawValue: tcflag_t) { self.rawValue = rawValue }
        /// IXON: Ctrl-S and Ctrl-Q stop and start output.
        public static let outputFlowControl = InputModes(rawValue: tcflag_t(IXON))
        /// ICRNL: a typed carriage return reads as a newline.
        public static let carriageReturnToNewline = InputModes(rawValue: tcflag_t(ICRNL))
        /// INLCR: a typed newline reads as a carriage return.
        public static let newlineToCarriageReturn = InputModes(rawValue: tcflag_t(INLCR))
        /// IGNCR: typed carriage returns are dropped.
        public static let ignoreCarriageReturn = InputModes(rawValue: tcflag_t(IGNCR))
        /// ISTRIP: the eighth bit of each byte is cleared.
        public static let stripEighthBit = InputModes(rawValue: tcflag_t(ISTRIP))
    }

    public var localModes: LocalModes {
        get { LocalModes(rawValue: settings.c_lflag) }
        set { settings.c_lflag = newValue.rawValue }
    }

    public var inputModes: InputModes {
        get { InputModes(rawValue: settings.c_iflag) }
        set { settings.c_iflag = newValue.rawValue }
    }

    /// VMIN and VTIME, which apply without ICANON: a read returns once
    /// `minimumBytes` have arrived, or `timeoutDeciseconds` after input stops.
    public mutating func setReadReturns(minimumBytes: UInt8, timeoutDeciseconds: UInt8) {
        withUnsafeMutableBytes(of: &settings.c_cc) { characters in
            characters[Int(VMIN)] = minimumBytes
            characters[Int(VTIME)] = timeoutDeciseconds
        }
    }
}
