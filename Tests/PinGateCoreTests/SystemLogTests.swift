import Glibc
import Testing
@testable import PinGateCore

/// A log line holds names a user chose (their own, a claimed service or tty):
/// nothing in them may start a new line or change how the rest reads.
@Suite struct SystemLogTests {
    @Test("a line separator and a right-to-left override in a name do not survive into the log line", arguments: [
        "\u{2028}", "\u{2029}", "\u{202E}", "\u{202A}", "\u{200F}", "\u{2066}", "\u{2069}", "\u{61C}", "\u{85}", "\u{9B}", "\u{1B}", "\n", "\u{7F}",
    ])
    func forgingCharactersAreReplaced(character: String) {
        let line = SystemLog.datagram(.warning, "refused: a user may only ask about their own PIN (claimed_user=\"a\(character)b\" caller_uid=1000)")
        #expect(!line.contains(character), "\(Array(character.unicodeScalars)) survives")
        #expect(line.hasSuffix(": refused: a user may only ask about their own PIN (claimed_user=\"a?b\" caller_uid=1000)"))
        #expect(line.hasPrefix("<\(LOG_AUTHPRIV | LOG_WARNING)>"))
    }

    @Test("other text, beyond ASCII included, is logged as it is")
    func ordinaryTextIsKept() {
        #expect(SystemLog.datagram(.info, "user=zoë tty=pts/3").hasSuffix("]: user=zoë tty=pts/3"))
    }
}
