/// Who asks for an attempt, and from where: what the locality rule judges.
///
/// The helper cannot see its caller past a root parent: under sudo or a
/// setuid agent the PAM module runs as root and the helper sees uid 0. So
/// a root caller passes the facts of the process it acts for (`caller_uid`,
/// `caller_pid`, PAM_RHOST); a non-root caller is judged by itself — its real
/// uid, and the helper's own process, which a fork left in the caller's
/// cgroup and so in its logind session.
public struct CallerFacts: Equatable, Sendable {
    public var uid: UserID
    /// The process whose session counts; 0 means the judging process itself.
    public var pid: ProcessID
    /// PAM_RHOST as the caller reported it; any value at all is remote.
    public var remoteHost: String?
    /// The module's `allow_remote`, honoured from a root caller only.
    public var allowRemote: Bool
    /// PAM_TTY as the caller reported it: an X display on another host
    /// ("HOST:0") is remote (`XDisplayName`), whoever says so.
    public var terminal: String?

    public init(uid: UserID, pid: ProcessID = 0, remoteHost: String? = nil, allowRemote: Bool = false, terminal: String? = nil) {
        self.uid = uid
        self.pid = pid
        self.remoteHost = remoteHost
        self.allowRemote = allowRemote
        self.terminal = terminal
    }

    /// The facts of a helper request from a process whose real uid is
    /// `realUID`. Only root may speak for another process; what a non-root
    /// caller writes may make it look more remote, never less. A non-root
    /// caller is judged by `ownPID`: 0, the judging process itself (a helper
    /// its caller started), or the peer of the socket it asked on.
    public init(request: borrowing HelperRequest, realUID: UserID, ownPID: ProcessID = 0) {
        if realUID == 0 {
            self.init(uid: request.callerUID ?? 0, pid: request.callerPID ?? 0,
                      remoteHost: request.remoteHost, allowRemote: request.allowRemote, terminal: request.tty)
        } else {
            self.init(uid: realUID, pid: ownPID, remoteHost: request.remoteHost, allowRemote: false, terminal: request.tty)
        }
    }

    /// This process, as the CLI run by root judges itself.
    public static var thisProcess: CallerFacts { CallerFacts(uid: realUserID()) }
}
