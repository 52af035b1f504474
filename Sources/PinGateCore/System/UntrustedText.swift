import CPinGateContract

/// Text that came from outside (a user, tty or process name, a request's
/// field) on its way to a reader: the log, or a terminal. The characters
/// that could forge what the reader sees are the same for both, and for the
/// module's own log lines, so they are listed once, in the contract
/// (`pingate_is_untrusted_control`, pam/pingate_protocol.h).
public enum UntrustedText {
    /// C0 and C1 controls, DEL, U+2028/U+2029 and the bidi controls.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        pingate_is_untrusted_control(scalar.value) != 0
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
