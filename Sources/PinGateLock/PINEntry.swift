/// The PIN pad's state: the digits typed so far against the PIN's length,
/// one dot each. Complete as soon as the last digit is in: no Enter.
public struct PINEntry: Sendable {
    public let length: Int
    public private(set) var digits: [UInt8] = []

    public init(length: Int) {
        self.length = max(1, length)
    }

    public var isComplete: Bool { digits.count == length }

    /// Adds a digit; returns the whole PIN (ASCII) when it completes, and the
    /// pad is cleared for the next try. The caller wipes the returned bytes.
    public mutating func type(_ digit: Int) -> [UInt8]? {
        guard (0...9).contains(digit), digits.count < length else { return nil }
        digits.append(UInt8(ascii: "0") + UInt8(digit))
        guard isComplete else { return nil }
        let pin = digits
        clear()
        return pin
    }

    public mutating func backspace() {
        guard let last = digits.indices.last else { return }
        digits[last] = 0
        digits.removeLast()
    }

    public mutating func clear() {
        for index in digits.indices { digits[index] = 0 }
        digits.removeAll()
    }
}
