import PinGateCore

/// What a prompt asks for.
struct SecretPrompt {
    /// "New PIN for alice", "Current pattern for alice", …
    let text: String
    let kind: CredentialKind
    let grid: PatternGrid
    let policy: Policy
}

/// Where secrets come from: the terminal pads, plain echo-off prompts, or
/// lines on stdin (`--stdin`). Chosen once per command by `SecretEntries.make`.
protocol SecretEntry {
    /// One secret, or nil if the user cancelled (Esc, Ctrl-C, empty input).
    func read(_ prompt: SecretPrompt) throws -> Secret?
    /// Says why an entry was refused, before asking again.
    func notice(_ text: String)
    /// Shows `pattern` as a picture and asks to keep it; false means no.
    func confirm(_ pattern: borrowing Pattern) throws -> Bool
    /// How many times a refused entry may be tried in all (1 for --stdin).
    var tries: Int { get }
}

enum SecretEntries {
    /// The terminal pads when stdin and stdout are terminals and TERM can draw;
    /// plain echo-off prompts when only stdin is a terminal; stdin lines for
    /// `--stdin` (echo off if that stdin happens to be a terminal).
    static func make(stdin: Bool, usage: String) throws -> any SecretEntry {
        let stdinIsTerminal = FileDescriptor.standardInput.isTerminal
        if stdin { return stdinIsTerminal ? EchoOffEntry() : LineEntry() }
        if TerminalIO.isInteractive { return TerminalEntry(terminal: .standard) }
        if stdinIsTerminal { return EchoOffEntry() }
        throw CLIError.usage(L("standard input is not a terminal; pass --stdin to read the secrets from it"), usage)
    }
}

/// `--stdin` from a pipe: one secret per line, no prompts, no second chances.
struct LineEntry: SecretEntry {
    var tries: Int { 1 }

    func read(_ prompt: SecretPrompt) throws -> Secret? {
        guard let line = readSecretLine(from: .standardInput) else {
            throw CLIError(status: .usage, message: L("standard input ended before the line for: %s (--stdin expects one secret per line)", prompt.text.lowercased()))
        }
        return line
    }

    func notice(_ text: String) {}
    func confirm(_ pattern: borrowing Pattern) throws -> Bool { true }
}

/// Plain prompts on stderr with echo turned off: for a terminal that cannot
/// draw (TERM=dumb) or when stdout is redirected.
struct EchoOffEntry: SecretEntry {
    var tries: Int { 3 }

    func read(_ prompt: SecretPrompt) throws -> Secret? {
        if prompt.kind == .pattern {
            Output.prompt(L("Cells are numbered:") + "\n" + prompt.grid.legend().map { "    " + $0 + "\n" }.joined())
        }
        Output.prompt(prompt.text + ": ")
        let line = try TerminalMode.echoOff.with(descriptor: .standardInput) { readSecretLine(from: .standardInput) }
        guard let line, !line.trimmingWhitespace().isEmpty else { return nil }
        return line
    }

    func notice(_ text: String) { Output.prompt(text + "\n") }

    func confirm(_ pattern: borrowing Pattern) throws -> Bool {
        let picture = pattern.cells.withUnsafeBytes { PatternPicture(grid: pattern.grid).lines(of: $0) }
        Output.prompt(L("Your pattern:") + "\n" + picture.joined(separator: "\n") + "\n" + L("Save it? [y/N] "))
        let answer = readSecretLine(from: .standardInput)
        guard let answer, answer.count > 0 else { return false }
        return answer[0] == UInt8(ascii: "y") || answer[0] == UInt8(ascii: "Y")
    }
}

/// Reads one line (without its newline) a byte at a time straight into a
/// `Secret`, which is handed on whole (no copy); nil at end of input with
/// nothing read. Longer lines than any secret are cut.
func readSecretLine(from descriptor: FileDescriptor) -> Secret? {
    var line = Secret(capacity: 256)
    var sawAnything = false
    var byte: UInt8 = 0
    while true {
        let count = (try? withUnsafeMutableBytes(of: &byte) { try descriptor.read(into: $0) }) ?? -1
        if count <= 0 { break }
        sawAnything = true
        if byte == 0x0A { break }
        if byte != 0x0D { line.append(byte) }
    }
    byte = 0
    guard sawAnything else { return nil }
    return line
}
