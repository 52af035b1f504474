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

/// Linux-PAM 1.5.2's `_pam_assemble_line`, byte for byte: `fgets` into a
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
    private var offset = 0
    private var physicalLine = 1

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func next() -> Step {
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
