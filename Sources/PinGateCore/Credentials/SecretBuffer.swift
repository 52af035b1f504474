/// A fixed-capacity, growable view over `SecretBytes`: for secrets typed a key
/// at a time. It never reallocates, so no stray copy of a secret is left in
/// freed memory; `SecretBytes` wipes it. Not Sendable: it changes as keys come.
public final class SecretBuffer {
    private let storage: SecretBytes
    public private(set) var count = 0

    public init(capacity: Int) { storage = SecretBytes(count: capacity) }

    public var capacity: Int { storage.count }
    public var isEmpty: Bool { count == 0 }

    public subscript(index: Int) -> UInt8 { storage[index] }

    @discardableResult
    public func append(_ byte: UInt8) -> Bool {
        guard count < capacity else { return false }
        storage.withUnsafeMutableBytes { $0[count] = byte }
        count += 1
        return true
    }

    @discardableResult
    public func append(_ bytes: SecretBytes) -> Bool {
        guard count + bytes.count <= capacity else { return false }
        for index in 0..<bytes.count { append(bytes[index]) }
        return true
    }

    @discardableResult
    public func append(_ text: String) -> Bool {
        guard count + text.utf8.count <= capacity else { return false }
        for byte in text.utf8 { append(byte) }
        return true
    }

    public func removeLast() {
        guard count > 0 else { return }
        count -= 1
        storage.withUnsafeMutableBytes { $0[count] = 0 }
    }

    public func removeAll() {
        storage.withUnsafeMutableBytes { bytes in
            for index in 0..<count { bytes[index] = 0 }
        }
        count = 0
    }

    /// A copy of the bytes entered so far.
    public func bytes() -> SecretBytes {
        storage.withUnsafeBytes { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }
}
