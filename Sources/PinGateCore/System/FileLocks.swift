import Glibc
import CPinGateSystem

// Two kinds of lock are used on a record, and they do not interact on Linux:
//
// - flock(2), whole file, exclusive: serialises writers of one record.
// - open-file-description (OFD) byte-range locks, shared, on one byte: held by
//   each verification between counting its attempt and finishing it, so that
//   a later attempt can tell "verifications are in flight" from "locked out".
//   The kernel drops both kinds when the process dies, so a SIGKILL never
//   leaves a record locked.
//
// But a SIGSTOP does: a stopped process keeps its locks. So nothing here
// waits without a deadline; a wait is a non-blocking attempt repeated until
// the deadline (Deadline.retry), and a timeout is an answer, not a hang.

extension FileDescriptor {
    /// flock(fd, LOCK_EX | LOCK_NB). Returns false if another open file
    /// description holds a flock on the file.
    public func tryLockExclusive() throws -> Bool {
        do {
            _ = try retryingOnInterrupt { cpingate_flock(rawValue, LOCK_EX | LOCK_NB) }
            return true
        } catch let error as Errno where error == .wouldBlock {
            return false
        }
    }

    /// flock(fd, LOCK_EX), waiting at most until `deadline`. Returns false if
    /// the lock was still held by someone else then.
    public func lockExclusive(until deadline: Deadline) throws -> Bool {
        try deadline.retry { try tryLockExclusive() }
    }

    /// flock(fd, LOCK_UN)
    public func unlock() {
        _ = cpingate_flock(rawValue, LOCK_UN)
    }

    /// Takes an OFD lock on the single byte at `offset` (read = shared, write =
    /// exclusive) without waiting (F_OFD_SETLK). Returns false if a
    /// conflicting lock is held through another open file description.
    public func tryLockByte(_ offset: Int, shared: Bool) throws -> Bool {
        var request = byteLock(offset, type: shared ? F_RDLCK : F_WRLCK)
        do {
            _ = try retryingOnInterrupt { cpingate_ofd_lock(rawValue, &request) }
            return true
        } catch let error as Errno where error == .wouldBlock || error == Errno(rawValue: EAGAIN) || error == .permissionDenied {
            return false
        }
    }

    /// Releases an OFD lock taken with `tryLockByte`.
    public func unlockByte(_ offset: Int) {
        var request = byteLock(offset, type: F_UNLCK)
        _ = cpingate_ofd_lock(rawValue, &request)
    }

    /// True when another open file description holds a lock on the byte that
    /// would conflict with an exclusive lock (F_OFD_GETLK).
    public func isByteLockedByOthers(_ offset: Int) throws -> Bool {
        var request = byteLock(offset, type: F_WRLCK)
        _ = try retryingOnInterrupt { cpingate_ofd_query(rawValue, &request) }
        return request.l_type != Int16(F_UNLCK)
    }

    /// Waits at most until `deadline` for the byte to carry no lock of
    /// another open file description. It only looks (F_OFD_GETLK) and never
    /// takes the byte itself, so a waiter stopped mid-wait holds nothing that
    /// could block anyone else. Returns false if the byte was still locked.
    public func waitUntilByteUnlockedByOthers(_ offset: Int, until deadline: Deadline) throws -> Bool {
        try deadline.retry { try !isByteLockedByOthers(offset) }
    }

    private func byteLock(_ offset: Int, type: CInt) -> flock {
        var request = flock()
        request.l_type = Int16(type)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = off_t(offset)
        request.l_len = 1
        request.l_pid = 0  // required to be 0 for OFD locks
        return request
    }
}
