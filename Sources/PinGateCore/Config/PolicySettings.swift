/// A value that does not fit its key; `ConfigParser` adds the file and line.
public struct PolicySettingError: Error, Equatable, Sendable {
    public let message: String
}

extension Policy {
    /// Every key pingate.conf accepts, in the order `pingate policy` prints them.
    public static let keys = [
        "pin_min_length", "pin_max_length", "pattern_min_cells", "pattern_grid",
        "free_failures", "lockout_timeouts", "max_failures",
        "kdf_operations", "kdf_memory", "services",
    ]

    /// Sets one key from its text value: the single path for config files and tests.
    public mutating func set(_ key: String, to value: String) throws {
        switch key {
        case "pin_min_length": pinMinLength = try integer(value, key, in: PIN.lengthLimits)
        case "pin_max_length": pinMaxLength = try integer(value, key, in: PIN.lengthLimits)
        case "pattern_min_cells": patternMinCells = try integer(value, key, in: 4...36)
        case "pattern_grid": patternGrid = try integer(value, key, in: PatternGrid.supportedSizes)
        case "free_failures": lockout.freeFailures = try integer(value, key, in: 0...20)
        case "max_failures": lockout.maxFailures = try integer(value, key, in: 1...100)
        case "lockout_timeouts":
            let items = value.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" })
            guard !items.isEmpty, items.count <= 32 else {
                throw PolicySettingError(message: "lockout_timeouts needs 1 to 32 durations, e.g. '1m 5m 15m 30m 90m'")
            }
            lockout.timeouts = try items.map { try duration(String($0), key) }
        case "kdf_operations":
            kdf.operations = UInt64(try integer(value, key, in: Int(KDFParameters.operationsRange.lowerBound)...Int(KDFParameters.operationsRange.upperBound)))
        case "kdf_memory": kdf.memoryBytes = try byteSize(value, key)
        case "services":
            let names = value.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }).map(String.init)
            guard names.allSatisfy({ $0.allSatisfy { $0.isLetter || $0.isNumber || "-_.".contains($0) } }) else {
                throw PolicySettingError(message: "services is a list of PAM service names separated by spaces")
            }
            services = names
        default:
            let suggestion = Policy.keys.min(by: { editDistance($0, key) < editDistance($1, key) })
                .flatMap { editDistance($0, key) <= 3 ? " (did you mean '\($0)'?)" : nil } ?? ""
            throw PolicySettingError(message: "unknown key '\(key.prefix(40))'\(suggestion)")
        }
    }

    /// Checks the settings against each other.
    public func validate() throws {
        guard pinMinLength <= pinMaxLength else {
            throw PolicySettingError(message: "pin_min_length (\(pinMinLength)) is larger than pin_max_length (\(pinMaxLength))")
        }
        guard lockout.maxFailures > lockout.freeFailures else {
            throw PolicySettingError(message: "max_failures (\(lockout.maxFailures)) must be larger than free_failures (\(lockout.freeFailures))")
        }
        guard patternMinCells <= patternGrid * patternGrid else {
            throw PolicySettingError(message: "pattern_min_cells (\(patternMinCells)) exceeds the cells of a \(patternGrid)×\(patternGrid) grid")
        }
    }

    /// The current value of `key` as config text (for `pingate policy`).
    public func value(of key: String) -> String {
        switch key {
        case "pin_min_length": return String(pinMinLength)
        case "pin_max_length": return String(pinMaxLength)
        case "pattern_min_cells": return String(patternMinCells)
        case "pattern_grid": return String(patternGrid)
        case "free_failures": return String(lockout.freeFailures)
        case "max_failures": return String(lockout.maxFailures)
        case "lockout_timeouts": return lockout.timeouts.map(formatDuration).joined(separator: " ")
        case "kdf_operations": return String(kdf.operations)
        case "kdf_memory": return formatByteSize(kdf.memoryBytes)
        case "services": return services.joined(separator: " ")
        default: return ""
        }
    }
}

private func integer(_ text: String, _ key: String, in range: ClosedRange<Int>) throws -> Int {
    guard let value = Int(text), range.contains(value) else {
        throw PolicySettingError(message: "\(key) must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text.prefix(40))'")
    }
    return value
}

/// "90", "90s", "5m", "2h" → seconds.
private func duration(_ text: String, _ key: String) throws -> Int64 {
    let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
    var digits = Substring(text)
    var unit: Int64 = 1
    if let last = text.last, let factor = units[last] { unit = factor; digits = text.dropLast() }
    guard let value = Int64(digits), value > 0, value <= 366 * 86_400 / unit else {
        throw PolicySettingError(message: "\(key): '\(text.prefix(20))' is not a duration like 30s, 5m or 2h")
    }
    return value * unit
}

func formatDuration(_ seconds: Int64) -> String {
    if seconds % 3_600 == 0 { return "\(seconds / 3_600)h" }
    if seconds % 60 == 0 { return "\(seconds / 60)m" }
    return "\(seconds)s"
}

/// "65536K", "64M", "1G", "67108864" → bytes.
private func byteSize(_ text: String, _ key: String) throws -> Int {
    let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
    var digits = Substring(text)
    var unit = 1
    if let last = text.last?.uppercased().first, let factor = units[last] { unit = factor; digits = text.dropLast() }
    guard let value = Int(digits), value > 0, value <= KDFParameters.memoryRange.upperBound / unit,
          KDFParameters.memoryRange.contains(value * unit) else {
        throw PolicySettingError(message: "\(key) must be a size from 8K to 4G, like 64M, got '\(text.prefix(20))'")
    }
    return value * unit
}

func formatByteSize(_ bytes: Int) -> String {
    if bytes % (1 << 30) == 0 { return "\(bytes >> 30)G" }
    if bytes % (1 << 20) == 0 { return "\(bytes >> 20)M" }
    if bytes % (1 << 10) == 0 { return "\(bytes >> 10)K" }
    return String(bytes)
}

private func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b.prefix(64))
    var previous = Array(0...b.count)
    for i in 1...max(a.count, 1) where !a.isEmpty {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in stride(from: 1, through: b.count, by: 1) {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
