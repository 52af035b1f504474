import Glibc

/// Where the CLI writes: results to stdout, errors and prompts-without-a-tty to stderr.
enum Output {
    static func line(_ text: String) {
        print(text)
    }

    static func error(_ text: String) {
        fflush(stdout)
        fputs("pingate: \(text)\n", stderr)
    }

    /// Text for stderr without the "pingate: " prefix (usage lines).
    static func rawError(_ text: String) {
        fflush(stdout)
        fputs(text + "\n", stderr)
    }

    /// Unix seconds as local "YYYY-MM-DD HH:MM:SS", or "never" for 0.
    static func time(_ seconds: Int64) -> String {
        guard seconds > 0 else { return "never" }
        var value = time_t(seconds)
        var parts = tm()
        guard localtime_r(&value, &parts) != nil else { return String(seconds) }
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S %Z", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
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
        switch self {
        case .null: return "null"
        case let .bool(value): return value ? "true" : "false"
        case let .int(value): return String(value)
        case let .string(value): return JSON.quote(value)
        case let .array(items): return "[" + items.map(\.text).joined(separator: ",") + "]"
        case let .object(fields): return "{" + fields.map { JSON.quote($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }

    private static func quote(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
