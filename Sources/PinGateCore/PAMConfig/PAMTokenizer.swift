/// Linux-PAM 1.5.2's `_pam_StrTok` over one assembled line: words split on
/// space, tab and newline (not `\r`); a word that starts with `[` runs to the
/// first `]`, spaces and all, and loses its brackets, with `\]` inside kept as
/// `]`. Whatever follows that `]` is the next word even without a space, so
/// `[success=ok default=die]pam_u2f.so` is a control and a module.
struct PAMTokenizer {
    private let bytes: [UInt8]
    /// Where the next word is looked for; nil once the line is used up.
    private(set) var position: Int?

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        position = bytes.isEmpty ? nil : 0
    }

    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
    }

    /// The next word, or nil when none is left.
    mutating func next() -> [UInt8]? {
        guard var from = position else { return nil }
        while from < bytes.count, Self.isSeparator(bytes[from]) { from += 1 }
        guard from < bytes.count else {
            position = nil
            return nil
        }
        var word: [UInt8] = []
        var end = from
        if bytes[from] == UInt8(ascii: "[") {
            end += 1
            while end < bytes.count, bytes[end] != UInt8(ascii: "]") {
                if bytes[end] == UInt8(ascii: "\\"), end + 1 < bytes.count, bytes[end + 1] == UInt8(ascii: "]") { end += 1 }
                word.append(bytes[end])
                end += 1
            }
        } else {
            while end < bytes.count, !Self.isSeparator(bytes[end]) { end += 1 }
            word = Array(bytes[from..<end])
        }
        if end < bytes.count { end += 1 }  // the separator or `]` becomes libpam's NUL
        position = end < bytes.count ? end : nil
        return word
    }

    /// `_pam_mkargv` on what is left: the module's arguments, split the same way.
    mutating func remainingWords() -> [[UInt8]] {
        var words: [[UInt8]] = []
        while let word = next() { words.append(word) }
        return words
    }
}

extension Array where Element == UInt8 {
    /// ASCII case-insensitive comparison, as `strcasecmp` in the C locale.
    func equalsIgnoringCase(_ text: String) -> Bool {
        let other = Array(text.utf8)
        guard count == other.count else { return false }
        return zip(self, other).allSatisfy { asciiLowercased($0) == asciiLowercased($1) }
    }

    var text: String { String(decoding: self, as: UTF8.self) }
}

func asciiLowercased(_ byte: UInt8) -> UInt8 {
    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
}
