/// Text that came from outside (a user, tty or process name, a request's
/// field) on its way to a reader: the log, or a terminal. The characters
/// that could forge what the reader sees are the same for both, so they are
/// listed once, here.
public enum UntrustedText {
    /// C0 controls and DEL (newlines start a forged line; ESC starts a
    /// terminal sequence), C1 controls (U+009B is a one-character CSI on
    /// some terminals; U+0085 is a newline), the line and paragraph
    /// separators U+2028 and U+2029, and the bidi controls (U+200E/F,
    /// U+202A–E, U+2066–9), which reorder the text shown after them.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
            return true
        default:
            return false
        }
    }

    /// Each control replaced by "?": for a log line, where the shape of the
    /// line matters more than what was there.
    public static func replacingControls(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { isControl($0) ? "?" : $0 }))
    }

    /// Each control written as Swift's escape for it (`\u{1B}`): for a
    /// person at a terminal, who then sees that something was there.
    public static func escapingControls(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else { escaped.append(scalar); continue }
            let hex = String(scalar.value, radix: 16, uppercase: true)
            escaped.append(contentsOf: "\\u{\(String(repeating: "0", count: max(0, 2 - hex.count)))\(hex)}".unicodeScalars)
        }
        return String(escaped)
    }
}
