import CLocalization
import Glibc

// The words people read, in their language: gettext with the text domain
// "pingate", whose catalogues (po/) the PAM module, the CLI and the lock
// screen share. Text for people is a plain one-line literal passed straight
// to `L` or `LP`, with `%s` or `%d` where a value goes (a translation may
// reorder them as `%2$s`): po/Makefile extracts those literals with xgettext
// as C. A catalogue's text never reaches printf; `MessageFormat` fills it.

public enum TextDomain {
    public static let name = "pingate"
    public static let systemDirectory = "/usr/share/locale"

    /// The catalogues' directory: the system's, or PINGATE_LOCALEDIR (for
    /// tests; the programs that translate are not set-id).
    public static let directory: String = {
        if let override = getenv("PINGATE_LOCALEDIR"), override.pointee != 0 { return String(cString: override) }
        return systemDirectory
    }()

    /// Once, first thing: the user's locale and the catalogues. Again after
    /// anything (pam_pingate.so) bound the domain elsewhere.
    public static func bind() {
        bindtextdomain(name, directory)
        bind_textdomain_codeset(name, "UTF-8")
    }

    /// The user's locale (LANG, LC_MESSAGES, LC_ALL), then `bind()`.
    public static func start() {
        setlocale(LC_ALL, "")
        bind()
    }
}

/// The printf subset that fills translated messages.
public enum MessageFormat {
    /// Fills `%s`, `%d`, `%N$s`, `%N$d` with `arguments` in order (or by N)
    /// and `%%` with `%`; anything else is left as written.
    public static func fill(_ template: String, _ arguments: [String]) -> String {
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
}

/// The translation of `message`, with `arguments` filled in.
public func L(_ message: StaticString, _ arguments: any CustomStringConvertible...) -> String {
    // Without a translation gettext returns its argument: read it while it lives.
    let translated = message.description.withCString { String(cString: dgettext(TextDomain.name, $0)) }
    return MessageFormat.fill(translated, arguments.map(\.description))
}

/// The translation of `singular` or `plural` as `count` demands, with `count`
/// and then `arguments` filled in.
public func LP(_ singular: StaticString, _ plural: StaticString, _ count: Int,
               _ arguments: any CustomStringConvertible...) -> String {
    let translated = singular.description.withCString { one in
        plural.description.withCString { many in
            String(cString: dngettext(TextDomain.name, one, many, UInt(max(0, count))))
        }
    }
    return MessageFormat.fill(translated, [String(count)] + arguments.map(\.description))
}
