import Glibc

/// Lines for the system logger under the ident `pingate`, facility authpriv
/// (where auth.log and the journal keep authentication records). Lines are
/// English and never carry a secret.
///
/// Written to /dev/log directly rather than through syslog(3): glibc's
/// syslog blocks in send(2) for as long as the logger does not read (its
/// queue holds net.unix.max_dgram_qlen lines, 10 by default), so a stalled
/// or stopped logger would hang every helper at its first log line, and
/// sudo and the screen locker behind it. Here a line waits at most
/// `sendLimitMilliseconds` and is then dropped: the answer matters more.
public enum SystemLog {
    public enum Priority {
        case info, notice, warning, error
        var raw: CInt {
            switch self {
            case .info: return LOG_INFO
            case .notice: return LOG_NOTICE
            case .warning: return LOG_WARNING
            case .error: return LOG_ERR
            }
        }
    }

    static let socketPath = "/dev/log"
    static let sendLimitMilliseconds = 200

    /// Reads the time zone that every line's timestamp needs (glibc reads
    /// /etc/localtime once, at its first local time): done ahead, where a
    /// run waits anyway (FollowUp), it is not paid on the way to an answer.
    public static func prepare() {
        tzset()
    }

    public static func write(_ priority: Priority, _ message: String) {
        let line = datagram(priority, message)
        guard let socket = try? FileDescriptor.datagramSocket(connectedTo: socketPath) else { return }
        defer { socket.close() }
        _ = try? Deadline.after(milliseconds: sendLimitMilliseconds).retry {
            try socket.trySend(Array(line.utf8))
        }
    }

    /// The line as sent, RFC 3164 as glibc's syslog writes it:
    /// `<PRI>Mmm dd hh:mm:ss pingate[pid]: message`.
    static func datagram(_ priority: Priority, _ message: String) -> String {
        // Controls are replaced so that a user name or tty cannot forge a log
        // line or change how one reads (UntrustedText lists them).
        let clean = UntrustedText.replacingControls(message)
        return "<\(LOG_AUTHPRIV | priority.raw)>\(timestamp()) pingate[\(getpid())]: \(clean)"
    }

    /// Local time as "Dec  1 09:05:07" (strftime "%h %e %T").
    private static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%h %e %T", &parts)
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension FileDescriptor {
    /// socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC) and
    /// connect(2) to the socket at `path`.
    static func datagramSocket(connectedTo path: String) throws -> FileDescriptor {
        let type = CInt(SOCK_DGRAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)
        let socket = FileDescriptor(rawValue: try retryingOnInterrupt { Glibc.socket(AF_UNIX, type, 0) })
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let fits = withUnsafeMutableBytes(of: &address.sun_path) { destination in
            guard bytes.count < destination.count else { return false }
            destination.copyBytes(from: bytes)
            return true
        }
        do {
            guard fits else { throw Errno(rawValue: ENAMETOOLONG) }
            _ = try retryingOnInterrupt {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        Glibc.connect(socket.rawValue, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
            }
        } catch {
            socket.close()
            throw error
        }
        return socket
    }

    /// send(2) of one datagram without waiting (MSG_DONTWAIT, and no SIGPIPE).
    /// Returns false if the receiver's queue is full.
    func trySend(_ bytes: [UInt8]) throws -> Bool {
        do {
            _ = try retryingOnInterrupt {
                bytes.withUnsafeBytes { Glibc.send(rawValue, $0.baseAddress, $0.count, CInt(MSG_DONTWAIT | MSG_NOSIGNAL)) }
            }
            return true
        } catch let error as Errno where error == .wouldBlock {
            return false
        }
    }
}
