import CSodium

/// Hashes and verifies credentials: Argon2id (libsodium's self-describing
/// `crypto_pwhash_str`) over a keyed pre-hash
/// `HMAC-SHA256(machine key, uid ‖ kind ‖ canonical secret)`.
///
/// The pre-hash binds a hash to one user and one kind (a record copied to
/// another uid, or a PIN typed where a pattern is enrolled, never verifies) and
/// to this machine's key (a stolen record is useless without it).
///
/// `~Copyable`: it holds the machine key.
public struct CredentialHasher: ~Copyable, Sendable {
    public let key: MachineKey
    public let parameters: KDFParameters

    /// Longest hash string libsodium writes, including its NUL.
    public static let hashStringCapacity = Int(crypto_pwhash_STRBYTES)

    public init(key: consuming MachineKey, parameters: KDFParameters) {
        requireSodium()
        self.key = key
        self.parameters = parameters
    }

    public func hash(_ credential: borrowing Credential, uid: UInt32) throws -> String {
        let preHash = keyedPreHash(credential, uid: uid)
        var output = [CChar](repeating: 0, count: CredentialHasher.hashStringCapacity)
        let status = preHash.withUnsafeBytes { secret in
            crypto_pwhash_str(
                &output, secret.baseAddress!.assumingMemoryBound(to: CChar.self),
                UInt64(secret.count), parameters.operations, parameters.memoryBytes)
        }
        guard status == 0 else { throw HashingError.outOfMemory(bytes: parameters.memoryBytes) }
        let length = output.firstIndex(of: 0) ?? output.count
        return String(decoding: output[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// True when `credential` matches `hash`, false when it does not (or the
    /// hash is malformed: the verifier asks `needsRehashIfReadable` before
    /// it counts an attempt). libsodium compares in constant time. Throws when
    /// the KDF could not run at all (no memory): that is not a wrong secret.
    public func check(_ credential: borrowing Credential, uid: UInt32, against hash: String) throws -> Bool {
        let preHash = keyedPreHash(credential, uid: uid)
        let status = preHash.withUnsafeBytes { secret in
            crypto_pwhash_str_verify(hash, secret.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(secret.count))
        }
        if status == 0 { return true }
        // libsodium 1.0.18 answers -1 with EINVAL both for a mismatch and for
        // a KDF that could not get its memory; tell them apart by asking for
        // that memory again.
        guard canAllocateWorkingMemory(toVerify: hash) else {
            throw HashingError.kdfFailed(.outOfMemory)
        }
        return false
    }

    /// `check` with "could not run" counted as no match (for tests and tools).
    public func verify(_ credential: borrowing Credential, uid: UInt32, against hash: String) -> Bool {
        (try? check(credential, uid: uid, against: hash)) ?? false
    }

    /// Whether the KDF's working memory can be had right now. The verifier
    /// asks before counting, so a process under a tight memory limit (a
    /// locker in a cgroup, `ulimit -v`) gets an error without spending an
    /// attempt, instead of a count and a failure it could not avoid.
    /// Verifying uses the cost recorded in `hash` (`m=` KiB), not the current
    /// parameters.
    public func canAllocateWorkingMemory(toVerify hash: String) -> Bool {
        let bytes = CredentialHasher.memoryBytes(of: hash) ?? parameters.memoryBytes
        // mmap, as libsodium's Argon2 does; a malloc/free pair the optimiser may remove.
        guard let memory = try? MappedMemory.anonymous(byteCount: bytes) else { return false }
        memory.unmap()
        return true
    }

    /// The memory cost of an Argon2 hash string ("$argon2id$v=19$m=16384,…"):
    /// the ASCII digits after the first "$"-separated field's "m=" (libsodium
    /// writes nothing else there). Read at its bytes: a Character `split`
    /// cost every verify ~50,000 instructions.
    static func memoryBytes(of hash: String) -> Int? {
        let utf8 = hash.utf8
        var fieldStart = utf8.startIndex
        while fieldStart != utf8.endIndex {
            if utf8[fieldStart...].starts(with: "m=".utf8) {
                var kibibytes = 0
                var index = utf8.index(fieldStart, offsetBy: 2)
                while index != utf8.endIndex, case let digit = utf8[index], digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") {
                    kibibytes = kibibytes * 10 + Int(digit - UInt8(ascii: "0"))
                    guard kibibytes <= 1 << 32 else { return nil }
                    index = utf8.index(after: index)
                }
                return index == utf8.index(fieldStart, offsetBy: 2) ? nil : kibibytes * 1024
            }
            guard let separator = utf8[fieldStart...].firstIndex(of: UInt8(ascii: "$")) else { return nil }
            fieldStart = utf8.index(after: separator)
        }
        return nil
    }

    /// Whether `hash` was made with other parameters than the current ones
    /// (rehash it on the next success); nil when libsodium's decoder, which
    /// `crypto_pwhash_str_verify` uses too, cannot read it (a leading zero
    /// in a number, a memory cost it does not allow, a missing field). Asked
    /// before an attempt is counted: a hash it cannot read would fail every
    /// credential, the right one included, as wrong.
    public func needsRehashIfReadable(_ hash: String) -> Bool? {
        switch crypto_pwhash_str_needs_rehash(hash, parameters.operations, parameters.memoryBytes) {
        case -1: nil
        case 0: false
        default: true
        }
    }

    /// True when `hash` was made with other parameters than the current ones
    /// (or is not an Argon2id string): rehash it on the next success.
    public func needsRehash(_ hash: String) -> Bool {
        needsRehashIfReadable(hash) ?? true
    }

    func keyedPreHash(_ credential: borrowing Credential, uid: UInt32) -> Secret {
        keyedDigest(domain: [], credential, uid: uid)
    }

    /// The domain of `repeatTag`: never equal to a pre-hash, which has none.
    static let repeatDomain = Array("pingate repeat-tag v1\u{0}".utf8)

    /// `HMAC-SHA256(machine key, "pingate repeat-tag v1\0" ‖ uid ‖ kind ‖
    /// canonical secret)`: how the record remembers the last credential
    /// verified wrong, so the same wrong answer again is not counted again.
    /// Microseconds, not the KDF; useless without the key, like the hash.
    /// A `Secret`, wiped when dropped: with the key, 10⁴ HMACs turn a tag
    /// back into its PIN, and every attempt makes one (the right PIN's too)
    /// before it is counted.
    public func repeatTag(_ credential: borrowing Credential, uid: UInt32) -> Secret {
        keyedDigest(domain: CredentialHasher.repeatDomain, credential, uid: uid)
    }

    private func keyedDigest(domain: [UInt8], _ credential: borrowing Credential, uid: UInt32) -> Secret {
        var state = crypto_auth_hmacsha256_state()
        defer { sodium_memzero(&state, MemoryLayout.size(ofValue: state)) }
        key.bytes.withUnsafeBytes { keyBytes in
            _ = crypto_auth_hmacsha256_init(&state, keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count)
        }
        if !domain.isEmpty { _ = crypto_auth_hmacsha256_update(&state, domain, UInt64(domain.count)) }
        let uidBytes: [UInt8] = [UInt8(uid >> 24), UInt8((uid >> 16) & 0xff), UInt8((uid >> 8) & 0xff), UInt8(uid & 0xff)]
        _ = crypto_auth_hmacsha256_update(&state, uidBytes, UInt64(uidBytes.count))
        var kind = credential.kind.rawValue
        _ = crypto_auth_hmacsha256_update(&state, &kind, 1)
        credential.withCanonicalBytes { canonical in
            canonical.withUnsafeBytes { secret in
                _ = crypto_auth_hmacsha256_update(&state, secret.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(secret.count))
            }
        }
        return Secret(count: Int(crypto_auth_hmacsha256_BYTES)) { out in
            _ = crypto_auth_hmacsha256_final(&state, out.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }
}
