import CLocalization
import Glibc

/// The CLI's words in the user's language (LANG, LC_MESSAGES, LC_ALL):
/// gettext with the text domain "pingate", shared with the PAM module.
/// `--json` output, syslog lines and the helper's protocol stay English.
///
/// Text for people is a plain literal passed straight to `L` or `LP`, with
/// `%s` or `%d` where a value goes (a translation may reorder them as
/// `%2$s`). po/Makefile extracts those literals with xgettext as C, which
/// is why they hold no interpolation and span one line.
public enum Localization {
    static let domain = "pingate"
    static let defaultDirectory = "/usr/share/locale"

    /// Once, first thing: the user's locale, and the catalogues in the system
    /// directory or in PINGATE_LOCALEDIR (for tests; pingate is not set-id,
    /// and `format` never hands a catalogue's text to printf).
    public static func start() {
        setlocale(LC_ALL, "")
        var directory = defaultDirectory
        if let override = getenv("PINGATE_LOCALEDIR"), override.pointee != 0 {
            directory = String(cString: override)
        }
        bindtextdomain(domain, directory)
    }

    /// Fills `%s`, `%d`, `%N$s`, `%N$d` with `arguments` in order (or by N)
    /// and `%%` with `%`; anything else is left as written.
    static func format(_ template: String, _ arguments: [String]) -> String {
        var result = ""
        var next = 0
        var rest = Substring(template)
        while let percent = rest.firstIndex(of: "%") {
            result += rest[..<percent]
            rest = rest[rest.index(after: percent)...]
            if rest.first == "%" {
                result += "%"
                rest = rest.dropFirst()
                continue
            }
            var position: Int? = nil
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            if !digits.isEmpty, rest.dropFirst(digits.count).first == "$" {
                position = Int(digits).map { $0 - 1 }
                rest = rest.dropFirst(digits.count + 1)
            }
            guard let conversion = rest.first, conversion == "s" || conversion == "d" else {
                result += "%"
                continue
            }
            rest = rest.dropFirst()
            let index = position ?? next
            next = index + 1
            result += arguments.indices.contains(index) ? arguments[index] : ""
        }
        return result + rest
    }

    /// Terminal columns `text` takes: 2 per CJK character, 0 for combining
    /// marks and escape sequences (ESC [ … letter), per wcwidth.
    static func displayWidth(_ text: String) -> Int {
        var width = 0
        var inEscape = false
        for scalar in text.unicodeScalars {
            if inEscape {
                if scalar.properties.isAlphabetic { inEscape = false }
                continue
            }
            if scalar == "\u{1B}" { inEscape = true; continue }
            width += max(0, Int(clocalization_wcwidth(wchar_t(bitPattern: scalar.value))))
        }
        return width
    }

    /// `line` cut into lines of at most `width` columns: at a space (which is
    /// dropped) or after a double-width character, since Chinese has no spaces.
    static func wrapped(_ line: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        var cut: String.Index? = nil   // where `current` may be broken
        var cutDropsSpace = false
        for character in line {
            let characterWidth = displayWidth(String(character))
            if displayWidth(current) + characterWidth > width, !current.isEmpty {
                guard let at = cut else {
                    lines.append(current)
                    current = ""
                    cut = nil
                    continue
                }
                lines.append(String(current[..<at]))
                current = String(current[(cutDropsSpace ? current.index(after: at) : at)...])
                while current.first == " " { current.removeFirst() }
                cut = nil
            }
            if character == " " {
                cut = current.endIndex
                cutDropsSpace = true
            }
            current.append(character)
            if characterWidth == 2 {
                cut = current.endIndex
                cutDropsSpace = false
            }
        }
        return lines + [current]
    }

    /// `text` followed by spaces up to `width` columns.
    static func padded(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - displayWidth(text)))
    }
}

/// The translation of `message`, with `arguments` filled in.
func L(_ message: StaticString, _ arguments: any CustomStringConvertible...) -> String {
    // Without a translation gettext returns its argument: read it while it lives.
    let translated = message.description.withCString { String(cString: dgettext(Localization.domain, $0)) }
    return Localization.format(translated, arguments.map(\.description))
}

/// The translation of `singular` or `plural` as `count` demands, with `count`
/// and then `arguments` filled in.
func LP(_ singular: StaticString, _ plural: StaticString, _ count: Int,
        _ arguments: any CustomStringConvertible...) -> String {
    let translated = singular.description.withCString { one in
        plural.description.withCString { many in
            String(cString: dngettext(Localization.domain, one, many, UInt(max(0, count))))
        }
    }
    return Localization.format(translated, [String(count)] + arguments.map(\.description))
}
