import Testing
@testable import PinGateCore

@Suite("Keyed Argon2id hashing")
struct HashingTests {
    /// One machine key for the suite, made afresh for each hasher (a key
    /// cannot be copied into several).
    let keyBytes: [UInt8] = (0..<MachineKey.byteCount).map { _ in UInt8.random(in: 0...255) }
    var key: MachineKey { try! MachineKey(bytes: Secret(copying: keyBytes)) }
    let policy = Policy()

    func credential(_ text: String, _ kind: CredentialKind = .pin) throws -> Credential {
        try Credential(parsing: secret(text), kind: kind, gridSize: 3, policy: policy)
    }

    func hasher(_ key: consuming MachineKey, _ parameters: KDFParameters = .minimal) -> CredentialHasher {
        CredentialHasher(key: key, parameters: parameters)
    }

    @Test("the right secret verifies, a wrong one does not")
    func roundTrip() throws {
        let hash = try hasher(key).hash(credential("0427"), uid: 1000)
        #expect(hash.hasPrefix("$argon2id$"))
        #expect(hasher(key).verify(try credential("0427"), uid: 1000, against: hash))
        #expect(!hasher(key).verify(try credential("0428"), uid: 1000, against: hash))
    }

    @Test("a different machine key does not verify")
    func otherKey() throws {
        let hash = try hasher(key).hash(credential("0427"), uid: 1000)
        #expect(!hasher(MachineKey.generate()).verify(try credential("0427"), uid: 1000, against: hash))
    }

    @Test("a different uid does not verify")
    func otherUID() throws {
        let hash = try hasher(key).hash(credential("0427"), uid: 1000)
        #expect(!hasher(key).verify(try credential("0427"), uid: 1001, against: hash))
    }

    @Test("a different kind does not verify, even with the same digits")
    func otherKind() throws {
        // PIN "1596" vs pattern 1-5-9-6: different canonical text and kind byte.
        let pinHash = try hasher(key).hash(credential("1596"), uid: 1000)
        #expect(!hasher(key).verify(try credential("1596", .pattern), uid: 1000, against: pinHash))
        // Same canonical bytes under both kinds must still differ: check the pre-hash.
        let pin = try credential("1596")
        let pattern = try credential("1-5-9-6", .pattern)
        let same = hasher(key).keyedPreHash(pin, uid: 1).constantTimeEquals(hasher(key).keyedPreHash(pattern, uid: 1))
        #expect(!same)
    }

    @Test("salts differ: hashing twice gives two strings that both verify")
    func salted() throws {
        let first = try hasher(key).hash(credential("0427"), uid: 1)
        let second = try hasher(key).hash(credential("0427"), uid: 1)
        #expect(first != second)
        #expect(hasher(key).verify(try credential("0427"), uid: 1, against: first))
        #expect(hasher(key).verify(try credential("0427"), uid: 1, against: second))
    }

    @Test("a changed cost parameter reports needs-rehash; the same does not")
    func needsRehash() throws {
        let hash = try hasher(key).hash(credential("0427"), uid: 1)
        func needsRehash(_ hash: String, _ parameters: KDFParameters = .minimal) -> Bool {
            hasher(key, parameters).needsRehash(hash)
        }
        #expect(!needsRehash(hash))
        #expect(needsRehash(hash, KDFParameters(operations: 2, memoryBytes: 8 << 10)))
        #expect(needsRehash(hash, KDFParameters(operations: 1, memoryBytes: 16 << 10)))
        #expect(needsRehash("not a hash"))
    }

    @Test("a garbage hash string never verifies")
    func garbageHash() throws {
        #expect(!hasher(key).verify(try credential("0427"), uid: 1, against: ""))
        #expect(!hasher(key).verify(try credential("0427"), uid: 1, against: "$argon2id$v=19$m=8,t=1,p=1$AAAA$AAAA"))
    }
}

@Suite("The KDF's working memory")
struct KDFMemoryTests {
    @Test("the memory cost is read from the hash string, which is what verification uses")
    func memoryFromHash() {
        #expect(CredentialHasher.memoryBytes(of: "$argon2id$v=19$m=16384,t=2,p=1$c2FsdA$aGFzaA") == 16 << 20)
        #expect(CredentialHasher.memoryBytes(of: "$argon2id$v=19$m=8,t=1,p=1$c2FsdA$aGFzaA") == 8 << 10)
        #expect(CredentialHasher.memoryBytes(of: "garbage") == nil)
        // Read at its bytes: the first field that starts with "m=", its digits.
        #expect(CredentialHasher.memoryBytes(of: "m=4$argon2id") == 4 << 10)
        #expect(CredentialHasher.memoryBytes(of: "$argon2id$v=19$m=,t=1$m=8") == nil, "the first m= field has no digits")
        #expect(CredentialHasher.memoryBytes(of: "$argon2id$xm=8$m=12abc") == 12 << 10)
        #expect(CredentialHasher.memoryBytes(of: "$argon2id$m=\u{0663}") == nil, "not an ASCII digit")
        #expect(CredentialHasher.memoryBytes(of: "$argon2id$m=4294967296") == 4_294_967_296 << 10)
        #expect(CredentialHasher.memoryBytes(of: "$argon2id$m=4294967297") == nil, "over 2^32 KiB")
        #expect(CredentialHasher.memoryBytes(of: "$argon2id$m=99999999999999999999999") == nil)
    }
}
