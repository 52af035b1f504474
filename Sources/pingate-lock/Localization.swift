import CLocalization
import Glibc
@_exported import PinGateText

/// The lock screen's words in the user's language: PinGateText's `L` and
/// `LP`, the same catalogues as the CLI and the PAM module.
enum Localization {
    /// Once, first thing: the user's locale and the catalogues.
    static func start() { TextDomain.start() }

    /// pam_pingate.so binds the same domain to its own directory while it
    /// runs; the UI binds it back to its own after each PAM call.
    static func rebind() { TextDomain.bind() }

    /// The translation of `text` in the domain, as the module would see it.
    static func translation(of text: String) -> String {
        text.withCString { String(cString: dgettext(TextDomain.name, $0)) }
    }
}
