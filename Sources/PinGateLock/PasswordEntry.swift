import PinGateCore

/// The password field: UTF-8 bytes, shown as one symbol per character.
///
/// Its room is reserved once, so typing never moves the bytes (an array
/// that grows leaves its old storage, the password so far, to malloc
/// unwiped), and every byte is zeroed before it is let go.
public struct PasswordEntry: Sendable {
    public private(set) var bytes: [UInt8]
    public private(set) var characterCount = 0
    /// A password longer than this is not a password; further keys are ignored.
    public static let maximumBytes = 512

    public init() {
        bytes = [UInt8](secretScratchCapacity: PasswordEntry.maximumBytes)
    }

    public mutating func type(_ character: Unicode.Scalar) {
        guard character.value >= 0x20, character.value != 0x7f else { return }
        let encoded = Array(String(character).utf8)
        guard bytes.count + encoded.count <= PasswordEntry.maximumBytes else { return }
        bytes.append(contentsOf: encoded)
        characterCount += 1
    }

    /// Removes the last character (all of its UTF-8 bytes).
    public mutating func backspace() {
        guard !bytes.isEmpty else { return }
        repeat {
            let last = bytes[bytes.count - 1]
            bytes[bytes.count - 1] = 0
            bytes.removeLast()
            if last & 0xC0 != 0x80 { break }  // the lead byte of the character
        } while !bytes.isEmpty
        characterCount -= 1
    }

    /// Hands over the bytes and clears the field; the caller wipes them.
    public mutating func take() -> [UInt8] {
        let taken = bytes.separateCopy()
        clear()
        return taken
    }

    public mutating func clear() {
        bytes.wipe()
        bytes.removeAll(keepingCapacity: true)
        characterCount = 0
    }
}
