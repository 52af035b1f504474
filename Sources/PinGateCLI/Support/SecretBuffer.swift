import PinGateCore

/// A fixed-capacity, growable view over `SecretBytes`: for secrets typed a key
/// at a time or assembled into a helper request. It never reallocates, so no
/// stray copy of a secret is left in freed memory; `SecretBytes` wipes it.
final class SecretBuffer {
    private let storage: SecretBytes
    private(set) var count = 0

    init(capacity: Int) { storage = SecretBytes(count: capacity) }

    var capacity: Int { storage.count }
    var isEmpty: Bool { count == 0 }

    subscript(index: Int) -> UInt8 { storage[index] }

    @discardableResult
    func append(_ byte: UInt8) -> Bool {
        guard count < capacity else { return false }
        storage.withUnsafeMutableBytesForReading { $0[count] = byte }
        count += 1
        return true
    }

    @discardableResult
    func append(_ bytes: SecretBytes) -> Bool {
        guard count + bytes.count <= capacity else { return false }
        for index in 0..<bytes.count { append(bytes[index]) }
        return true
    }

    @discardableResult
    func append(_ text: String) -> Bool {
        guard count + text.utf8.count <= capacity else { return false }
        for byte in text.utf8 { append(byte) }
        return true
    }

    func removeLast() {
        guard count > 0 else { return }
        count -= 1
        storage.withUnsafeMutableBytesForReading { $0[count] = 0 }
    }

    func removeAll() {
        storage.withUnsafeMutableBytesForReading { bytes in
            for index in 0..<count { bytes[index] = 0 }
        }
        count = 0
    }

    /// A copy of the bytes entered so far.
    func bytes() -> SecretBytes {
        storage.withUnsafeBytes { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }
}
