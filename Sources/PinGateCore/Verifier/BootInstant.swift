/// The kernel's random id of the running boot: a new one at every boot, so a
/// boot-clock reading means something only next to another with the same id.
public struct BootID: Equatable, Sendable, CustomStringConvertible {
    public static let byteCount = 16
    /// The 16 bytes of the UUID, in the order the text shows them.
    public let bytes: [UInt8]

    /// Nil unless 16 bytes, not all zero (a record stores "no stamp" as zeros).
    public init?(bytes: [UInt8]) {
        guard bytes.count == BootID.byteCount, bytes.contains(where: { $0 != 0 }) else { return nil }
        self.bytes = bytes
    }

    /// Parses the kernel's text form, e.g. "b9b8d56f-1535-46aa-bf9c-8a1a10498584\n".
    public init?(parsing text: String) {
        let line = text.prefix { $0 != "\n" }
        let groups = line.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return nil }
        let digits = Array(groups.joined().utf8)
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.init(bytes: bytes)
    }

    public var description: String {
        let hex = bytes.map { byte in String(byte >> 4, radix: 16) + String(byte & 0xf, radix: 16) }.joined()
        var text = ""
        for (index, character) in hex.enumerated() {
            if [8, 12, 16, 20].contains(index) { text += "-" }
            text.append(character)
        }
        return text
    }
}

private func hexValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
    default: return nil
    }
}

/// A moment on the boot clock: seconds since the start of boot `bootID`,
/// suspend included (CLOCK_BOOTTIME). Setting the wall clock does not move it,
/// so lockout timeouts are measured on it.
public struct BootInstant: Equatable, Sendable {
    public var bootID: BootID
    public var seconds: Int64

    public init(bootID: BootID, seconds: Int64) {
        self.bootID = bootID
        self.seconds = seconds
    }

    /// Seconds from `earlier` to this instant; nil when the two cannot be
    /// compared: another boot, or `earlier` after this instant (a boot clock
    /// never goes back, so that stamp is not to be trusted).
    public func seconds(since earlier: BootInstant) -> Int64? {
        guard earlier.bootID == bootID, earlier.seconds <= seconds else { return nil }
        return seconds - earlier.seconds
    }
}
