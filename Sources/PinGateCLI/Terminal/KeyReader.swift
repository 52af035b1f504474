import PinGateCore

/// One key press in raw mode.
enum Key: Equatable {
    case byte(UInt8)
    case enter, backspace, escape, interrupt, endOfInput, clearLine
    case up, down, left, right
    case ignored
}

/// Reads keys from a terminal in raw mode, decoding the arrow keys' escape
/// sequences and telling a lone Esc from the start of one.
struct KeyReader {
    let descriptor: FileDescriptor

    func next() -> Key {
        guard let byte = readByte(waitingAtMost: nil) else { return .endOfInput }
        switch byte {
        case 0x0D, 0x0A: return .enter
        case 0x7F, 0x08: return .backspace
        case 0x03: return .interrupt
        case 0x04: return .endOfInput
        case 0x15: return .clearLine
        case 0x1B: return escapeSequence()
        default: return .byte(byte)
        }
    }

    private func escapeSequence() -> Key {
        // A lone Esc is followed by nothing for a moment; an arrow key's
        // "ESC [ A" (or "ESC O A") arrives at once.
        guard let introducer = readByte(waitingAtMost: 50) else { return .escape }
        guard introducer == UInt8(ascii: "[") || introducer == UInt8(ascii: "O") else { return .ignored }
        var final: UInt8 = 0
        for _ in 0..<16 {
            guard let byte = readByte(waitingAtMost: 50) else { return .ignored }
            if (0x40...0x7E).contains(byte) { final = byte; break }
        }
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        default: return .ignored
        }
    }

    /// One byte, waiting for it at most `milliseconds` (nil: as long as it takes).
    private func readByte(waitingAtMost milliseconds: Int?) -> UInt8? {
        if let milliseconds, !descriptor.waitReadable(until: .after(milliseconds: milliseconds)) { return nil }
        var byte: UInt8 = 0
        let count = try? withUnsafeMutableBytes(of: &byte) { try descriptor.read(into: $0) }
        return count == 1 ? byte : nil
    }
}
