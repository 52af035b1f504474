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
    /// caller's RLIMIT_MEMLOCK is spent (a user may set it to 0: ENOMEM, or
    /// EPERM under a limit of 0) or a seccomp filter forbids it (EPERM),
    /// which callers treat as "not locked"; only the machine key's page
    /// asks why (`MachineKeyPage`).
    public func lockInRAM() throws(Errno) {
        while mlock(address, byteCount) != 0 {
            let error = Errno.current
            if error != .interrupted { throw error }
        }
    }

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

/// getrlimit(RLIMIT_MEMLOCK)'s soft limit: the bytes this process may lock
/// (UInt64.max: no limit); nil if it cannot be read. The setgid helper has
/// raised it to the hard limit already (`ProcessHardening`).
public func memoryLockLimitBytes() -> UInt64? {
    var limit = rlimit()
    guard getrlimit(CInt(__RLIMIT_MEMLOCK.rawValue), &limit) == 0 else { return nil }
    return UInt64(limit.rlim_cur)  // RLIM_INFINITY is UInt64.max already
}
