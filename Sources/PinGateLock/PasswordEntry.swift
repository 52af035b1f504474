import PinGateCore

/// The password field: UTF-8 bytes, shown as one symbol per character.
///
/// The bytes go straight from the key into one `Secret`, whose room is made
/// once: typing never moves them, and what is erased is zeroed. A class, so
/// that the lock screen's state can be copied (to draw it) while the bytes
/// stay where they are.
public final class PasswordEntry {
    public private(set) var bytes = Secret(capacity: PasswordEntry.maximumBytes)
    public private(set) var characterCount = 0
    /// A password longer than this is not a password; further keys are ignored.
    public static let maximumBytes = 512

    public init() {}

    public func type(_ character: Unicode.Scalar) {
        guard character.value >= 0x20, character.value != 0x7f,
              bytes.count + UTF8.width(character) <= PasswordEntry.maximumBytes else { return }
        // Encoded byte by byte into the field: no String or Array of it.
        UTF8.encode(character) { bytes.append($0) }
        characterCount += 1
    }

    /// Removes the last character (all of its UTF-8 bytes).
    public func backspace() {
        guard !bytes.isEmpty else { return }
        repeat {
            let last = bytes[bytes.count - 1]
            bytes.removeLast()
            if last & 0xC0 != 0x80 { break }  // the lead byte of the character
        } while !bytes.isEmpty
        characterCount -= 1
    }

    /// Hands over the typed bytes themselves and leaves an empty field.
    public func take() -> Secret {
        var taken = Secret(capacity: PasswordEntry.maximumBytes)
        swap(&taken, &bytes)
        characterCount = 0
        return taken
    }

    public func clear() {
        bytes.removeAll()
        characterCount = 0
    }
}
