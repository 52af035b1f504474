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

extension FileDescriptor {
    /// flock(fd, LOCK_EX), waiting.
    public func lockExclusive() throws {
        _ = try retryingOnInterrupt { cpingate_flock(rawValue, LOCK_EX) }
    }

    /// flock(fd, LOCK_UN)
    public func unlock() {
        _ = cpingate_flock(rawValue, LOCK_UN)
    }

    /// Takes an OFD lock on the single byte at `offset` (read = shared, write =
    /// exclusive), waiting when `wait` is true. Returns false if not waiting and
    /// the lock is held by someone else.
    @discardableResult
    public func lockByte(_ offset: Int, shared: Bool, wait: Bool) throws -> Bool {
        var request = byteLock(offset, type: shared ? F_RDLCK : F_WRLCK)
        do {
            _ = try retryingOnInterrupt {
                cpingate_ofd_lock(rawValue, &request, wait ? 1 : 0)
            }
            return true
        } catch let error as Errno where error == .wouldBlock || error == Errno(rawValue: EAGAIN) || error == .permissionDenied {
            return false
        }
    }

    /// Releases an OFD lock taken with `lockByte`.
    public func unlockByte(_ offset: Int) {
        var request = byteLock(offset, type: F_UNLCK)
        _ = cpingate_ofd_lock(rawValue, &request, 0)
    }

    /// True when another open file description holds a lock on the byte that
    /// would conflict with an exclusive lock (F_OFD_GETLK).
    public func isByteLockedByOthers(_ offset: Int) throws -> Bool {
        var request = byteLock(offset, type: F_WRLCK)
        _ = try retryingOnInterrupt { cpingate_ofd_query(rawValue, &request) }
        return request.l_type != Int16(F_UNLCK)
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
