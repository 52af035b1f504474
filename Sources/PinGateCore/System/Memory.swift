import Glibc

/// Private anonymous memory from mmap(2), for asking whether memory can be
/// had before spending an attempt on a KDF that needs it. The owner unmaps it.
public struct MappedMemory {
    public let address: UnsafeMutableRawPointer
    public let byteCount: Int

    /// mmap(NULL, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    public static func anonymous(byteCount: Int) throws -> MappedMemory {
        let address = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let address, address != MAP_FAILED else { throw Errno.current }
        return MappedMemory(address: address, byteCount: byteCount)
    }

    /// munmap(2)
    public func unmap() { _ = munmap(address, byteCount) }

    /// mlock(2): keeps the pages in RAM, out of swap. Throws when the
    /// caller's RLIMIT_MEMLOCK is spent (a user may set it to 0), which
    /// callers treat as "not locked", never as a reason to stop.
    public func lockInRAM() throws { _ = try retryingOnInterrupt { mlock(address, byteCount) } }

    /// munlock(2)
    public func unlockFromRAM() { _ = munlock(address, byteCount) }

    /// madvise(MADV_DONTDUMP): the pages are left out of core dumps.
    public func excludeFromCoreDumps() throws {
        _ = try retryingOnInterrupt { madvise(address, byteCount, MADV_DONTDUMP) }
    }
}

/// sysconf(_SC_PAGESIZE)
public let memoryPageSize: Int = max(sysconf(Int32(_SC_PAGESIZE)), 4096)

/// sysconf(_SC_PHYS_PAGES) × sysconf(_SC_PAGESIZE): the machine's RAM in
/// bytes; nil if either is unknown.
public func physicalMemoryBytes() -> Int? {
    let pages = sysconf(Int32(_SC_PHYS_PAGES))
    let pageSize = sysconf(Int32(_SC_PAGESIZE))
    return pages > 0 && pageSize > 0 ? pages * pageSize : nil
}
