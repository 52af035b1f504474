/// One line of a PAM stack file as libpam hands it to its parser: comments
/// cut, continuations joined, and the number of the physical line it starts on.
struct PAMAssembledLine: Equatable {
    /// The bytes up to libpam's terminating NUL.
    let text: [UInt8]
    let lineNumber: Int
}

/// Why libpam stops reading a file part-way; what it read before stays.
public enum PAMLineProblem: Equatable, Sendable {
    /// The file ends in a continuation (a last line ending in a backslash).
    case unfinished
    /// A continuation fills the buffer to its last byte: libpam 1.5.2 reads
    /// nothing, forever (fixed upstream after 1.5.2, "avoid endless loop on
    /// long config line").
    case endless
}

/// Linux-PAM 1.5.2's `_pam_assemble_line`, byte for byte (1.7's below): `fgets` into a
/// 1024-byte buffer; a line blank or starting with `#` is skipped, also in
/// the middle of a continuation; a `#` anywhere else ends the line there, so
/// a backslash at the end of a comment joins nothing; a backslash before
/// trailing blanks (space, tab, newline — not `\r`) becomes a space and the
/// next line is appended; a line longer than the buffer is cut, its rest
/// read as the next line (joined lines too: the buffer never overflows); a
/// NUL byte ends the line's text.
struct PAMLineAssembler {
    static let bufferSize = 1024

    enum Step: Equatable {
        case line(PAMAssembledLine)
        case end
        /// libpam gives up on the file at `lineNumber` (the lines before count).
        case failure(PAMLineProblem, lineNumber: Int)
    }

    private let bytes: [UInt8]
    private let dialect: PAMDialect
    private var offset = 0
    private var physicalLine = 1

    init(_ bytes: [UInt8], dialect: PAMDialect = .linuxPAM15) {
        self.bytes = bytes
        self.dialect = dialect
    }

    mutating func next() -> Step {
        dialect == .linuxPAM15 ? nextFromFixedBuffer() : nextFromWholeLines()
    }

    /// Linux-PAM 1.6 and later (`_pam_line_assemble`, libpam_internal/pam_line.c):
    /// `getline`, so a line of any length. Each physical line: a backslash
    /// before the trailing blanks (space, tab, newline) becomes a space and
    /// the line continues — unless the line holds a `#` before its first
    /// NUL, which ends it; leading spaces and tabs go, a `#` cuts the rest.
    /// A line that ends, even blank or a comment, ends the continuation: the
    /// joined text is a line if it is not empty. The file ending mid
    /// continuation is an error (the service is abandoned).
    private mutating func nextFromWholeLines() -> Step {
        var assembled: [UInt8]? = nil
        var visibleEnded = false   // a NUL was copied: C sees nothing after it
        var start: Int?
        var continuing = false
        while let (line, lineNumber) = getline() {
            var end = line.count
            var p = end
            while p > 0 {
                p -= 1
                if line[p] != UInt8(ascii: " "), line[p] != UInt8(ascii: "\t"), line[p] != UInt8(ascii: "\n") { break }
            }
            var chunk = line
            var continues = false
            if p < line.count, line[p] == UInt8(ascii: "\\") {
                chunk[p] = UInt8(ascii: " ")
                end = p + 1
                continues = true
            }
            let cText = chunk.prefix { $0 != 0 }
            if cText.contains(UInt8(ascii: "#")) { continues = false }
            var s = 0
            while s < end, chunk[s] == UInt8(ascii: " ") || chunk[s] == UInt8(ascii: "\t") { s += 1 }
            // The C string from s: to the first NUL or `#` (which becomes a NUL).
            var text: [UInt8] = []
            var cut = false
            for byte in chunk[s..<end] {
                if byte == 0 || byte == UInt8(ascii: "#") { cut = true; break }
                text.append(byte)
            }
            let first = text.first ?? 0
            if continues {
                if s < end {
                    if assembled == nil { assembled = []; start = lineNumber }
                    if !visibleEnded { assembled! += text }
                    if cut { visibleEnded = true }
                }
                continuing = true
                continue
            }
            if assembled != nil || (first != 0 && first != UInt8(ascii: "\n")) {
                if assembled == nil { assembled = []; start = lineNumber }
                if !visibleEnded { assembled! += text }
            }
            if let text = assembled, let byte = text.first, byte != 0 {
                return .line(PAMAssembledLine(text: text, lineNumber: start ?? lineNumber))
            }
            assembled = nil
            visibleEnded = false
            start = nil
            continuing = false
        }
        return continuing ? .failure(.unfinished, lineNumber: start ?? physicalLine) : .end
    }

