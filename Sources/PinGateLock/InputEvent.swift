/// What the locker forwards to the UI process: one line per event on a pipe.
///
/// The locker holds the grabs, so every key and pointer event reaches it and
/// none reaches the UI's window. It passes them on in this tiny text form,
/// as xsecurelock's main.c passes keystrokes to its auth child:
///
///     k KEYSYM CODEPOINT     a key press (CODEPOINT 0 when it types no character)
///     p BUTTON X Y           a button press at root coordinates
///     r BUTTON X Y           a button release
///     m X Y                  pointer motion
///     c                      the touch was taken back (wl_touch.cancel), or
///                            the touch screen went away: a pattern being
///                            drawn is dropped, not submitted
///
/// Numbers are decimal. Anything else is ignored by the reader.
///
/// A key's line carries a character of what may be a password, so both ends
/// work on bytes in place: the line is written into a buffer that is zeroed
/// after it is sent, and read from the reader's one buffer, which is zeroed
/// after each line. No String, Substring or other copy is made of it.
public enum InputEvent: Equatable, Sendable {
    case key(keysym: UInt32, character: Unicode.Scalar?)
    case press(button: Int, x: Int, y: Int)
    case release(button: Int, x: Int, y: Int)
    case motion(x: Int, y: Int)
    case cancel

    /// The longest line: a kind, three 20-character numbers, spaces, newline.
    static let maximumLine = 2 + 3 * 21

    /// Calls `body` with the event's line, written into a buffer of its own
    /// that is zeroed afterwards (no String of it is made).
    public func withLine<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        var buffer = [UInt8](repeating: 0, count: InputEvent.maximumLine)
        var count = 0
        func put(_ byte: UInt8) { buffer[count] = byte; count += 1 }
        func put(_ number: Int) {
            put(UInt8(ascii: " "))
            if number < 0 { put(UInt8(ascii: "-")) }
            var magnitude = number.magnitude, divisor: UInt = 1
            while magnitude / divisor >= 10 { divisor *= 10 }
            repeat {
                put(UInt8(ascii: "0") + UInt8(magnitude / divisor))
                magnitude %= divisor
                divisor /= 10
            } while divisor > 0
        }
        switch self {
        case let .key(keysym, character): put(UInt8(ascii: "k")); put(Int(keysym)); put(Int(character?.value ?? 0))
        case let .press(button, x, y): put(UInt8(ascii: "p")); put(button); put(x); put(y)
        case let .release(button, x, y): put(UInt8(ascii: "r")); put(button); put(x); put(y)
        case let .motion(x, y): put(UInt8(ascii: "m")); put(x); put(y)
        case .cancel: put(UInt8(ascii: "c"))
        }
        put(UInt8(ascii: "\n"))
        defer { for index in buffer.indices { buffer[index] = 0 } }
        return buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    /// The line as text, for tests (a String of it would outlive a key).
    var line: String { withLine { String(decoding: $0, as: UTF8.self) } }

    /// Reads one line (without its newline) where it lies: a kind letter and
    /// decimal numbers, each after one space.
    init?(line bytes: UnsafeRawBufferPointer) {
        guard let kind = bytes.first else { return nil }
        var numbers = (0, 0, 0), count = 0, index = 1
        while index < bytes.count {
            guard count < 3, bytes[index] == UInt8(ascii: " ") else { return nil }
            index += 1
            let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            var value = 0, digits = 0
            while index < bytes.count, bytes[index] != UInt8(ascii: " ") {
                let digit = Int(bytes[index]) - Int(UInt8(ascii: "0"))
                guard (0...9).contains(digit), digits < 18 else { return nil }
                value = value * 10 + digit
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            if negative { value = -value }
            switch count {
            case 0: numbers.0 = value
            case 1: numbers.1 = value
            default: numbers.2 = value
            }
            count += 1
        }
        switch (kind, count) {
        case (UInt8(ascii: "k"), 2):
            guard let keysym = UInt32(exactly: numbers.0), numbers.1 >= 0 else { return nil }
            let scalar = numbers.1 == 0 ? nil : Unicode.Scalar(UInt32(truncatingIfNeeded: numbers.1))
            self = .key(keysym: keysym, character: scalar)
        case (UInt8(ascii: "p"), 3): self = .press(button: numbers.0, x: numbers.1, y: numbers.2)
        case (UInt8(ascii: "r"), 3): self = .release(button: numbers.0, x: numbers.1, y: numbers.2)
        case (UInt8(ascii: "m"), 2): self = .motion(x: numbers.0, y: numbers.1)
        case (UInt8(ascii: "c"), 0): self = .cancel
        default: return nil
        }
    }
}

/// Splits a byte stream into events; keeps an unfinished line for the next read.
public struct InputEventReader {
    /// One buffer for every line, made once: a line is read where it lies
    /// and zeroed once read.
    private var pending: [UInt8]
    private var count = 0

