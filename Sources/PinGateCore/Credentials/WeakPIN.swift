/// Why a PIN is too easy to guess. Enrolment refuses these (unless the admin
/// says `--allow-weak`); verification never looks at them.
public enum WeakPINReason: Equatable, Sendable, CustomStringConvertible {
    case repeatedDigit
    case constantStep
    case common

    public var description: String {
        switch self {
        case .repeatedDigit: return "it repeats one digit"
        case .constantStep: return "its digits go up or down by a constant step (like 1234 or 1357)"
        case .common: return "it is one of the most common PINs"
        }
    }
}

extension PIN {
    /// The most common 4-digit PINs in published leak studies; an attacker
    /// tries these first, so they cost the lockout nothing to guess. Bytes,
    /// compared with the PIN's own: a new PIN never becomes a String.
    static let commonPINs: [[UInt8]] = [
        "1234", "1111", "0000", "1212", "7777", "1004", "2000", "4444", "2222", "6969",
        "9999", "3333", "5555", "6666", "1122", "1313", "8888", "4321", "2001", "1010",
        "2580", "0852", "1230", "1984", "1986", "0101", "1991", "1990", "2468", "1357",
        "6789", "0123", "1100", "1919", "2020", "1999", "1998", "5683", "0007", "0070",
    ].map { Array($0.utf8) }

    /// Returns why this PIN is weak, or nil if it is acceptable. Reads the
    /// digits where they are, one at a time: no array, set or String of a
    /// new PIN is made, so none is left in freed memory.
    public func weakness() -> WeakPINReason? {
        let count = digits.count
        if (1..<max(count, 1)).allSatisfy({ digits[$0] == digits[0] }) { return .repeatedDigit }
        // A constant step mod 10: 1234, 9876, 1357, 9630, 7890.
        func step(_ index: Int) -> Int { (Int(digits[index + 1]) - Int(digits[index]) + 10) % 10 }
        if (1..<count - 1).allSatisfy({ step($0) == step(0) }) { return .constantStep }
        let isCommon = PIN.commonPINs.contains { common in
            common.count == count && (0..<count).allSatisfy { common[$0] == digits[$0] }
        }
        return isCommon ? .common : nil
    }
}
