import Testing
@testable import PinGateCore

@Suite("PINs")
struct PINTests {
    func pin(_ text: String, min: Int = 4, max: Int = 4) throws -> PIN {
        try PIN(parsing: SecretBytes(Array(text.utf8)), minimumLength: min, maximumLength: max)
    }

    @Test("a 4-digit PIN parses; surrounding whitespace is ignored")
    func parses() throws {
        #expect(try pin("0427").length == 4)
        #expect(try pin(" 0427\n").length == 4)
    }

    @Test("wrong lengths and non-digits are typed errors", arguments: [
        ("123", CredentialError.pinLength(minimum: 4, maximum: 4, got: 3)),
        ("12345", CredentialError.pinLength(minimum: 4, maximum: 4, got: 5)),
        ("12a4", CredentialError.pinHasNonDigit),
        ("١٢٣٤", CredentialError.pinHasNonDigit),
        ("12 34", CredentialError.pinHasNonDigit),
        ("", CredentialError.empty),
    ])
    func malformed(text: String, error: CredentialError) {
        #expect(throws: error) { try pin(text) }
    }

    @Test("an admin may allow longer PINs")
    func longerPolicy() throws {
        #expect(try pin("12345678", min: 4, max: 12).length == 8)
        #expect(throws: CredentialError.pinLength(minimum: 6, maximum: 12, got: 4)) { try pin("1234", min: 6, max: 12) }
    }

    @Test("weak PINs are recognised", arguments: [
        ("0000", WeakPINReason.repeatedDigit), ("7777", .repeatedDigit), ("1234", .constantStep),
        ("9876", .constantStep), ("1357", .constantStep), ("9630", .constantStep), ("7890", .constantStep),
        ("8901", .constantStep), ("1212", .common), ("6969", .common), ("1004", .common), ("2000", .common),
        ("1122", .common), ("4321", .constantStep), ("123456", .constantStep),
    ])
    func weak(text: String, reason: WeakPINReason) throws {
        #expect(try pin(text, max: 6).weakness() == reason)
    }

    @Test("ordinary PINs are not weak", arguments: ["0427", "3859", "7162", "9051", "2469"])
    func notWeak(text: String) throws {
        #expect(try pin(text).weakness() == nil)
    }

    @Test("2580 is not weak by the step rule (steps 3, 3, 8)")
    func keypadColumnIsNotAConstantStep() throws {
        #expect(try pin("2580").weakness() != .constantStep)
    }

    @Test("the whole documented blocklist is refused")
    func designBlocklist() throws {
        for text in ["1234", "1111", "0000", "1212", "7777", "1004", "2000", "4444", "2222", "6969",
                     "9999", "3333", "5555", "6666", "1122", "1313", "8888", "4321", "2001", "1010"] {
            #expect(try pin(text).weakness() != nil, "\(text) must be weak")
        }
    }
}