    public init() {
        pending = [UInt8](repeating: 0, count: InputEvent.maximumLine)
    }

    /// Hands each whole line's event to `handle`, in order; a line longer
    /// than any event is noise, dropped.
    public mutating func feed(_ bytes: some Sequence<UInt8>, _ handle: (InputEvent) -> Void) {
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                let event = count <= InputEvent.maximumLine
                    ? pending.withUnsafeBytes { InputEvent(line: UnsafeRawBufferPointer(rebasing: $0[..<count])) } : nil
                wipe()
                if let event { handle(event) }
            } else {
                if count < InputEvent.maximumLine { pending[count] = byte }
                count += 1
            }
        }
    }

    /// Characters of a password pass through here: clear them once read.
    public mutating func wipe() {
        for index in pending.indices { pending[index] = 0 }
        count = 0
    }
}

/// The X keysyms the lock screen understands (X11/keysymdef.h), as numbers
/// so the state machines need no X headers.
public enum Keysym {
    public static let backSpace: UInt32 = 0xff08
    public static let tab: UInt32 = 0xff09
    public static let isoLeftTab: UInt32 = 0xfe20
    public static let `return`: UInt32 = 0xff0d
    public static let escape: UInt32 = 0xff1b
    public static let left: UInt32 = 0xff51
    public static let up: UInt32 = 0xff52
    public static let right: UInt32 = 0xff53
    public static let down: UInt32 = 0xff54
    public static let space: UInt32 = 0x20
    public static let keypadEnter: UInt32 = 0xff8d
    public static let keypadSpace: UInt32 = 0xff80
    public static let digit0: UInt32 = 0x30
    public static let keypad0: UInt32 = 0xffb0

    /// The keypad's keys with Num Lock off, indexed by the digit they carry.
    static let keypadNavigation: [UInt32: Int] = [
        0xff9e: 0,  // KP_Insert
        0xff9c: 1,  // KP_End
        0xff99: 2,  // KP_Down
        0xff9b: 3,  // KP_Next (Page Down)
        0xff96: 4,  // KP_Left
        0xff9d: 5,  // KP_Begin
        0xff98: 6,  // KP_Right
        0xff95: 7,  // KP_Home
        0xff97: 8,  // KP_Up
        0xff9a: 9,  // KP_Prior (Page Up)
    ]

    /// The digit of a top-row digit key, or nil.
    public static func rowDigit(_ keysym: UInt32) -> Int? {
        (digit0...digit0 + 9).contains(keysym) ? Int(keysym - digit0) : nil
    }

    /// The digit of a numeric keypad key, with Num Lock on or off, or nil.
    public static func keypadDigit(_ keysym: UInt32) -> Int? {
        if (keypad0...keypad0 + 9).contains(keysym) { return Int(keysym - keypad0) }
        return keypadNavigation[keysym]
    }

    public static func isSubmit(_ keysym: UInt32) -> Bool { keysym == `return` || keysym == keypadEnter }

    /// The character a keysym types without an input method: Latin-1 keysyms
    /// are their code point, Unicode keysyms carry it in the low 24 bits
    /// (X11/keysymdef.h). Other layouts' keysyms need the input method.
    public static func character(of keysym: UInt32) -> Unicode.Scalar? {
        switch keysym {
        case 0x20...0x7e, 0xa0...0xff: return Unicode.Scalar(keysym)
        case 0x0100_0000...0x0110_ffff: return Unicode.Scalar(keysym & 0x00ff_ffff)
        default: return nil
        }
    }
}

/// The characters of UTF-8 text (invalid bytes read as U+FFFD), decoded as
/// they are read: no String or Array is made of what may be a password.
public struct UTF8Characters<Bytes: Sequence<UInt8>>: Sequence, IteratorProtocol {
    private var bytes: Bytes.Iterator
    private var decoder = UTF8()

    public init(_ bytes: Bytes) { self.bytes = bytes.makeIterator() }

    public mutating func next() -> Unicode.Scalar? {
        switch decoder.decode(&bytes) {
        case let .scalarValue(scalar): return scalar
        case .error: return "\u{FFFD}"
        case .emptyInput: return nil
        }
    }
}

extension InputEvent {
    /// The events one key press forwards, each handed to `forward` as it is
    /// made (no array of them): its keysym with the first character it
    /// typed, then any further characters (a Compose sequence can type more
    /// than one) with keysym 0. Control characters are not text (Ctrl+U
    /// types 0x15): a password holds only printable characters.
    public static func keyPress(keysym: UInt32, typed characters: some Sequence<Unicode.Scalar>,
                                _ forward: (InputEvent) -> Void) {
        var first = true
        for character in characters where character.properties.generalCategory != .control {
            forward(.key(keysym: first ? keysym : 0, character: character))
            first = false
        }
        if first && keysym != 0 { forward(.key(keysym: keysym, character: nil)) }
    }
}
