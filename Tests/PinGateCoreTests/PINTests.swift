import Testing
@testable import PinGateCore

@Suite("PINs")
struct PINTests {
    func pin(_ text: String, min: Int = 4, max: Int = 4) throws -> PIN {
        try PIN(parsing: secret(text), minimumLength: min, maximumLength: max)
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
        #expect(throws: error) { _ = try pin(text) }
    }

    @Test("an admin may allow longer PINs")
    func longerPolicy() throws {
        #expect(try pin("12345678", min: 4, max: 12).length == 8)
        #expect(throws: CredentialError.pinLength(minimum: 6, maximum: 12, got: 4)) { _ = try pin("1234", min: 6, max: 12) }
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

/// The weakness rules read a PIN byte by byte, so that no copy of a new PIN
/// is left behind (`SecretCopiesTests`); they must still give the answers
/// the first implementation gave, kept here as the reference.
@Suite("Weak PINs: the same answers as the reference rules")
struct WeakPINReferenceTests {
    /// The first implementation: digit values in an array, a Set, a String.
    static func referenceWeakness(_ text: String) -> WeakPINReason? {
        let common: Set<String> = [
            "1234", "1111", "0000", "1212", "7777", "1004", "2000", "4444", "2222", "6969",
            "9999", "3333", "5555", "6666", "1122", "1313", "8888", "4321", "2001", "1010",
            "2580", "0852", "1230", "1984", "1986", "0101", "1991", "1990", "2468", "1357",
            "6789", "0123", "1100", "1919", "2020", "1999", "1998", "5683", "0007", "0070",
        ]
        let values = text.utf8.map { Int($0) - 0x30 }
        if Set(values).count == 1 { return .repeatedDigit }
        let step = (values[1] - values[0] + 10) % 10
        if zip(values, values.dropFirst()).allSatisfy({ ($1 - $0 + 10) % 10 == step }) { return .constantStep }
        return common.contains(text) ? .common : nil
    }

    static func weakness(_ text: String) throws -> WeakPINReason? {
        try PIN(parsing: secret(text), minimumLength: 4, maximumLength: 12).weakness()
    }

    /// "0000"…"9999" (or the `length`-digit numbers) as zero-padded text.
    static func every(length: Int) -> [String] {
        let count = (0..<length).reduce(1) { total, _ in total * 10 }
        return (0..<count).map { number in
            let digits = String(number)
            return String(repeating: "0", count: length - digits.count) + digits
        }
    }

    @Test("all 10,000 four-digit PINs")
    func everyFourDigitPIN() throws {
        var differing: [String] = []
        for text in Self.every(length: 4) where try Self.weakness(text) != Self.referenceWeakness(text) { differing.append(text) }
        #expect(differing.isEmpty, "differ: \(differing.prefix(20))")
        #expect(Self.every(length: 4).filter { Self.referenceWeakness($0) != nil }.count == 124, "10 repeated, 90 constant steps, 24 more from the list")
    }

    @Test("all 100,000 five-digit PINs")
    func everyFiveDigitPIN() throws {
        var differing: [String] = []
        for text in Self.every(length: 5) where try Self.weakness(text) != Self.referenceWeakness(text) { differing.append(text) }
        #expect(differing.isEmpty, "differ: \(differing.prefix(20))")
    }

    @Test("every repeated-digit and constant-step PIN of 6 to 12 digits, and a spread of others")
    func longerPINs() throws {
        var texts: [String] = []
        for length in 6...12 {
            for start in 0...9 {
                for step in 0...9 {
                    texts.append(String((0..<length).map { Character(String((start + $0 * step) % 10)) }))
                }
            }
            var seed: UInt64 = 0x9E37_79B9_7F4A_7C15 &* UInt64(length)
            for _ in 0..<2_000 {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                texts.append(String((0..<length).map { Character(String((seed >> (UInt64($0) * 5 + 4)) % 10)) }))
            }
        }
        var differing: [String] = []
        for text in texts where try Self.weakness(text) != Self.referenceWeakness(text) { differing.append(text) }
        #expect(differing.isEmpty, "differ: \(differing.prefix(20))")
    }
}
