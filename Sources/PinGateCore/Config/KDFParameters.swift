import CSodium

/// Argon2id cost parameters (libsodium's `opslimit` and `memlimit`).
/// The default is libsodium's "interactive" level: about 0.1 s and 64 MiB,
/// which with the lockout is far more than a 4-digit space needs online, and
/// keeps a `sudo` no slower than pam_unix's yescrypt.
public struct KDFParameters: Equatable, Sendable {
    public var operations: UInt64
    public var memoryBytes: Int

    public init(operations: UInt64, memoryBytes: Int) {
        self.operations = operations
        self.memoryBytes = memoryBytes
    }

    public static let `default` = KDFParameters(operations: 2, memoryBytes: 64 << 20)
    /// The smallest parameters libsodium accepts: for tests only.
    public static let minimal = KDFParameters(operations: 1, memoryBytes: 8 << 10)

    public static let operationsRange: ClosedRange<UInt64> = 1...64
    public static let memoryRange: ClosedRange<Int> = (8 << 10)...(4 << 30)
}
