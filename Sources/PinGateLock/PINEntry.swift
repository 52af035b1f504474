import PinGateCore

/// The PIN pad's state: the digits typed so far, one dot each.
///
/// With the PIN's length known (the helper's `length=`), the entry completes
/// as soon as the last digit is in: no Enter. A PIN enrolled before records
/// kept their length has none: then Enter submits, as a password field does
/// — guessing a length would spend an attempt at every wrong guess of it.
///
/// A class, so that the lock screen's state can be copied (to draw it)
/// while the digits stay in their one `Secret`.
public final class PINEntry {
    /// The PIN's digits, nil when not known.
    public let knownLength: Int?
    /// The digits typed so far (ASCII), in room for the longest PIN.
    public private(set) var digits = Secret(capacity: PINEntry.longest)
    /// The most digits a PIN has (pin_max_length's limit).
    public static let longest = PIN.lengthLimits.upperBound

    public init(length: Int?) {
        knownLength = length.map { min(max(1, $0), PINEntry.longest) }
    }

    /// Dots to draw: the PIN's length, or, when unknown, the digits typed and
    /// one empty dot for the next.
    public var dotCount: Int { knownLength ?? min(digits.count + 1, PINEntry.longest) }

    public var isComplete: Bool { digits.count == knownLength }

    /// Adds a digit; hands over the whole PIN (ASCII) when it completes, and
    /// the pad starts again empty.
    public func type(_ digit: Int) -> Secret? {
        guard (0...9).contains(digit), digits.count < (knownLength ?? PINEntry.longest) else { return nil }
        digits.append(UInt8(ascii: "0") + UInt8(digit))
        return isComplete ? take() : nil
    }

    /// Enter: the digits so far, when the length is not known (with a known
    /// length the last digit submits by itself).
    public func submit() -> Secret? {
        guard knownLength == nil, !digits.isEmpty else { return nil }
        return take()
    }

    /// The typed digits themselves, not a copy: fresh room takes their place.
    private func take() -> Secret {
        var taken = Secret(capacity: PINEntry.longest)
        swap(&taken, &digits)
        return taken
    }

    public func backspace() { digits.removeLast() }

    public func clear() { digits.removeAll() }
}
