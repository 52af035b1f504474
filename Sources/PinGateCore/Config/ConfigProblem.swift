/// What is wrong in pingate.conf, as values: `description` is the English
/// message (the helper's log line, the module's answer), and the CLI says the
/// same in the reader's language (LocalizedCoreMessages.swift).
public enum ConfigProblem: Equatable, Sendable, CustomStringConvertible {
    case notKeyValue(got: String)
    case setTwice(key: String, firstLine: Int)
    /// `suggestions`: the keys probably meant, at most three.
    case unknownKey(String, suggestions: [String])
    case lockoutTimeouts
    case yesOrNo(key: String)
    case tpmTCTI
    case pinLengths(minimum: Int, maximum: Int)
    case failureCounts(maximum: Int, free: Int)
    case patternCells(minimum: Int, grid: Int)
    case wholeNumber(key: String, lowest: Int, highest: Int, got: String)
    case serviceNames(key: String)
    case duration(key: String, got: String)
    case size(key: String, got: String)
    case unreadable(String)

    public var description: String {
        switch self {
        case let .notKeyValue(got): return "expected 'key = value', got '\(got)'"
        case let .setTwice(key, firstLine): return "'\(key)' is already set on line \(firstLine)"
        case let .unknownKey(key, suggestions):
            guard !suggestions.isEmpty else { return "unknown key '\(key)'" }
            return "unknown key '\(key)' (did you mean \(suggestions.map { "'\($0)'" }.joined(separator: " or "))?)"
        case .lockoutTimeouts: return "lockout_timeouts needs 1 to 32 durations, e.g. '1m 5m 15m 30m 90m'"
        case let .yesOrNo(key): return "\(key) is yes or no"
        case .tpmTCTI: return "tpm_tcti is a TCTI like 'device:/dev/tpmrm0' or 'swtpm:host=127.0.0.1,port=2321'"
        case let .pinLengths(minimum, maximum): return "pin_min_length (\(minimum)) is larger than pin_max_length (\(maximum))"
        case let .failureCounts(maximum, free): return "max_failures (\(maximum)) must be larger than free_failures (\(free))"
        case let .patternCells(minimum, grid): return "pattern_min_cells (\(minimum)) exceeds the cells of a \(grid)×\(grid) grid"
        case let .wholeNumber(key, lowest, highest, got): return "\(key) must be a whole number from \(lowest) to \(highest), got '\(got)'"
        case let .serviceNames(key): return "\(key) is a list of PAM service names (ASCII letters, digits, '-', '_' and '.') separated by spaces"
        case let .duration(key, got): return "\(key): '\(got)' is not a duration like 30s, 5m or 2h"
        case let .size(key, got): return "\(key) must be a size from 8K to 4G, like 64M, got '\(got)'"
        case let .unreadable(reason): return "cannot read: \(reason)"
        }
    }
}