    /// The next physical line with its newline, and its number.
    private mutating func getline() -> ([UInt8], Int)? {
        guard offset < bytes.count else { return nil }
        let lineNumber = physicalLine
        var line: [UInt8] = []
        while offset < bytes.count {
            let byte = bytes[offset]
            line.append(byte)
            offset += 1
            if byte == UInt8(ascii: "\n") {
                physicalLine += 1
                break
            }
        }
        return (line, lineNumber)
    }

    /// Linux-PAM 1.5.2's, described above.
    private mutating func nextFromFixedBuffer() -> Step {
        var buffer = [UInt8](repeating: 0, count: Self.bufferSize)
        var position = 0
        var used = 0
        var start: Int?
        while true {
            if Self.bufferSize - position == 1 { return .failure(.endless, lineNumber: start ?? physicalLine) }
            let chunkLine = physicalLine
            guard fgets(into: &buffer, at: position) else {
                return used > 0 ? .failure(.unfinished, lineNumber: start ?? chunkLine) : .end
            }
            var s = position
            while buffer[s] == UInt8(ascii: " ") || buffer[s] == UInt8(ascii: "\n") || buffer[s] == UInt8(ascii: "\t") { s += 1 }
            guard buffer[s] != 0, buffer[s] != UInt8(ascii: "#") else { continue }  // nothing on this line
            if start == nil { start = chunkLine }
            let textStart = s
            while buffer[s] != 0, buffer[s] != UInt8(ascii: "#") { s += 1 }
            if buffer[s] == UInt8(ascii: "#") {
                buffer[s] = 0
                used += s - textStart
                break
            }
            // Back from the end over blanks: does the line end in a backslash?
            while s > textStart {
                s -= 1
                let byte = buffer[s]
                if byte != UInt8(ascii: " "), byte != UInt8(ascii: "\t"), byte != UInt8(ascii: "\n") { break }
            }
            if buffer[s] == UInt8(ascii: "\\") {
                buffer[s] = UInt8(ascii: " ")
                s += 1
                buffer[s] = 0
                used += s - textStart
                position = s
            } else {
                used += cLength(buffer, from: textStart)
                break
            }
        }
        return .line(PAMAssembledLine(text: Array(buffer[0..<cLength(buffer, from: 0)]), lineNumber: start ?? physicalLine))
    }

    /// glibc's `fgets(buffer + position, size - position, file)`: up to one
    /// byte less than the room left, through the first newline, then a NUL.
    /// False at the end of the file.
    private mutating func fgets(into buffer: inout [UInt8], at position: Int) -> Bool {
        guard offset < bytes.count else { return false }
        var index = position
        while index < Self.bufferSize - 1, offset < bytes.count {
            let byte = bytes[offset]
            buffer[index] = byte
            index += 1
            offset += 1
            if byte == UInt8(ascii: "\n") {
                physicalLine += 1
                break
            }
        }
        buffer[index] = 0
        return true
    }

    private func cLength(_ buffer: [UInt8], from start: Int) -> Int {
        var end = start
        while end < buffer.count, buffer[end] != 0 { end += 1 }
        return end - start
    }
}
