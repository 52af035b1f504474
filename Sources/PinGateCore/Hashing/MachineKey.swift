import CSodium

/// The 32-byte secret that keys every pre-hash. Without it a stolen record is
/// useless offline; with it, 10⁴ PINs fall to brute force, so it lives in the
/// store, readable only by root and the `pingate` group.
///
/// `~Copyable`, as the `Secret` that holds it: lent to the hasher that keys
/// with it and to the file that keeps it, never copied.
public struct MachineKey: ~Copyable, Sendable {
    public static let byteCount = 32
    public let bytes: Secret

    public init(bytes: consuming Secret) throws {
        guard bytes.count == MachineKey.byteCount else { throw HashingError.badKeyLength(bytes.count) }
        self.bytes = bytes
    }

    /// A fresh random key from libsodium's CSPRNG (getrandom).
    public static func generate() -> MachineKey {
        requireSodium()
        let bytes = Secret(count: byteCount) { randombytes_buf($0.baseAddress!, $0.count) }
        // Force-try is safe: the length is ours.
        return try! MachineKey(bytes: bytes)
    }
}

public enum HashingError: Error, Equatable, CustomStringConvertible, Sendable {
    case badKeyLength(Int)
    case outOfMemory(bytes: Int)
    case kdfFailed(Errno)
    /// The record's hash is no Argon2id string libsodium can check.
    case unreadableHash

    public var description: String {
        switch self {
        case let .badKeyLength(count):
            return "the machine key is \(count) bytes; it must be \(MachineKey.byteCount)"
        case let .outOfMemory(bytes):
            return "Argon2id could not allocate \(bytes >> 20) MiB; lower kdf_memory in pingate.conf"
        case let .kdfFailed(reason):
            return "Argon2id could not run (\(reason)); the attempt was counted but not checked"
        case .unreadableHash:
            return "the record's hash is no Argon2id string libsodium can check; nothing was counted (enrol the user again: pingate enroll --force)"
        }
    }
}
