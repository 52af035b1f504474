import CLocalization
import Glibc

/// The lock screen's words in the user's language: gettext, text domain
/// "pingate" (po/), the same catalogues as the CLI and the PAM module.
/// As in the CLI (Sources/pingate/Localization.swift), text for people is a
/// plain one-line literal passed straight to `L` or `LP`, so po/Makefile can
/// extract it as C.
enum Localization {
    static let domain = "pingate"
    /// The catalogues: the system directory, or PINGATE_LOCALEDIR
    /// (pingate-lock runs as the user and is not set-id, so the environment
    /// may choose).
    static let directory: String = {
        if let override = getenv("PINGATE_LOCALEDIR"), override.pointee != 0 { return String(cString: override) }
        return "/usr/share/locale"
    }()

    /// Once, first thing: the user's locale and the catalogues.
    static func start() {
        setlocale(LC_ALL, "")
        rebind()
    }

    /// pam_pingate.so binds the same domain to its own directory while it
    /// runs; the UI binds it back to its own after each PAM call.
    static func rebind() {
        bindtextdomain(domain, directory)
        bind_textdomain_codeset(domain, "UTF-8")
    }

    /// The translation of `text` in the domain, as the module would see it.
    static func translation(of text: String) -> String {
        text.withCString { String(cString: dgettext(domain, $0)) }
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
}

/// The translation of `message`, with `arguments` filled in.
func L(_ message: StaticString, _ arguments: any CustomStringConvertible...) -> String {
    let translated = message.description.withCString { String(cString: dgettext(Localization.domain, $0)) }
    return Localization.format(translated, arguments.map(\.description))
}

/// The translation of `singular` or `plural` as `count` demands.
func LP(_ singular: StaticString, _ plural: StaticString, _ count: Int,
        _ arguments: any CustomStringConvertible...) -> String {
    let translated = singular.description.withCString { one in
        plural.description.withCString { many in
            String(cString: dngettext(Localization.domain, one, many, UInt(max(0, count))))
        }
    }
    return Localization.format(translated, [String(count)] + arguments.map(\.description))
}
