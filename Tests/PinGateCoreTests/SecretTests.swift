import Synchronization
import Testing
@testable import PinGateCore

@Suite("Secret: one copy, in pages of its own, wiped")
struct SecretTests {
    /// Runs `body` with the release observer watching the secret at
    /// `address` (another test's secrets may be released meanwhile) and
    /// returns its pages as they were after the wipe.
    func pagesAtRelease(of address: UInt, _ body: () -> Void) -> [UInt8]? {
        let seen = Mutex<[UInt8]?>(nil)
        Secret.releaseObserver.withLock {
            $0 = { pages in if UInt(bitPattern: pages.baseAddress) == address { seen.withLock { $0 = Array(pages) } } }
        }
        defer { Secret.releaseObserver.withLock { $0 = nil } }
        body()
        return seen.withLock { $0 }
    }

    @Test("its pages, every byte of them, are zero when it is dropped")
    func wipedOnDeinit() throws {
        var secret: Secret? = Secret(capacity: 12)
        let address = secret!.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        for byte in "739146285013".utf8 { secret!.append(byte) }
        let pages = try #require(pagesAtRelease(of: address) { secret = nil }, "the secret was never released")
        #expect(pages.count >= 4096)
        #expect(pages.allSatisfy { $0 == 0 }, "left in memory: \(pages.prefix(16))")
    }

    @Test("pages kept for the next secret come back wiped, and the next secret of their size gets them")
    func keptPagesComeBackWiped() {
        // A size no other test uses, so a parallel test cannot take these pages.
        let capacity = 5 * memoryPageSize - 7
        var first: Secret? = Secret(capacity: capacity)
        let address = first!.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        for byte in "739146285013".utf8 { first!.append(byte) }
        first = nil
        let second = Secret(capacity: capacity)
        let reusedAddress = second.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        let isEmpty = second.isEmpty
        #expect(isEmpty)
        // Read only if they are the same pages: others may be unmapped.
        guard reusedAddress == address else { Issue.record("the kept pages were not reused"); return }
        let room = UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: address), count: 5 * memoryPageSize)
        #expect(room.allSatisfy { $0 == 0 }, "a kept page still holds: \(room.prefix(16))")
    }

    @Test("a secret handed on keeps its pages, and is wiped when its new holder lets go")
    func handedOnThenWiped() throws {
        let secret = Secret(copying: [UInt8](repeating: 0x5A, count: MachineKey.byteCount))
        let address = secret.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        var key: MachineKey? = try MachineKey(bytes: secret)
        let kept: UInt? = switch key {
        case let .some(key): key.bytes.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        case .none: nil
        }
        #expect(kept == address)
        let pages = try #require(pagesAtRelease(of: address) { key = nil }, "the secret was never released")
        #expect(pages.allSatisfy { $0 == 0 })
    }

    @Test("appending fills the room made at the start, never moving, and stops at its capacity")
    func appendsInPlace() {
        var secret = Secret(capacity: 5)
        let start = secret.withUnsafeBytes { $0.baseAddress }
        var appended: [Bool] = []
        for byte in "123456".utf8 { appended.append(secret.append(byte)) }
        #expect(appended == [true, true, true, true, true, false])
        #expect(secret.isFull && secret.count == 5)
        #expect(secret.withUnsafeBytes { $0.baseAddress } == start)
        #expect(secret.withUnsafeBytes { Array($0) } == Array("12345".utf8))
    }

    @Test("what is taken back is zeroed: the last byte, or all of them")
    func removalZeroes() {
        var secret = Secret(capacity: 4)
        for byte in "4829".utf8 { secret.append(byte) }
        let base = secret.withUnsafeBytes { $0.baseAddress! }
        secret.removeLast()
        #expect(secret.count == 3 && base.load(fromByteOffset: 3, as: UInt8.self) == 0)
        secret.removeAll()
        #expect(secret.isEmpty && (0..<4).allSatisfy { base.load(fromByteOffset: $0, as: UInt8.self) == 0 })
    }

    @Test("bytes written straight into the room are counted")
    func writtenAndSealed() {
        var secret = Secret(capacity: 16)
        let written = secret.appendWritten { room in
            for (index, byte) in "0427".utf8.enumerated() { room[index] = byte }
            return 4
        }
        #expect(written == 4 && secret.count == 4)
        let same = secret.constantTimeEquals(Secret(copying: "0427".utf8))
        #expect(same)
    }

    @Test("trimming makes a secret of its own without the surrounding whitespace")
    func trimming() {
        var padded = Secret(capacity: 8)
        for byte in " \t0427\r\n".utf8 { padded.append(byte) }
        #expect(padded.trimmingWhitespace().withUnsafeBytes { Array($0) } == Array("0427".utf8))
    }
}
