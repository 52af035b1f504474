import CSodium

/// Hashes and verifies credentials: Argon2id (libsodium's self-describing
/// `crypto_pwhash_str`) over a keyed pre-hash
/// `HMAC-SHA256(machine key, uid ‖ kind ‖ canonical secret)`.
///
/// The pre-hash binds a hash to one user and one kind (a record copied to
/// another uid, or a PIN typed where a pattern is enrolled, never verifies) and
/// to this machine's key (a stolen record is useless without it).
public struct CredentialHasher: Sendable {
    public let key: MachineKey
    public let parameters: KDFParameters

    /// Longest hash string libsodium writes, including its NUL.
    public static let hashStringCapacity = Int(crypto_pwhash_STRBYTES)

    public init(key: MachineKey, parameters: KDFParameters) {
        requireSodium()
        self.key = key
        self.parameters = parameters
    }

    public func hash(_ credential: Credential, uid: UInt32) throws -> String {
        let preHash = keyedPreHash(credential, uid: uid)
        var output = [CChar](repeating: 0, count: CredentialHasher.hashStringCapacity)
        let status = preHash.withUnsafeBytes { secret in
            crypto_pwhash_str(
                &output, secret.baseAddress!.assumingMemoryBound(to: CChar.self),
                UInt64(secret.count), parameters.operations, parameters.memoryBytes)
        }
        guard status == 0 else { throw HashingError.outOfMemory(bytes: parameters.memoryBytes) }
        return String(cString: output)
    }

    /// True when `credential` matches `hash`. libsodium's verify compares in
    /// constant time; a malformed hash string simply does not verify.
    public func verify(_ credential: Credential, uid: UInt32, against hash: String) -> Bool {
        let preHash = keyedPreHash(credential, uid: uid)
        return preHash.withUnsafeBytes { secret in
            crypto_pwhash_str_verify(hash, secret.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(secret.count)) == 0
        }
    }

    /// True when `hash` was made with other parameters than the current ones
    /// (or is not an Argon2id string): rehash it on the next success.
    public func needsRehash(_ hash: String) -> Bool {
        crypto_pwhash_str_needs_rehash(hash, parameters.operations, parameters.memoryBytes) != 0
    }

    func keyedPreHash(_ credential: Credential, uid: UInt32) -> SecretBytes {
        let output = SecretBytes(count: Int(crypto_auth_hmacsha256_BYTES))
        var state = crypto_auth_hmacsha256_state()
        defer { sodium_memzero(&state, MemoryLayout.size(ofValue: state)) }
        key.bytes.withUnsafeBytes { keyBytes in
            _ = crypto_auth_hmacsha256_init(&state, keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count)
        }
        let uidBytes: [UInt8] = [UInt8(uid >> 24), UInt8((uid >> 16) & 0xff), UInt8((uid >> 8) & 0xff), UInt8(uid & 0xff)]
        _ = crypto_auth_hmacsha256_update(&state, uidBytes, UInt64(uidBytes.count))
        var kind = credential.kind.rawValue
        _ = crypto_auth_hmacsha256_update(&state, &kind, 1)
        credential.canonicalBytes().withUnsafeBytes { secret in
            _ = crypto_auth_hmacsha256_update(&state, secret.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(secret.count))
        }
        output.withUnsafeMutableBytes { out in
            _ = crypto_auth_hmacsha256_final(&state, out.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return output
    }
}
