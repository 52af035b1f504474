/// The kernel's random id of the running boot: a new one at every boot, so a
/// boot-clock reading means something only next to another with the same id.
public struct BootID: Equatable, Sendable, CustomStringConvertible {
    public static let byteCount = 16
    /// The 16 bytes, big-endian in two words: a plain value with no array,
    /// so a `BootInstant` is copied and dropped without the Swift runtime
    /// (whose metadata lookups cost every helper start).
    private let high: UInt64
    private let low: UInt64

    /// The 16 bytes of the UUID, in the order the text shows them.
    public var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) } + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
    }

    /// Nil unless 16 bytes, not all zero (a record stores "no stamp" as zeros).
    public init?(bytes: [UInt8]) {
        guard bytes.count == BootID.byteCount else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0
        for index in 0..<8 {
            high = high << 8 | UInt64(bytes[index])
            low = low << 8 | UInt64(bytes[index + 8])
        }
        self.init(high: high, low: low)
    }

    private init?(high: UInt64, low: UInt64) {
        guard high != 0 || low != 0 else { return nil }
        (self.high, self.low) = (high, low)
    }

    /// Parses the kernel's text form, e.g. "b9b8d56f-1535-46aa-bf9c-8a1a10498584\n":
    /// the first line, 8-4-4-4-12 hex digits. Byte by byte, with no generic
    /// containers: it runs at every helper start.
    public init?(parsing text: String) {
        var words: (high: UInt64, low: UInt64) = (0, 0)
        var digits = 0
        var position = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\n") { break }
            defer { position += 1 }
            if position == 8 || position == 13 || position == 18 || position == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            guard position < 36, let value = hexValue(byte) else { return nil }
            if digits < 16 {
                words.high = words.high << 4 | UInt64(value)
            } else {
                words.low = words.low << 4 | UInt64(value)
            }
            digits += 1
        }
        guard position == 36 else { return nil }
        self.init(high: words.high, low: words.low)
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
