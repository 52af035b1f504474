import PinGateCore

/// Secrets from the terminal pads: `PINPad` for PINs, `PatternPad` for patterns.
struct TerminalEntry: SecretEntry {
    let terminal: TerminalIO
    var tries: Int { 3 }

    func read(_ prompt: SecretPrompt) throws -> Secret? {
        switch prompt.kind {
        case .pin:
            let pad = PINPad(terminal: terminal, minimumLength: prompt.policy.pinMinLength, maximumLength: prompt.policy.pinMaxLength)
            return try pad.read(prompt: prompt.text + ": ")
        case .pattern:
            let pad = PatternPad(terminal: terminal, grid: prompt.grid, minimumCells: prompt.policy.patternMinCells)
            return try pad.read(title: prompt.text + ":")
        }
    }

    func notice(_ text: String) { terminal.write(text + "\n") }

    func confirm(_ pattern: borrowing Pattern) throws -> Bool {
        let picture = pattern.cells.withUnsafeBytes { PatternPicture(grid: pattern.grid).lines(of: $0) }
        terminal.write(L("Your pattern:") + "\n" + picture.joined(separator: "\n") + "\n" + L("Save it? [y/n] "))
        return try TerminalMode.raw.with(descriptor: terminal.input) {
            let keys = KeyReader(descriptor: terminal.input)
            while true {
                switch keys.next() {
                case .byte(UInt8(ascii: "y")), .byte(UInt8(ascii: "Y")), .enter:
                    terminal.write(L("yes") + "\n")
                    return true
                case .byte(UInt8(ascii: "n")), .byte(UInt8(ascii: "N")), .escape, .interrupt, .endOfInput:
                    terminal.write(L("no") + "\n")
                    return false
                default:
                    terminal.bell()
                }
            }
        }
    }
}
