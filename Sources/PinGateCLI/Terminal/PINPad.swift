import PinGateCore

/// PIN entry on a terminal in raw mode: no digit is ever echoed, one ● per
/// digit, Backspace removes one, Ctrl-U clears. When the policy fixes the
/// length (pin_min_length == pin_max_length) the last digit completes the
/// entry without Enter. Esc, Ctrl-C, Ctrl-D or Enter on nothing cancel.
///
/// The pad writes no digit at all (no cursor-movement sequences with
/// numbers), so a transcript of the session reveals only the PIN's length.
struct PINPad {
    let terminal: TerminalIO
    let minimumLength: Int
    let maximumLength: Int

    private static let mask = "●"
    /// Erases one mask: as many columns as it takes on this terminal (wcwidth).
    private static var eraseMask: String {
        let columns = max(1, Localization.displayWidth(mask))
        let back = String(repeating: "\u{08}", count: columns)
        return back + String(repeating: " ", count: columns) + back
    }

    /// Reads one PIN after `prompt`; nil if the user cancelled.
    func read(prompt: String) throws -> Secret? {
        try TerminalMode.raw.with(descriptor: terminal.input) {
            terminal.write(prompt)
            var digits = Secret(capacity: maximumLength)
            let keys = KeyReader(descriptor: terminal.input)
            while true {
                switch keys.next() {
                case let .byte(byte) where (0x30...0x39).contains(byte):
                    guard digits.append(byte) else { terminal.bell(); continue }
                    terminal.write(Self.mask)
                    if minimumLength == maximumLength, digits.count == maximumLength {
                        terminal.write("\n")
                        return digits
                    }
                case .backspace:
                    guard !digits.isEmpty else { terminal.bell(); continue }
                    digits.removeLast()
                    terminal.write(Self.eraseMask)
                case .clearLine:
                    terminal.write(String(repeating: Self.eraseMask, count: digits.count))
                    digits.removeAll()
                case .enter:
                    if digits.isEmpty { terminal.write("\n"); return nil }
                    guard digits.count >= minimumLength else { terminal.bell(); continue }
                    terminal.write("\n")
                    return digits
                case .escape, .interrupt, .endOfInput:
                    digits.removeAll()
                    terminal.write("\n")
                    return nil
                default:
                    terminal.bell()
                }
            }
        }
    }
}
