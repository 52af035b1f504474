/// Whether a caller is a person at this machine — the one rule every path to
/// an attempt passes (the helper for the module, `pingate verify` and
/// `change`, the lock screen; the CLI run by root for its own attempts).
///
/// A 4-digit PIN is safe only because few guesses are allowed and only
/// someone at the machine may make them. So, failing closed on any doubt:
/// - a PAM_RHOST of any kind is remote (`localhost` too: tunnels end there),
///   and so is a PAM_TTY naming an X display on a host (`XDisplayName`:
///   lightdm's XDMCP displays set no PAM_RHOST);
/// - without logind (no seat0), PAM_RHOST alone decides;
/// - a caller in a logind session is at the machine only if that session is
///   at a seat, not remote, of a person's class, and in the foreground;
/// - a non-root caller outside any session (a desktop terminal, a user
///   service, a lock screen the user manager started) only from its own
///   user manager, while the user's display session passes the same test
///   and none of the user's sessions is remote or seatless: a lingering
///   manager with nobody logged in, or one the user also reaches over ssh,
///   is not someone at the seat;
/// - root callers outside sessions (login, display managers) by PAM_RHOST.
public struct LocalityRule {
    public let logind: any LoginSessions
    /// pingate.conf `user_manager`: with `false`, a non-root caller outside
    /// any session is never at the machine. No fact logind keeps tells a
    /// terminal the owner opened from a job an ssh login left running.
    public let userManagerCallers: Bool

    public init(logind: any LoginSessions = SystemdLogin(), userManagerCallers: Bool = true) {
        self.logind = logind
        self.userManagerCallers = userManagerCallers
    }

    /// Session classes of a person at a seat; `background` (cron) and the rest are not.
    public static let personClasses: Set<String> = ["user", "greeter", "lock-screen"]
    /// A user manager's own session (systemd ≥ 256): not a login, never at a seat.
    static let managerClasses: Set<String> = ["manager", "manager-early"]

    public func judge(_ caller: CallerFacts) -> Locality {
        if caller.allowRemote { return .atTheMachine }
        if let host = caller.remoteHost, !host.isEmpty {
            return .elsewhere("the request comes from \(UntrustedText.escapingControls(host))")
        }
        if let terminal = caller.terminal, let host = XDisplayName.remoteHost(of: terminal) {
            return .elsewhere("the X display \(UntrustedText.escapingControls(terminal)) is on \(UntrustedText.escapingControls(host))")
        }
        guard logind.logindRuns else { return .atTheMachine }
        do {
            if let id = try logind.session(ofProcess: caller.pid) {
                let session = try logind.describe(session: id)
                if caller.uid != 0, session.uid != caller.uid {
                    return .elsewhere("session \(id) belongs to uid \(session.uid), not the caller's")
                }
                return judge(session)
            }
            if caller.uid == 0 { return .atTheMachine }
            return try judgeUserManager(caller)
        } catch {
            return .elsewhere("logind's state cannot be read (\(error))")
        }
    }

    private func judge(_ session: LoginSession) -> Locality {
        if session.isRemote { return .elsewhere("session \(session.id) is remote") }
        if session.seat == nil { return .elsewhere("session \(session.id) has no seat") }
        if !LocalityRule.personClasses.contains(session.sessionClass) {
            return .elsewhere("session \(session.id) is of class \(session.sessionClass)")
        }
        if !session.isActive { return .elsewhere("session \(session.id) is not the active one at \(session.seat ?? "its seat")") }
        return .atTheMachine
    }

    private func judgeUserManager(_ caller: CallerFacts) throws(Errno) -> Locality {
        guard userManagerCallers else {
            return .elsewhere("the caller is outside any session, and pingate.conf says user_manager = no")
        }
        guard try logind.userManagerOwner(ofProcess: caller.pid) == caller.uid else {
            return .elsewhere("the caller is outside any session and outside its own user manager")
        }
        guard let display = try logind.displaySession(ofUser: caller.uid) else {
            return .elsewhere("uid \(caller.uid) has no display session (lingering, or logged out)")
        }
        let displaySession = try logind.describe(session: display)
        guard displaySession.uid == caller.uid else {
            return .elsewhere("display session \(display) belongs to uid \(displaySession.uid)")
        }
        if case let .elsewhere(reason) = judge(displaySession) { return .elsewhere("display \(reason)") }
        for id in try logind.sessions(ofUser: caller.uid) {
            let session = try logind.describe(session: id)
            if LocalityRule.managerClasses.contains(session.sessionClass) { continue }
            if session.isRemote { return .elsewhere("uid \(caller.uid) also has remote session \(id)") }
            if session.seat == nil { return .elsewhere("uid \(caller.uid) also has session \(id) with no seat") }
        }
        return .atTheMachine
    }
}

/// The rule's verdict.
public enum Locality: Equatable, Sendable {
    case atTheMachine
    /// Not a person at the machine; why, for the log and the answer.
    case elsewhere(String)
}
