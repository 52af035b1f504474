import CSodium
import Glibc
import Testing
@testable import PinGateCore

// Parsing a pattern or judging a new PIN must not leave a copy of the secret
// in freed memory: an array that grows (or is copied and dropped) frees its
// old storage as it is. These tests look at the freed memory itself, with
// `FreedMemoryProbe`: right after the operation, on the same thread, malloc
// hands back the chunks just freed without clearing them.
//
// Other suites run in parallel and free their own patterns and PINs into
// the same heap, so every secret and needle here is one no other test uses.
//
// What they can see: copies in freed heap chunks of up to ~1 KiB that were
// still unused when the probe ran, in the representations named below (Int
// or byte arrays of cells and digits, the canonical text's prefix). What
// they cannot: copies on the stack or in registers, Swift small strings
// (kept inline, never on the heap), chunks that another allocation took
// first, and representations not listed. A pass is evidence, not proof.
@Suite("No copy of a secret is left in freed memory", .serialized)
struct SecretCopiesTests {
    /// A 6×6 pattern whose steps cross cells (1-3 adds 2, 36-6 adds four):
    /// normalised 1-2-3-9-15-14-13-19-25-36-30-24-18-12-6.
    static let typed6x6 = "1,3,15,13,25,36,6"
    static let cells6x6: [Int] = [1, 2, 3, 9, 15, 14, 13, 19, 25, 36, 30, 24, 18, 12, 6]

    @Test("the probe sees an array dropped without a wipe (else the other tests here prove nothing)")
    func probeSeesAnUnwipedArray() {
        let marker = [7, 31, 7, 31, 5, 17]
        let found = FreedMemoryProbe.holds([FreedMemoryProbe.intBytes([7, 31, 7, 31, 5, 17])]) { dropUnwiped(marker) }
        #expect(found == [true])
    }

    @Test("parsing and normalising a 6×6 pattern with gaps leaves no copy of its cells")
    func patternLeavesNoCopy() throws {
        let grid = try PatternGrid(size: 6)
        let input = secret(SecretCopiesTests.typed6x6)
        let needles = [
            SecretCopiesTests.cells6x6.map { UInt8($0) },                               // the path as bytes
            FreedMemoryProbe.intBytes([1, 2, 3, 9, 15, 14]),                           // as Ints
        ]
        let found = try FreedMemoryProbe.holds(needles) {
            _ = try Pattern(parsing: input, expectedGrid: grid, minimumCells: 4)
        }
        #expect(found == [false, false], "copies left: \(found)")
    }

    @Test("a pattern's canonical text leaves no shorter copy of itself behind")
    func canonicalTextLeavesNoCopy() throws {
        // A long text (45 bytes), so that one grown by appending outgrows a
        // buffer that held its first bytes; "6:31-26-" begins no other test's.
        let typed = "31,26,21,16,11,6,12,18,24,30,36,35,34,33,32"
        let pattern = try Pattern(parsing: secret(typed), expectedGrid: PatternGrid(size: 6), minimumCells: 4)
        let found = FreedMemoryProbe.holds([Array("6:31-26-".utf8)]) { _ = pattern.canonicalText() }
        #expect(found == [false], "copies left: \(found)")
    }

    @Test("the one-digit-per-cell form on 3×3 leaves no copy of its digits")
    func digitFormLeavesNoCopy() throws {
        let grid = try PatternGrid(size: 3)
        let input = secret("741852")
        let needles = [FreedMemoryProbe.intBytes([7, 4, 1]), [7, 4, 1, 8, 5, 2]]
        let found = try FreedMemoryProbe.holds(needles) {
            _ = try Pattern(parsing: input, expectedGrid: grid, minimumCells: 4).canonicalText()
        }
        #expect(found == [false, false], "copies left: \(found)")
    }

    @Test("judging a new PIN's weakness leaves no copy of its digits")
    func weaknessLeavesNoCopy() throws {
        let pin = try PIN(parsing: secret("9586"), minimumLength: 4, maximumLength: 4)
        let found = FreedMemoryProbe.holds([FreedMemoryProbe.intBytes([9, 5, 8, 6])]) {
            #expect(pin.weakness() == nil)
        }
        #expect(found == [false], "copies left: \(found)")
    }

