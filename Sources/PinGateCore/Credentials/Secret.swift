import CSodium
import Synchronization

/// The bytes of a secret — a typed PIN, pattern or password, a request that
/// carries one, a pre-hash, the machine key — in memory of its own.
///
/// `~Copyable`, so that no copy can be made by accident: an assignment, a
/// capture or copy-on-write duplicates an Array or a String and frees the old
/// storage unwiped, but a `Secret` can only be lent (`borrowing`, and its
/// bytes read through `withUnsafeBytes`) or handed on (`consuming`), and then
/// the one who had it has it no longer.
///
/// Its room is whole pages of its own from mmap(2), fixed when it is made:
/// `append` writes into them a byte at a time and nothing can make them grow,
/// so the bytes never move. The pages are locked in RAM where RLIMIT_MEMLOCK
/// allows (out of swap), and where it does not — a user may set it to 0 — the
/// secret works the same, unlocked; they are left out of core dumps
/// (MADV_DONTDUMP). `deinit` wipes them with `sodium_memzero`, which the
/// optimiser may not drop as a dead store, before they go back to
/// `SecretPagePool` for the next secret, or are unmapped.
public struct Secret: ~Copyable {
    private let memory: MappedMemory
    /// The most bytes it will ever hold.
    public let capacity: Int
    public private(set) var count = 0
    /// Whether mlock(2) took; false when RLIMIT_MEMLOCK did not allow it.
    public var isLockedInRAM: Bool { lockRefusal == nil }
    /// Why mlock(2) refused the pages (ENOMEM: over RLIMIT_MEMLOCK; EPERM:
    /// a limit of 0, or a seccomp filter); nil when they are locked.
    public let lockRefusal: Errno?

    /// An empty secret with room for `capacity` bytes.
    public init(capacity: Int) {
        let pages = SecretPagePool.shared.take(byteCount: max(1, (capacity + memoryPageSize - 1) / memoryPageSize) * memoryPageSize)
        memory = pages.memory
        lockRefusal = pages.lockRefusal
        self.capacity = capacity
    }

    /// `count` bytes written by `body` (read(2) straight in, an HMAC's output).
    public init(count: Int, filling body: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        self.init(capacity: count)
        self.count = count
        try body(UnsafeMutableRawBufferPointer(start: memory.address, count: count))
    }

    public init(copying bytes: UnsafeRawBufferPointer) {
        self.init(capacity: bytes.count)
        for byte in bytes { append(byte) }
    }

    /// A copy of bytes that are no secret of their own: a test's literal, a
    /// sample PIN to time the KDF with.
    public init(copying bytes: some Collection<UInt8>) {
        self.init(capacity: bytes.count)
        for byte in bytes { append(byte) }
    }

    deinit {
        sodium_memzero(memory.address, memory.byteCount)
        #if DEBUG
        Secret.releaseObserver.withLock { $0 }?(UnsafeRawBufferPointer(start: memory.address, count: memory.byteCount))
        #endif
        SecretPagePool.shared.give(SecretPagePool.Pages(memory: memory, isLockedInRAM: lockRefusal == nil))
    }

    /// Maps and locks pages for the next secrets of up to a page each, as
    /// many as `SecretPagePool` keeps and RLIMIT_MEMLOCK allows: for a run
    /// that waits anyway (the helper while the user types), so that its
    /// next secrets cost no system call.
    public static func prepareRoom() {
        SecretPagePool.shared.fill(byteCount: memoryPageSize)
    }

    #if DEBUG
    /// Test seam (debug builds only): shown every secret's pages as they are
    /// after the wipe and before they are given back, so a test can see the wipe.
    static let releaseObserver = Mutex<(@Sendable (UnsafeRawBufferPointer) -> Void)?>(nil)
    #endif

    public var isEmpty: Bool { count == 0 }
    public var isFull: Bool { count == capacity }

    public subscript(index: Int) -> UInt8 {
        precondition(index >= 0 && index < count, "Secret index out of range")
        return memory.address.load(fromByteOffset: index, as: UInt8.self)
    }

    /// Adds one byte; false (and nothing changes) when the room is full.
    @discardableResult
    public mutating func append(_ byte: UInt8) -> Bool {
        guard count < capacity else { return false }
        memory.address.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
        return true
    }

