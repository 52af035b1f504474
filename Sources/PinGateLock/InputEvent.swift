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
///
/// Numbers are decimal. Anything else is ignored by the reader.
public enum InputEvent: Equatable, Sendable {
    case key(keysym: UInt32, character: Unicode.Scalar?)
    case press(button: Int, x: Int, y: Int)
    case release(button: Int, x: Int, y: Int)
    case motion(x: Int, y: Int)

    public var line: String {
        switch self {
        case let .key(keysym, character): return "k \(keysym) \(character?.value ?? 0)\n"
        case let .press(button, x, y): return "p \(button) \(x) \(y)\n"
        case let .release(button, x, y): return "r \(button) \(x) \(y)\n"
        case let .motion(x, y): return "m \(x) \(y)\n"
        }
    }

    public init?(line: Substring) {
        let fields = line.split(separator: " ")
        guard let kind = fields.first else { return nil }
        let numbers = fields.dropFirst().compactMap { Int($0) }
        guard numbers.count == fields.count - 1 else { return nil }
        switch (kind, numbers.count) {
        case ("k", 2):
            guard let keysym = UInt32(exactly: numbers[0]), numbers[1] >= 0 else { return nil }
            let scalar = numbers[1] == 0 ? nil : Unicode.Scalar(UInt32(truncatingIfNeeded: numbers[1]))
            self = .key(keysym: keysym, character: scalar)
        case ("p", 3): self = .press(button: numbers[0], x: numbers[1], y: numbers[2])
        case ("r", 3): self = .release(button: numbers[0], x: numbers[1], y: numbers[2])
        case ("m", 2): self = .motion(x: numbers[0], y: numbers[1])
        default: return nil
        }
    }
}

/// Splits a byte stream into events; keeps an unfinished line for the next read.
public struct InputEventReader {
    private var pending: [UInt8] = []
    /// A line longer than this is noise, never an event: dropped.
    private let maximumLine = 64

    public init() {}

    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [InputEvent] {
        var events: [InputEvent] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if let event = InputEvent(line: Substring(decoding: pending, as: UTF8.self)) {
                    events.append(event)
                }
                wipe()
            } else if pending.count < maximumLine {
                pending.append(byte)
            }
        }
        return events
    }

    /// Characters of a password pass through here: clear them once read.
    public mutating func wipe() {
        for index in pending.indices { pending[index] = 0 }
        pending.removeAll(keepingCapacity: true)
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

extension InputEvent {
    /// The characters of UTF-8 text (invalid bytes read as U+FFFD), without
    /// making a String of what may be part of a password.
    public static func characters(ofUTF8 bytes: some Sequence<UInt8>) -> [Unicode.Scalar] {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var characters: [Unicode.Scalar] = []
        while true {
            switch decoder.decode(&iterator) {
            case let .scalarValue(scalar): characters.append(scalar)
            case .error: characters.append("\u{FFFD}")
            case .emptyInput: return characters
            }
        }
    }

    /// The events one key press forwards: its keysym with the first character
    /// it typed, then any further characters (a Compose sequence can type
    /// more than one) with keysym 0. Control characters are not text (Ctrl+U
    /// types 0x15): a password holds only printable characters.
    public static func keyPress(keysym: UInt32, typed characters: [Unicode.Scalar]) -> [InputEvent] {
        let printable = characters.filter { $0.properties.generalCategory != .control }
        guard let first = printable.first else { return keysym == 0 ? [] : [.key(keysym: keysym, character: nil)] }
        return [.key(keysym: keysym, character: first)] + printable.dropFirst().map { .key(keysym: 0, character: $0) }
    }
}
