import CPinGateSystem
import Glibc

/// The process at the other end of a connected unix socket, as the kernel
/// recorded it at connect time (SO_PEERCRED), with a way to tell that its
/// pid still names that very process: a pidfd of it where the kernel gives
/// one (SO_PEERPIDFD, Linux 6.5), else the start time of whatever ran with
/// the pid when the peer was first looked at. A pid alone could, once the
/// peer ended, name any later process.
public struct SocketPeer: Sendable {
    public let uid: UserID
    public let pid: ProcessID
    /// The peer's pidfd; nil where the kernel has no SO_PEERPIDFD. Never
    /// closed: a peer is looked up once, by a process that serves one connection.
    private let pidfd: CInt?
    /// What ran with `pid` when the peer was looked up (without a pidfd).
    private let firstSeen: ProcessInstance?

    /// SOCK_SEQPACKET: one message per request and per answer.
    public static let sequentialPacket = CInt(SOCK_SEQPACKET.rawValue)

    /// The peer of `socket`, which must be a connected AF_UNIX socket of
    /// type `type` (`sequentialPacket` for the verifier's).
    public static func of(_ socket: FileDescriptor, type: CInt) throws(Errno) -> SocketPeer {
        guard try integerOption(SO_DOMAIN, of: socket) == AF_UNIX, try integerOption(SO_TYPE, of: socket) == type else {
            throw Errno(rawValue: ENOTSOCK)
        }
        // struct ucred, which Glibc imports only with _GNU_SOURCE: pid, uid, gid.
        var credentials: (pid: ProcessID, uid: UserID, gid: GroupID) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(socket.rawValue, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { throw Errno.current }
        let (pid, uid) = (credentials.pid, credentials.uid)
        guard pid > 0 else { throw Errno(rawValue: ESRCH) }
        var pidfd: CInt = -1
        length = socklen_t(MemoryLayout<CInt>.size)
        let hasPidfd = getsockopt(socket.rawValue, SOL_SOCKET, cpingate_so_peerpidfd, &pidfd, &length) == 0 && pidfd >= 0
        return SocketPeer(uid: uid, pid: pid, pidfd: hasPidfd ? pidfd : nil,
                          firstSeen: hasPidfd ? nil : ProcessInstance.running(pid))
    }

    /// Whether `pid` still names the process that connected. With a pidfd:
    /// that process runs (while it runs, nothing else can have its pid; an
    /// error of poll counts as ended).
    /// Without: the process running with `pid` now is the one seen when the
    /// peer was looked up, and runs as the peer's uid. (That one could still
    /// have taken the pid after the peer ended and before the lookup: the
    /// kernels without SO_PEERPIDFD leave that window.)
    public var stillConnected: Bool {
        // A pidfd polls readable once its process has exited; this needs no
        // right to signal the peer (the verifier has no capabilities).
        if let pidfd {
            var exited = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
            return poll(&exited, 1, 0) == 0
        }
        guard let firstSeen, firstSeen.isRunning,
              let owner = try? FileStatus(following: "/proc/\(pid)") else { return false }
        return owner.owner == uid
    }

    private static func integerOption(_ option: CInt, of socket: FileDescriptor) throws(Errno) -> CInt {
        var value: CInt = 0
        var length = socklen_t(MemoryLayout<CInt>.size)
        guard getsockopt(socket.rawValue, SOL_SOCKET, option, &value, &length) == 0 else { throw Errno.current }
        return value
    }
}
