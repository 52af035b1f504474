import CPinGateContract
import Glibc
import PinGateCore

/// How this run was reached: where its requests come from, where its
/// answers go, and who the caller is (pingate_protocol.h, SOCKET).
enum CallerLink {
    /// Started by its caller (the PAM module, the CLI, the lock screen): the
    /// request on stdin to EOF, the answer on stdout, a follow-up on
    /// descriptor 3, and the exit status as the last word. The caller is
    /// the real uid, and this process stands for it where a session is
    /// judged: a fork left it in the caller's cgroup.
    case spawned
    /// Started by systemd for one connection to pingate-verify.socket
    /// (`--socket`): stdin and stdout are the connection, a SOCK_SEQPACKET
    /// socket, so each request and each answer is one message, and an answer
    /// ends with the line "end N" in place of the exit status. The caller
    /// is the socket's peer, judged by its own pid.
    case socket(SocketPeer)

    /// The uid the caller runs as: what the owner rule and the locality rule judge.
    var callerUID: uid_t {
        switch self {
        case .spawned: return getuid()
        case let .socket(peer): return peer.uid
        }
    }

    /// The process whose session counts for a non-root caller: 0 for this one.
    var judgedPID: pid_t {
        switch self {
        case .spawned: return 0
        case let .socket(peer): return peer.pid
        }
    }

    /// Where a verify after a status arrives (FollowUp).
    var followUpDescriptor: FileDescriptor {
        switch self {
        case .spawned: return FileDescriptor(rawValue: PINGATE_FOLLOW_UP_FD)
        case .socket: return .standardInput
        }
    }

    /// Whether the caller is still the process it was when it connected:
    /// always for a spawned run (its caller waits for it), and for a socket
    /// while the peer's pid names the peer (`SocketPeer.stillConnected`).
    var callerStillConnected: Bool {
        switch self {
        case .spawned: return true
        case let .socket(peer): return peer.stillConnected
        }
    }

    /// How long the run waits for its first request: as long as its caller
    /// likes when spawned (a caller that holds its pipe open holds only its
    /// own helper), PINGATE_SOCKET_REQUEST_SECONDS on a socket, where a
    /// silent peer would hold one of the socket's units (MaxConnections).
    var firstRequestDeadline: Deadline? {
        switch self {
        case .spawned: return nil
        case .socket: return Deadline.after(milliseconds: Int(PINGATE_SOCKET_REQUEST_SECONDS) * 1000)
        }
    }

    /// One request: to EOF from a pipe, one message from the socket. Past
    /// `deadline` what came is dropped, and it reads as an empty request.
    func readRequest(from descriptor: FileDescriptor, until deadline: Deadline? = nil) -> HelperMain.RequestInput {
        switch self {
        case .spawned: return HelperMain.readRequest(from: descriptor, until: deadline)
        case .socket: return HelperMain.readRequest(from: descriptor, until: deadline, messages: 1)
        }
    }

    /// The run's exit status: the last answer's for a spawned run, whose
    /// caller reads it; 0 for a socket's, whose answers carried theirs
    /// ("end N"), so that systemd does not count a wrong PIN as a failed unit.
    func exitStatus(for answer: HelperAnswer) -> Int32 {
        switch self {
        case .spawned: return answer.exitCode.rawValue
        case .socket: return 0
        }
    }

    /// One write(2) of the whole answer: no stdio buffer, and a caller that
    /// has gone costs only this answer (SIGPIPE is ignored).
    func send(_ answer: HelperAnswer) {
        var text = answer.line + "\n"
        if case .socket = self { text += "\(PINGATE_SOCKET_END_WORD) \(answer.exitCode.rawValue)\n" }
        try? FileDescriptor.standardOutput.writeAll(Array(text.utf8))
    }
}
