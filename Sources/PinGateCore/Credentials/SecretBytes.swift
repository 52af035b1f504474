/// A `Secret` sealed for sharing inside the core: a parsed PIN's digits, a
/// pattern's cells, a pre-hash, the machine key, a request being parsed.
///
/// Values such as `PIN`, `Pattern` and `HelperRequest` are passed around and
/// kept, so they hold their secret by reference: this box owns the one
/// `Secret` (its pages, locked in RAM where allowed, wiped when the box goes)
/// and never lets its bytes out but through `withUnsafeBytes`. Typed input
/// arrives as a `Secret` and is handed in whole with `init(sealing:)`, without
/// a copy.
///
/// Sendable because its bytes never change once sealed (the module's fillers
/// write them before the box is shared). Unchecked only because the storage is
/// a raw pointer, which the compiler cannot see through.
public final class SecretBytes: @unchecked Sendable {
    private var secret: Secret

    /// Takes `secret` over: its bytes stay where they are.
    public init(sealing secret: consuming Secret) {
        self.secret = secret
    }

    /// `count` bytes written by `body` (say, read(2) straight into the
    /// buffer), and never changed afterwards.
    public convenience init(count: Int, filling body: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        self.init(sealing: try Secret(count: count, filling: body))
    }

    /// `count` zero bytes, for the module's fillers (`withUnsafeMutableBytes`).
    convenience init(count: Int) {
        self.init(count: count) { _ in }
    }

    public convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(sealing: Secret(copying: bytes))
    }

    public convenience init<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        var secret = Secret(capacity: bytes.count)
        for byte in bytes { secret.append(byte) }
        self.init(sealing: secret)
    }

    public var count: Int { secret.count }
    public var isEmpty: Bool { secret.isEmpty }

    public subscript(index: Int) -> UInt8 { secret[index] }

    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try secret.withUnsafeBytes(body)
    }

    /// Write access, for this module's fillers only, before the box is shared.
    func withUnsafeMutableBytes<Result>(_ body: (UnsafeMutableRawBufferPointer) throws -> Result) rethrows -> Result {
        try secret.withUnsafeMutableBytes(body)
    }

    /// Constant-time equality (`sodium_memcmp`); lengths are not secret.
    public func constantTimeEquals(_ other: SecretBytes) -> Bool {
        secret.constantTimeEquals(other.secret)
    }

    /// A copy without leading and trailing ASCII spaces, tabs, CR and LF.
    public func trimmingWhitespace() -> SecretBytes {
        SecretBytes(sealing: secret.trimmingWhitespace())
    }
}
