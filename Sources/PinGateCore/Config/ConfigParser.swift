/// A problem in pingate.conf, naming the file, the line and what to write instead.
public struct ConfigError: Error, Equatable, CustomStringConvertible, Sendable {
    public let path: String
    public let line: Int
    public let problem: ConfigProblem
    public var message: String { problem.description }

    public init(path: String, line: Int, problem: ConfigProblem) {
        self.path = path
        self.line = line
        self.problem = problem
    }

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
        // Lines are cut at their bytes, not their Characters: "\n", "#", "="
        // and blanks are ASCII, so no cut splits a Unicode scalar (a
        // combining mark right after "=" or "#" is cut from it), and the
        // Character walk (grapheme breaking) cost the helper ~100,000
        // instructions per start for a two-line file. A CR LF file now reads
        // as its lines: "\r\n" was one Character, and the file one line.
        let utf8 = text.utf8
        var lineStart = utf8.startIndex
        var lineNumber = 0
        while lineStart != utf8.endIndex {
            let lineEnd = utf8[lineStart...].firstIndex(of: ASCII.newline) ?? utf8.endIndex
            defer { lineStart = lineEnd == utf8.endIndex ? lineEnd : utf8.index(after: lineEnd) }
            lineNumber += 1
            let content = utf8[lineStart..<lineEnd]
            let line = ASCII.trimmingBlanks(content.prefix(while: { $0 != ASCII.comment }))
            if line.isEmpty { continue }
            guard let equals = line.firstIndex(of: ASCII.equals) else {
                throw ConfigError(path: path, line: lineNumber,
                                  problem: .notKeyValue(got: String(String(decoding: line, as: UTF8.self).prefix(60))))
            }
            let key = String(decoding: ASCII.trimmingBlanks(line[..<equals]), as: UTF8.self)
            let value = String(decoding: ASCII.trimmingBlanks(line[line.index(after: equals)...]), as: UTF8.self)
            // The setting is found once: its row reads the value, and an
            // unknown key goes to `Policy.set` for its error and suggestion.
            let index = Policy.settings.firstIndex(where: { $0.key == key })
            if let index {
                guard setOnLine[index] == 0 else {
                    throw ConfigError(path: path, line: lineNumber, problem: .setTwice(key: key, firstLine: setOnLine[index]))
                }
                setOnLine[index] = lineNumber
            }
            do {
                if let index { try Policy.settings[index].read(&policy, value) } else { try policy.set(key, to: value) }
            } catch let problem as PolicySettingError {
                throw ConfigError(path: path, line: lineNumber, problem: problem.problem)
            }
        }
        do {
            try policy.validate()
        } catch let problem as PolicySettingError {
            throw ConfigError(path: path, line: 0, problem: problem.problem)
        }
        return policy
    }

    /// The bytes the parser cuts at.
    private enum ASCII {
        static let newline = UInt8(ascii: "\n"), comment = UInt8(ascii: "#"), equals = UInt8(ascii: "=")

        /// `bytes` without the spaces, tabs and carriage returns around it.
        static func trimmingBlanks(_ bytes: Substring.UTF8View) -> Substring.UTF8View {
            let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") }
            guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) }) else {
                return bytes[bytes.endIndex...]
            }
            return bytes[first...last]
        }
    }

    /// Reads and parses the file at `path`; a missing file means the defaults.
    public static func load(path: String = Policy.defaultPath) throws -> Policy {
        let text: String
        do {
            guard let contents = try readSmallFile(path, limit: maximumSize) else { return Policy() }
            text = contents
        } catch let error as Errno {
            throw ConfigError(path: path, line: 0, problem: .unreadable("\(error)"))
        }
        return try parse(text, path: path)
    }
}
