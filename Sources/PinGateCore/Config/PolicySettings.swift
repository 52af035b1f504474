/// A value that does not fit its key; `ConfigParser` adds the file and line.
public struct PolicySettingError: Error, Equatable, Sendable {
    public let problem: ConfigProblem
    public var message: String { problem.description }

    public init(_ problem: ConfigProblem) { self.problem = problem }
}

/// A setting's value with its type, for `pingate policy --json`: durations
/// in seconds, sizes in bytes.
public enum PolicyValue: Equatable, Sendable {
    case number(Int64)
    case numbers([Int64])
    case names([String])
    case text(String)
}

/// One pingate.conf key: how its text is read into a `Policy`, and how the
/// policy's value is written back as text and as a typed value. `Policy.settings`
/// lists them all; the parser, `pingate policy` (text and JSON) and the tests
/// take every key from there.
public struct PolicySetting: Sendable {
    public let key: String
    let read: @Sendable (inout Policy, String) throws -> Void
    let text: @Sendable (Policy) -> String
    public let typed: @Sendable (Policy) -> PolicyValue

    /// A whole number in `range`. The field is reached through two closures
    /// rather than a key path: key paths are built from metadata at run
    /// time, and this table is built at every helper start.
    static func integer(_ key: String, in range: ClosedRange<Int>, get: @escaping @Sendable (Policy) -> Int,
                        set: @escaping @Sendable (inout Policy, Int) -> Void) -> PolicySetting {
        PolicySetting(key: key,
                      read: { policy, value in set(&policy, try wholeNumber(value, key, in: range)) },
                      text: { String(get($0)) },
                      typed: { .number(Int64(get($0))) })
    }
}

extension Policy {
    /// Every key pingate.conf accepts, in the order `pingate policy` prints them.
    public static let settings: [PolicySetting] = [
        .integer("pin_min_length", in: PIN.lengthLimits, get: { $0.pinMinLength }, set: { $0.pinMinLength = $1 }),
        .integer("pin_max_length", in: PIN.lengthLimits, get: { $0.pinMaxLength }, set: { $0.pinMaxLength = $1 }),
        .integer("pattern_min_cells", in: 4...36, get: { $0.patternMinCells }, set: { $0.patternMinCells = $1 }),
        .integer("pattern_grid", in: PatternGrid.supportedSizes, get: { $0.patternGrid }, set: { $0.patternGrid = $1 }),
        .integer("free_failures", in: 0...20, get: { $0.lockout.freeFailures }, set: { $0.lockout.freeFailures = $1 }),
        PolicySetting(key: "lockout_timeouts",
                      read: { policy, value in
                          let items = listItems(value)
                          guard !items.isEmpty, items.count <= 32 else {
                              throw PolicySettingError(.lockoutTimeouts)
                          }
                          policy.lockout.timeouts = try items.map { try duration($0, "lockout_timeouts") }
                      },
                      text: { $0.lockout.timeouts.map(formatDuration).joined(separator: " ") },
                      typed: { .numbers($0.lockout.timeouts) }),
        .integer("max_failures", in: 1...100, get: { $0.lockout.maxFailures }, set: { $0.lockout.maxFailures = $1 }),
        PolicySetting(key: "kdf_operations",
                      read: { policy, value in
                          let range = KDFParameters.operationsRange
                          policy.kdf.operations = UInt64(try wholeNumber(value, "kdf_operations", in: Int(range.lowerBound)...Int(range.upperBound)))
                      },
                      text: { String($0.kdf.operations) },
                      typed: { .number(Int64($0.kdf.operations)) }),
        PolicySetting(key: "kdf_memory",
                      read: { policy, value in policy.kdf.memoryBytes = try byteSize(value, "kdf_memory") },
                      text: { formatByteSize($0.kdf.memoryBytes) },
                      typed: { .number(Int64($0.kdf.memoryBytes)) }),
        PolicySetting(key: "services",
                      read: { policy, value in policy.services = try serviceNames(value, "services") },
                      text: { $0.services.joined(separator: " ") },
                      typed: { .names($0.services) }),
        PolicySetting(key: "password_first_services",
                      read: { policy, value in policy.passwordFirstServices = try serviceNames(value, "password_first_services") },
                      text: { $0.passwordFirstServices.joined(separator: " ") },
                      typed: { .names($0.passwordFirstServices) }),
        PolicySetting(key: "user_manager",
                      read: { policy, value in
                          guard value == "yes" || value == "no" else {
                              throw PolicySettingError(.yesOrNo(key: "user_manager"))
                          }
                          policy.userManagerCallers = value == "yes"
                      },
                      text: { $0.userManagerCallers ? "yes" : "no" },
                      typed: { .text($0.userManagerCallers ? "yes" : "no") }),
        PolicySetting(key: "tpm_tcti",
                      read: { policy, value in
                          // "device:/dev/tpmrm0", "swtpm:host=127.0.0.1,port=2321": printable, no spaces.
                          guard !value.isEmpty, value.count <= 200, value.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0.asciiValue! >= 0x21 }) else {
                              throw PolicySettingError(.tpmTCTI)
                          }
                          policy.tpmTCTI = value
                      },
                      text: { $0.tpmTCTI },
                      typed: { .text($0.tpmTCTI) }),
    ]

    public static var keys: [String] { settings.map(\.key) }

    /// Sets one key from its text value: the single path for config files and tests.
    public mutating func set(_ key: String, to value: String) throws {
        guard let setting = Policy.settings.first(where: { $0.key == key }) else {
            throw PolicySettingError(.unknownKey(String(key.prefix(40)), suggestions: Policy.suggestions(for: key)))
        }
        try setting.read(&self, value)
    }

    /// The keys meant by an unknown `key`: those holding all its words
    /// (`pin_length`: pin_min_length and pin_max_length), else the nearest
    /// by spelling, within three edits.
    static func suggestions(for key: String) -> [String] {
        let words = Set(key.split(separator: "_"))
        let holding = words.isEmpty ? [] : keys.filter { words.isSubset(of: Set($0.split(separator: "_"))) }
        if !holding.isEmpty, holding.count <= 3 { return holding }
        return keys.min(by: { editDistance($0, key) < editDistance($1, key) }).flatMap { editDistance($0, key) <= 3 ? [$0] : nil } ?? []
    }

    /// Checks the settings against each other.
    public func validate() throws {
        guard pinMinLength <= pinMaxLength else {
            throw PolicySettingError(.pinLengths(minimum: pinMinLength, maximum: pinMaxLength))
        }
        guard lockout.maxFailures > lockout.freeFailures else {
            throw PolicySettingError(.failureCounts(maximum: lockout.maxFailures, free: lockout.freeFailures))
        }
        guard patternMinCells <= patternGrid * patternGrid else {
            throw PolicySettingError(.patternCells(minimum: patternMinCells, grid: patternGrid))
        }
    }

    /// The current value of `key` as config text (for `pingate policy`).
    public func value(of key: String) -> String {
        Policy.settings.first { $0.key == key }?.text(self) ?? ""
    }
}