    /// With the machine key, a repeat tag names the PIN it was made from (10⁴
    /// HMACs try every PIN), so the tag of the right PIN, made for every
    /// attempt before it is counted, must be wiped like the PIN.
    @Test("verifying the right PIN leaves no copy of its repeat tag")
    func repeatTagLeavesNoCopy() throws {
        let store = try TestStore()
        try store.enrollPIN("6038", uid: 1000)
        let needle = try Self.repeatTag(of: "6038", uid: 1000, store: store)
        let input = secret("6038")
        let found = FreedMemoryProbe.holds([needle]) {
            #expect(store.verifier.verify(uid: 1000, input: input) == .ok)
        }
        #expect(found == [false], "copies left: \(found)")
    }

    /// `CredentialHasher.repeatTag` of a PIN, made here straight into the
    /// one array the probe looks for: asking the hasher would leave a copy
    /// of its own for the probe to find, whatever the verifier does.
    static func repeatTag(of pin: String, uid: UInt32, store: TestStore) throws -> [UInt8] {
        var tag = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
        var state = crypto_auth_hmacsha256_state()
        let key = try store.store.loadKey()
        key.bytes.withUnsafeBytes { bytes in
            _ = crypto_auth_hmacsha256_init(&state, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count)
        }
        let message = CredentialHasher.repeatDomain
            + [UInt8(uid >> 24), UInt8((uid >> 16) & 0xff), UInt8((uid >> 8) & 0xff), UInt8(uid & 0xff), CredentialKind.pin.rawValue]
            + Array(pin.utf8)
        _ = crypto_auth_hmacsha256_update(&state, message, UInt64(message.count))
        _ = crypto_auth_hmacsha256_final(&state, &tag)
        return tag
    }
}

/// Makes and drops an array without wiping it: the probe's positive control.
@inline(never)
private func dropUnwiped(_ values: [Int]) {
    var copy = [Int]()
    for value in values { copy.append(value) }
    blackHole(copy)
}

@inline(never)
private func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

/// Reads the heap chunks malloc hands out next on this thread, which are
/// the ones freed last (glibc's per-thread cache first, then the arena's
/// bins), for byte strings left in them.
enum FreedMemoryProbe {
    /// Chunk sizes probed: every 16-byte class from 32 to 1,056 bytes.
    static let requests = stride(from: 24, through: 1_048, by: 16).map { $0 }
    /// Chunks drawn per size: more than glibc's cache holds per size (7).
    static let draws = 24

    /// Runs `operation`, then draws chunks of every probed size and reports,
    /// for each needle, whether any chunk holds it. Everything the probe
    /// needs is allocated before the operation, so that it takes none of
    /// the chunks the operation freed for itself.
    static func holds(_ needles: [[UInt8]], after operation: () throws -> Void) rethrows -> [Bool] {
        let slots = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: requests.count * draws)
        defer { slots.deallocate() }
        var found = [Bool](repeating: false, count: needles.count)
        try operation()
        var slot = 0
        for request in requests {
            for _ in 0..<draws {
                slots[slot] = malloc(request)
                slot += 1
            }
        }
        for index in 0..<slot {
            // A request of 16k - 8 bytes is a chunk of 16k, all of it usable.
            guard let chunk = slots[index] else { continue }
            let bytes = UnsafeRawBufferPointer(start: chunk, count: requests[index / draws])
            for (needleIndex, needle) in needles.enumerated() where !found[needleIndex] {
                found[needleIndex] = contains(bytes, needle)
            }
        }
        for index in 0..<slot { free(slots[index]) }
        return found
    }

    private static func contains(_ haystack: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
        guard let base = haystack.baseAddress, haystack.count >= needle.count, let first = needle.first else { return false }
        return needle.withUnsafeBytes { wanted in
            var start = 0
            while start <= haystack.count - needle.count {
                if haystack[start] == first, memcmp(base + start, wanted.baseAddress!, needle.count) == 0 { return true }
                start += 1
            }
            return false
        }
    }

    /// The bytes of an [Int] of `values` as they lie in its storage (little
    /// endian, 8 bytes each), made without such an array: one made here and
    /// dropped would be found by the probe itself.
    static func intBytes(_ values: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * MemoryLayout<Int>.size)
        for value in values {
            bytes.append(value)
            bytes.append(contentsOf: repeatElement(0, count: MemoryLayout<Int>.size - 1))
        }
        return bytes
    }
}
