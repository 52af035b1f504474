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

    @Test("pages given back are kept for the next secret of their size, up to the pool's number; the rest are unmapped")
    func keptPagesAreReused() throws {
        // A pool of its own: the shared one is busy with other tests' secrets.
        // The wipe before the pages are given back is `wipedOnDeinit`'s.
        let pool = SecretPagePool(keeping: 2)
        let sets = (1...3).map { _ in pool.take(byteCount: memoryPageSize) }
        for set in sets { pool.give(set) }
        #expect(pool.isKept(sets[0].memory.address) && pool.isKept(sets[1].memory.address))
        #expect(!pool.isKept(sets[2].memory.address), "kept past the pool's number")
        let again = pool.take(byteCount: memoryPageSize)
        #expect(again.memory.address == sets[0].memory.address, "a kept set was not reused")
        #expect(!pool.isKept(again.memory.address), "a set taken is still kept")
        let other = pool.take(byteCount: 2 * memoryPageSize)
        #expect(other.memory.address != sets[1].memory.address, "a set of another size was handed out")
        for set in [again, other, pool.take(byteCount: memoryPageSize)] { set.memory.unmap() }
    }

    @Test("a pool filled ahead keeps as many sets as it may, zeroed, and the next secrets take them",
          .enabled(if: canLockPages, "needs RLIMIT_MEMLOCK room for a few pages"))
    func filledAhead() {
        let pool = SecretPagePool(keeping: 3)
        let held = pool.take(byteCount: 2 * memoryPageSize)
        pool.give(held)
        pool.fill(byteCount: memoryPageSize)
        #expect(pool.keptCount == 3, "filled up to the pool's number, the set already kept counted")
        let taken = (1...2).map { _ in pool.take(byteCount: memoryPageSize) }
        #expect(pool.keptCount == 1 && pool.isKept(held.memory.address), "the one-page sets came from the pool")
        #expect(taken[0].memory.address != taken[1].memory.address, "one set handed out twice")
        #expect(taken.allSatisfy { $0.isLockedInRAM }, "only locked sets are filled in")
        #expect(taken.allSatisfy { set in UnsafeRawBufferPointer(start: set.memory.address, count: set.memory.byteCount).allSatisfy { $0 == 0 } })
        pool.fill(byteCount: memoryPageSize)
        #expect(pool.keptCount == 3)
        for set in taken { pool.give(set) }
        #expect(pool.keptCount == 3, "a full pool unmaps what it is given")
    }

    @Test("a locked set is taken before an unlocked one of its size",
          .enabled(if: canLockPages, "needs RLIMIT_MEMLOCK room for a few pages"))
    func lockedSetsFirst() throws {
        let pool = SecretPagePool(keeping: 3)
        let unlocked = try (1...2).map { _ in
            SecretPagePool.Pages(memory: try MappedMemory.anonymous(byteCount: memoryPageSize), isLockedInRAM: false)
        }
        let memory = try MappedMemory.anonymous(byteCount: memoryPageSize)
        let locked = SecretPagePool.Pages(memory: memory, isLockedInRAM: (try? memory.lockInRAM()) != nil)
        try #require(locked.isLockedInRAM, "mlock refused here (RLIMIT_MEMLOCK)")
        pool.give(unlocked[0])
        pool.give(locked)
        pool.give(unlocked[1])
        let taken = pool.take(byteCount: memoryPageSize)
        #expect(taken.memory.address == locked.memory.address)
        taken.memory.unlockFromRAM()
        taken.memory.unmap()
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

/// Whether this process may lock a few pages: root, or RLIMIT_MEMLOCK room.
private let canLockPages: Bool = {
    guard let memory = try? MappedMemory.anonymous(byteCount: 4 * memoryPageSize) else { return false }
    defer { memory.unmap() }
    guard (try? memory.lockInRAM()) != nil else { return false }
    memory.unlockFromRAM()
    return true
}()