private func wholeNumber(_ text: String, _ key: String, in range: ClosedRange<Int>) throws -> Int {
    guard let value = Int(text), range.contains(value) else {
        throw PolicySettingError(.wholeNumber(key: key, lowest: range.lowerBound, highest: range.upperBound, got: String(text.prefix(40))))
    }
    return value
}

/// The items of a list value ("sudo, login  i3lock", "1m 5m"): cut at
/// spaces, tabs and commas. Cut at their bytes, as ConfigParser cuts lines
/// (all three are ASCII, so no cut splits a scalar): a Character `split`
/// walks graphemes, and costs the helper's start generic metadata besides.
func listItems(_ value: String) -> [String] {
    var items: [String] = []
    let utf8 = value.utf8
    var itemStart = utf8.startIndex
    var index = itemStart
    while true {
        let atEnd = index == utf8.endIndex
        if atEnd || utf8[index] == UInt8(ascii: " ") || utf8[index] == UInt8(ascii: ",") || utf8[index] == UInt8(ascii: "\t") {
            if itemStart != index { items.append(String(value[itemStart..<index])) }
            if atEnd { return items }
            itemStart = utf8.index(after: index)
        }
        index = utf8.index(after: index)
    }
}

/// "sudo, login  i3lock" → PAM service names: ASCII letters, digits and
/// "-_." (the names of files in /etc/pam.d). Compared with the service a
/// request names as they are, so no other script's letter, whose forms
/// Unicode calls equal, and no combining mark (a list cut at its bytes may
/// start an item with one) can be one.
private func serviceNames(_ value: String, _ key: String) throws -> [String] {
    let names = listItems(value)
    guard names.allSatisfy({ $0.utf8.allSatisfy { byte in
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."): true
        default: false
        }
    } }) else {
        throw PolicySettingError(.serviceNames(key: key))
    }
    return names
}

/// "90", "90s", "5m", "2h" → seconds.
private func duration(_ text: String, _ key: String) throws -> Int64 {
    var digits = Substring(text)
    var unit: Int64 = 1
    // A switch, not a dictionary: no generic metadata on the helper's start.
    let factor: Int64? = switch text.last {
    case "s": 1
    case "m": 60
    case "h": 3_600
    case "d": 86_400
    default: nil
    }
    if let factor { unit = factor; digits = text.dropLast() }
    guard let value = Int64(digits), value > 0, value <= 366 * 86_400 / unit else {
        throw PolicySettingError(.duration(key: key, got: String(text.prefix(20))))
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
    var digits = Substring(text)
    var unit = 1
    // A switch, not a dictionary: no generic metadata on the helper's start.
    let factor: Int? = switch text.last {
    case "K", "k": 1 << 10
    case "M", "m": 1 << 20
    case "G", "g": 1 << 30
    default: nil
    }
    if let factor { unit = factor; digits = text.dropLast() }
    guard let value = Int(digits), value > 0, value <= KDFParameters.memoryRange.upperBound / unit,
          KDFParameters.memoryRange.contains(value * unit) else {
        throw PolicySettingError(.size(key: key, got: String(text.prefix(20))))
    }
    return value * unit
}

/// A size as pingate.conf writes it: 16M, 8K, 1G, or plain bytes.
public func formatByteSize(_ bytes: Int) -> String {
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
