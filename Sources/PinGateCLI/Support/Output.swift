import PinGateCore

/// Where the CLI writes: results to stdout, errors and prompts-without-a-tty
/// to stderr. Every write is a write(2) of whole text on the descriptor — no
/// stdio buffers, so stdout and stderr interleave in the order written.
enum Output {
    static func line(_ text: String) {
        write(text + "\n", to: .standardOutput)
    }

    /// "pingate: TEXT" on one line. An error may carry text from outside (a
    /// user, file or process name, the helper's words), so its controls are
    /// written as escapes: on root's terminal they show rather than act.
    static func error(_ text: String, to descriptor: FileDescriptor = .standardError) {
        write("pingate: \(UntrustedText.escapingControls(text))\n", to: descriptor)
    }

    /// Text for stderr without the "pingate: " prefix (usage lines).
    static func rawError(_ text: String) {
        write(text + "\n", to: .standardError)
    }

    /// `text` as it is (a prompt, a picture) on stderr, where prompts go when
    /// stdout may be a pipe.
    static func prompt(_ text: String) {
        write(text, to: .standardError)
    }

    /// A closed or full descriptor loses the text, not the command.
    static func write(_ text: String, to descriptor: FileDescriptor) {
        try? descriptor.writeAll(Array(text.utf8))
    }

    /// Unix seconds as local "YYYY-MM-DD HH:MM:SS", or "never" for 0.
    static func time(_ seconds: Int64) -> String {
        guard seconds > 0 else { return L("never") }
        return localTimeText(seconds, format: "%Y-%m-%d %H:%M:%S %Z") ?? String(seconds)
    }

    /// "4 min 10 s", "45 s", "1 h 30 min": unit symbols, which need no plural.
    static func duration(_ seconds: Int64) -> String {
        if seconds < 60 { return L("%d s", seconds) }
        if seconds < 3_600 {
            return seconds % 60 == 0 ? L("%d min", seconds / 60) : L("%d min %d s", seconds / 60, seconds % 60)
        }
        let minutes = (seconds % 3_600) / 60
        return minutes == 0 ? L("%d h", seconds / 3_600) : L("%d h %d min", seconds / 3_600, minutes)
    }
}

/// A JSON value, written without Foundation. Keys keep their insertion order so
/// that `--json` output is stable byte for byte.
enum JSON {
    case null
    case bool(Bool)
    case int(Int64)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    static func int(_ value: Int) -> JSON { .int(Int64(value)) }
    static func optional(_ value: String?) -> JSON { value.map(JSON.string) ?? .null }
    /// Unix seconds, or null for 0 ("never").
    static func time(_ seconds: Int64) -> JSON { seconds > 0 ? .int(seconds) : .null }

    var text: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        write(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the encoding to one byte buffer: `list --json` of 100,000
    /// users spent most of its time concatenating intermediate Strings.
    func write(to bytes: inout [UInt8]) {
        switch self {
        case .null: bytes += "null".utf8
        case let .bool(value): bytes += (value ? "true" : "false").utf8
        case let .int(value): bytes += String(value).utf8
        case let .string(value): JSON.quote(value, into: &bytes)
        case let .array(items):
            bytes.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                item.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case let .object(fields):
            bytes.append(UInt8(ascii: "{"))
            for (index, field) in fields.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSON.quote(field.0, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                field.1.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    private static func quote(_ string: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Names, kinds and messages almost never need escaping: copy them whole.
        if !string.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            bytes.append(contentsOf: string.utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += "\\\"".utf8
            case UInt8(ascii: "\\"): bytes += "\\\\".utf8
            case UInt8(ascii: "\n"): bytes += "\\n".utf8
            case UInt8(ascii: "\r"): bytes += "\\r".utf8
            case UInt8(ascii: "\t"): bytes += "\\t".utf8
            case 0..<0x20, 0x7F:
                let hex = String(byte, radix: 16)
                bytes += ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8
            default: bytes.append(byte)  // UTF-8 passes through unchanged
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
