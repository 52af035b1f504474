import CSodium

/// Argon2id cost parameters (libsodium's `opslimit` and `memlimit`).
///
/// The default, 2 passes over 16 MiB, is chosen against what it replaces:
/// pam_unix with Debian 12's default yescrypt (cost 5, 16 MiB). It uses the
/// same memory and, measured on one 2-core host in one run
/// (packaging/benchmarks/run.sh), a little more time (Argon2id t=2 m=16M
/// ≈ 27 ms, yescrypt ≈ 24 ms), so an offline guess costs an attacker at least
/// as much as a guess at the password hash; yet a whole PinGate
/// authentication through libpam (one helper run, one fdatasync) stays
/// below pam_unix's (about 0.45× in run.sh section 1), where libsodium's "interactive" t=2 m=64M
/// (≈ 120 ms) made it 2.8× slower. A 4-digit space is protected by the
/// lockout and the machine key, not by the KDF; a higher cost only slows
/// every sign-in. `pingate policy calibrate` picks other values per machine.
public struct KDFParameters: Equatable, Sendable {
    public var operations: UInt64
    public var memoryBytes: Int

    public init(operations: UInt64, memoryBytes: Int) {
        self.operations = operations
        self.memoryBytes = memoryBytes
    }

    public static let `default` = KDFParameters(operations: 2, memoryBytes: 16 << 20)
    /// The smallest parameters libsodium accepts: for tests only.
    public static let minimal = KDFParameters(operations: 1, memoryBytes: 8 << 10)

    public static let operationsRange: ClosedRange<UInt64> = 1...64
    public static let memoryRange: ClosedRange<Int> = (8 << 10)...(4 << 30)
}
