import PinGateCore

/// The PIN pad's state: the digits typed so far, one dot each.
///
/// With the PIN's length known (the helper's `length=`), the entry completes
/// as soon as the last digit is in: no Enter. A PIN enrolled before records
/// kept their length has none: then Enter submits, as a password field does
/// — guessing a length would spend an attempt at every wrong guess of it.
public struct PINEntry: Sendable {
    /// The PIN's digits, nil when not known.
    public let knownLength: Int?
    /// Room for the longest PIN is reserved once: typing never moves them.
    public private(set) var digits: [UInt8]
    /// The most digits a PIN has (pin_max_length's limit).
    public static let longest = PIN.lengthLimits.upperBound

    public init(length: Int?) {
        knownLength = length.map { min(max(1, $0), PINEntry.longest) }
        digits = [UInt8](secretScratchCapacity: PINEntry.longest)
    }

    /// Dots to draw: the PIN's length, or, when unknown, the digits typed and
    /// one empty dot for the next.
    public var dotCount: Int { knownLength ?? min(digits.count + 1, PINEntry.longest) }

    public var isComplete: Bool { digits.count == knownLength }

    /// Adds a digit; returns the whole PIN (ASCII) when it completes, and the
    /// pad is cleared for the next try. The caller wipes the returned bytes.
    public mutating func type(_ digit: Int) -> [UInt8]? {
        guard (0...9).contains(digit), digits.count < (knownLength ?? PINEntry.longest) else { return nil }
        digits.append(UInt8(ascii: "0") + UInt8(digit))
        return isComplete ? take() : nil
    }

    /// Enter: the digits so far, when the length is not known (with a known
    /// length the last digit submits by itself).
    public mutating func submit() -> [UInt8]? {
        guard knownLength == nil, !digits.isEmpty else { return nil }
        return take()
    }

    private mutating func take() -> [UInt8] {
        let pin = digits.separateCopy()
        clear()
        return pin
    }

    public mutating func backspace() {
        guard let last = digits.indices.last else { return }
        digits[last] = 0
        digits.removeLast()
    }

    public mutating func clear() {
        digits.wipe()
        digits.removeAll(keepingCapacity: true)
    }
}
