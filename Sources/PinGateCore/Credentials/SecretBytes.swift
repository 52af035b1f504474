import CSodium
#if DEBUG
import Synchronization
#endif

/// Bytes of a secret (a typed PIN or pattern, a pre-hash, the machine key).
///
/// A class so that there is exactly one copy: it never grows or reallocates,
/// and its storage is wiped with `sodium_memzero` when the last reference goes.
/// Swift `String`s cannot be wiped, so secrets travel as `SecretBytes` from the
/// moment they are read until they are hashed.
///
/// Sendable because its bytes never change once it is made: the only ways to
/// write them are the initialisers (`init(count:filling:)` reads straight
/// into the buffer). `SecretBuffer` is the growable, non-Sendable companion
/// for secrets typed a key at a time. Unchecked only because the storage is a
/// raw pointer, which the compiler cannot see through.
public final class SecretBytes: @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer

    public init(count: Int) {
        storage = .allocate(byteCount: max(count, 1), alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        self.count = count
    }

    /// `count` bytes written by `body` (say, read(2) straight into the
    /// buffer), and never changed afterwards.
    public convenience init(count: Int, filling body: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        self.init(count: count)
        try withUnsafeMutableBytes(body)
    }

    public convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(count: bytes.count)
        if bytes.count > 0 { storage.copyMemory(from: bytes) }
    }

    public convenience init<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        self.init(count: bytes.count)
        for (index, byte) in bytes.enumerated() { storage[index] = byte }
    }

    deinit {
        sodium_memzero(storage.baseAddress, storage.count)
        #if DEBUG
        SecretBytes.releaseObserver.withLock { $0 }?(UnsafeRawBufferPointer(storage))
        #endif
        storage.deallocate()
    }

    #if DEBUG
    /// Test seam (debug builds only): shown every buffer's storage as it is
    /// after the wipe and before it is freed, so a test can see the wipe.
    static let releaseObserver = Mutex<(@Sendable (UnsafeRawBufferPointer) -> Void)?>(nil)
    #endif

    public let count: Int
    public var isEmpty: Bool { count == 0 }

    public subscript(index: Int) -> UInt8 {
        precondition(index >= 0 && index < count, "SecretBytes index out of range")
        return storage[index]
    }

    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// The first `count` bytes, as a secret of their own.
    public func prefix(_ count: Int) -> SecretBytes {
        withUnsafeBytes { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<min(count, self.count)])) }
    }

    /// Write access, for this module's initialisers and `SecretBuffer` only.
    func withUnsafeMutableBytes<Result>(_ body: (UnsafeMutableRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeMutableRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// Constant-time equality (`sodium_memcmp`); lengths are not secret.
    public func constantTimeEquals(_ other: SecretBytes) -> Bool {
        guard count == other.count else { return false }
        return withUnsafeBytes { mine in
            other.withUnsafeBytes { theirs in
                sodium_memcmp(mine.baseAddress, theirs.baseAddress, count) == 0
            }
        }
    }

    /// A copy without leading and trailing ASCII spaces, tabs, CR and LF.
    public func trimmingWhitespace() -> SecretBytes {
        var start = 0
        var end = count
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        while start < end, isSpace(storage[start]) { start += 1 }
        while end > start, isSpace(storage[end - 1]) { end -= 1 }
        return SecretBytes(copying: UnsafeRawBufferPointer(rebasing: storage[start..<end]))
    }
}
