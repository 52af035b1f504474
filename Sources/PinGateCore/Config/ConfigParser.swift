/// A problem in pingate.conf, naming the file, the line and what to write instead.
public struct ConfigError: Error, Equatable, CustomStringConvertible, Sendable {
    public let path: String
    public let line: Int
    public let message: String

    public var description: String {
        line > 0 ? "\(path):\(line): \(message)" : "\(path): \(message)"
    }
}

/// Parses pingate.conf: `key = value` lines, `#` comments, blank lines, each
/// key at most once, then the settings checked against each other
/// (`Policy.validate`). Each key is a row of `Policy.settings`
/// (PolicySettings.swift), which reads it and prints it back for `pingate
/// policy`. This is the file's one reader: the PAM module reads none of it
/// (the helper applies `services` for it).
public enum ConfigParser {
    /// Largest configuration accepted; a bigger file is certainly a mistake.
    public static let maximumSize = 64 << 10

    public static func parse(_ text: String, path: String = Policy.defaultPath) throws -> Policy {
        var policy = Policy()
        // The line each setting was set on, by its place in `Policy.settings`
        // (an array of Int, not a [String: Int]: the helper reads this file
        // at every start, and a run's first String-keyed dictionary costs a
        // Swift metadata and conformance search).
        var setOnLine = [Int](repeating: 0, count: Policy.settings.count)
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = offset + 1
            let content = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let line = content.trimmingASCIIWhitespace()
            if line.isEmpty { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigError(path: path, line: lineNumber, message: "expected 'key = value', got '\(line.prefix(60))'")
            }
            let key = line[..<equals].trimmingASCIIWhitespace()
            let value = line[line.index(after: equals)...].trimmingASCIIWhitespace()
            // The setting is found once: its row reads the value, and an
            // unknown key goes to `Policy.set` for its error and suggestion.
            let index = Policy.settings.firstIndex(where: { $0.key == key })
            if let index {
                guard setOnLine[index] == 0 else {
                    throw ConfigError(path: path, line: lineNumber, message: "'\(key)' is already set on line \(setOnLine[index])")
                }
                setOnLine[index] = lineNumber
            }
            do {
                if let index { try Policy.settings[index].read(&policy, value) } else { try policy.set(key, to: value) }
            } catch let problem as PolicySettingError {
                throw ConfigError(path: path, line: lineNumber, message: problem.message)
            }
        }
        do {
            try policy.validate()
        } catch let problem as PolicySettingError {
            throw ConfigError(path: path, line: 0, message: problem.message)
        }
        return policy
    }

    /// Reads and parses the file at `path`; a missing file means the defaults.
    public static func load(path: String = Policy.defaultPath) throws -> Policy {
        let text: String
        do {
            guard let contents = try readSmallFile(path, limit: maximumSize) else { return Policy() }
            text = contents
        } catch let error as Errno {
            throw ConfigError(path: path, line: 0, message: "cannot read: \(error)")
        }
        return try parse(text, path: path)
    }
}

extension StringProtocol {
    func trimmingASCIIWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        let start = firstIndex(where: { !isSpace($0) }) ?? endIndex
        let end = lastIndex(where: { !isSpace($0) }).map { index(after: $0) } ?? start
        return String(self[start..<Swift.max(start, end)])
    }
}