    /// Adds the bytes `body` writes into the room left (read(2) straight in)
    /// and returns how many: `body` returns that, at most the room it was given.
    @discardableResult
    public mutating func appendWritten(by body: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows -> Int {
        let room = UnsafeMutableRawBufferPointer(start: memory.address + count, count: capacity - count)
        let written = try body(room)
        precondition(written >= 0 && written <= room.count, "wrote outside a secret's room")
        count += written
        return written
    }

    /// Drops the last byte, zeroing it.
    public mutating func removeLast() {
        guard count > 0 else { return }
        count -= 1
        memory.address.storeBytes(of: 0, toByteOffset: count, as: UInt8.self)
    }

    /// Drops every byte, zeroing them; the room stays for the next entry.
    public mutating func removeAll() {
        sodium_memzero(memory.address, count)
        count = 0
    }

    /// Lends the bytes to `body`, which must not keep them.
    public func withUnsafeBytes<Result: ~Copyable>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: memory.address, count: count))
    }

    /// Write access to the bytes held, for this module's own fillers.
    mutating func withUnsafeMutableBytes<Result>(_ body: (UnsafeMutableRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeMutableRawBufferPointer(start: memory.address, count: count))
    }

    /// Constant-time equality (`sodium_memcmp`); lengths are not secret.
    public func constantTimeEquals(_ other: borrowing Secret) -> Bool {
        guard count == other.count else { return false }
        return sodium_memcmp(memory.address, other.memory.address, count) == 0
    }

    /// Constant-time equality with bytes that are no secret of their own (a
    /// record's tag of a wrong answer); lengths are not secret.
    public func constantTimeEquals(_ bytes: [UInt8]) -> Bool {
        guard count == bytes.count else { return false }
        return bytes.withUnsafeBytes { sodium_memcmp(memory.address, $0.baseAddress, count) == 0 }
    }

    /// Bytes `range` as a secret of their own.
    public func extracting(_ range: Range<Int>) -> Secret {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "Secret range out of bounds")
        return withUnsafeBytes { Secret(copying: UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// A copy without leading and trailing ASCII spaces, tabs, CR and LF.
    public func trimmingWhitespace() -> Secret {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        var start = 0
        var end = count
        while start < end, isSpace(self[start]) { start += 1 }
        while end > start, isSpace(self[end - 1]) { end -= 1 }
        return extracting(start..<end)
    }
}

/// One owner at a time (it cannot be copied), and a change needs that
/// owner's exclusive access: handing it to another thread hands it over.
/// Unchecked only because the pages are a raw pointer.
extension Secret: @unchecked Sendable {}

/// Wiped pages kept for the next `Secret`, mapped, locked where allowed and
/// left out of core dumps already. Making a secret's pages costs five system
/// calls (mmap, mlock, madvise, then munlock, munmap), ~11 µs here, and a
/// helper run makes eight secrets, most of them one after another. Kept, a
/// status run maps two sets, and a status followed by its verify maps the
/// rest while it waits for the verify (`fill`): five sets are what that run
/// holds at once. Only wiped pages are given back (`Secret.deinit`), and
/// only fresh ones filled in, so what they hold is zeros; no more than
/// `keeping` sets are kept, so what they hold of RLIMIT_MEMLOCK stays small.
/// A locked set is taken before an unlocked one, and an unlocked one is
/// locked again when it is taken (the limit may allow it by then). When
/// the limit refuses a secret's own pages, the kept sets give up their
/// locks first: idle pages never leave a secret's unlocked.
final class SecretPagePool: Sendable {
    /// The pool every `Secret` takes its pages from.
    static let shared = SecretPagePool(keeping: 5)

    /// Unchecked only because the pages are a raw pointer: whoever holds a
    /// `Pages` is their one user, as with `Secret`.
    struct Pages: @unchecked Sendable {
        let memory: MappedMemory
        let isLockedInRAM: Bool
        /// Why the lock was refused when these pages were taken.
        var lockRefusal: Errno? = nil
    }

    /// The kept sets, in `keeping` slots allocated once. Not an Array: an
    /// Array of `Pages` costs every helper run a generic metadata
    /// instantiation (~35,000 instructions) at its first append.
    private struct Kept: @unchecked Sendable {
        let slots: UnsafeMutableBufferPointer<Pages>
        var count = 0

        func index(where matches: (Pages) -> Bool) -> Int? {
            var index = 0
            while index < count {
                if matches(slots[index]) { return index }
                index += 1
            }
            return nil
        }

        mutating func append(_ pages: Pages) {
            (slots.baseAddress! + count).initialize(to: pages)
            count += 1
        }

        /// The set at `index`; the last one takes its slot.
        mutating func remove(at index: Int) -> Pages {
            let slot = slots.baseAddress! + index
            let pages = slot.move()
            count -= 1
            if index != count { slot.moveInitialize(from: slots.baseAddress! + count, count: 1) }
            return pages
        }
    }

    private let free: Mutex<Kept>

    init(keeping: Int) {
        free = Mutex(Kept(slots: .allocate(capacity: keeping)))
    }

    deinit {
        free.withLock { kept in
            while kept.count > 0 { Self.release(kept.remove(at: kept.count - 1)) }
            kept.slots.deallocate()
        }
    }

    /// Pages of exactly `byteCount` bytes: kept ones, locked ones first, or
    /// freshly mapped.
    func take(byteCount: Int) -> Pages {
        let reused = free.withLock { free -> Pages? in
            guard let index = free.index(where: { $0.memory.byteCount == byteCount && $0.isLockedInRAM })
                ?? free.index(where: { $0.memory.byteCount == byteCount }) else { return nil }
            return free.remove(at: index)
        }
        if let reused, reused.isLockedInRAM { return reused }
        // No page to be had: nothing else would work either, and a secret
        // must not fall back to the heap, where no wipe reaches its copies.
        guard let memory = reused?.memory ?? Self.map(byteCount: byteCount) else {
            preconditionFailure("no memory for a secret of \(byteCount) bytes")
        }
        // A kept set left unlocked is locked again: the limit may allow it
        // now that other secrets are gone.
        let refusal = lockMakingRoom(memory)
        return Pages(memory: memory, isLockedInRAM: refusal == nil, lockRefusal: refusal)
    }

    /// Locks a secret's own pages; nil when locked, else why mlock refused.
    /// When RLIMIT_MEMLOCK refuses, the kept sets give up their locks (they
    /// stay kept, unlocked) and it is tried again: an idle set never leaves
    /// a secret's pages unlocked.
    private func lockMakingRoom(_ memory: MappedMemory) -> Errno? {
        func refusal() -> Errno? {
            do { try memory.lockInRAM() } catch { return error }
            return nil
        }
        guard let first = refusal() else { return nil }
        let unlockedAny = free.withLock { kept -> Bool in
            var any = false
            var index = 0
            while index < kept.count {
                let pages = kept.slots[index]
                if pages.isLockedInRAM {
                    pages.memory.unlockFromRAM()
                    kept.slots[index] = Pages(memory: pages.memory, isLockedInRAM: false)
                    any = true
                }
                index += 1
            }
            return any
        }
        return unlockedAny ? refusal() : first
    }

    /// Pages freshly mapped and out of core dumps, not yet locked; nil if
    /// none can be mapped.
    private static func map(byteCount: Int) -> MappedMemory? {
        guard let memory = try? MappedMemory.anonymous(byteCount: byteCount) else { return nil }
        _ = try? memory.excludeFromCoreDumps()  // a kernel without it still has the helper's RLIMIT_CORE 0
        return memory
    }

    /// Maps and locks sets of `byteCount` bytes until the pool keeps as many
    /// as it may: done where a run waits anyway (FollowUp, while the user
    /// types), so that the secrets made after it take pages ready already.
    /// Best effort: it stops at the first set that cannot be mapped or
    /// locked (RLIMIT_MEMLOCK, `ulimit -v`), and what the filled sets hold
    /// of the limit is given up again when a secret needs it
    /// (`lockMakingRoom`).
    func fill(byteCount: Int) {
        while free.withLock({ $0.count < $0.slots.count }) {
            guard let memory = Self.map(byteCount: byteCount) else { return }
            guard (try? memory.lockInRAM()) != nil else {
                memory.unmap()
                return
            }
            give(Pages(memory: memory, isLockedInRAM: true))
        }
    }

    /// Takes back pages already wiped; unmaps them when enough are kept.
    func give(_ pages: Pages) {
        let keptThem = free.withLock { free -> Bool in
            guard free.count < free.slots.count else { return false }
            free.append(pages)
            return true
        }
        guard !keptThem else { return }
        Self.release(pages)
    }

    private static func release(_ pages: Pages) {
        if pages.isLockedInRAM { pages.memory.unlockFromRAM() }
        pages.memory.unmap()
    }

    /// How many sets are kept now.
    var keptCount: Int { free.withLock { $0.count } }

    /// Whether the pages at `address` are kept now.
    func isKept(_ address: UnsafeMutableRawPointer) -> Bool {
        free.withLock { free in free.index(where: { $0.memory.address == address }) != nil }
    }
}
