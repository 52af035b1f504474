/// Which PIN success marks its caller as a process that may open a session
/// with it (`PINOpenedSessions`), so that the first-sign-in rule does not
/// take that session for a sign-in with the password.
///
/// Only a sign-in that opens a session: the root worker of a service that
/// opens one (`Policy.sessionOpeningServices`: `login` and the display
/// managers' logins) that is in no logind session yet. Issue 40: every
/// root caller outside a session was marked — sudo answered from a desktop
/// terminal (under `user@UID.service`), polkit ≥ 127's agent helper (a
/// root system service) — and four of them at once filled the three
/// marks, so the overflow turned the PIN off at gdm-password, lightdm and
/// sddm for the rest of the boot. None of them opens a session.
public struct SessionOpenerRule {
    public let logind: any LoginSessions

    public init(logind: any LoginSessions = SystemdLogin()) {
        self.logind = logind
    }

    /// The process to mark for a PIN success asked from `service`, nil for
    /// none. `caller.uid` is 0 only when root asked and speaks for a
    /// process whose real uid is 0 (`CallerFacts`): `login`, gdm's session
    /// worker, lightdm's session child, sddm's helper — never sudo, whose
    /// real uid is its user's, nor a socket's peer, which is the agent's.
    /// A process already in a session opens none; one whose session
    /// cannot be read is marked, the stricter way.
    public func opener(service: String?, caller: CallerFacts, policy: Policy) -> ProcessID? {
        guard caller.uid == 0, caller.pid > 0, let service,
              Policy.lists(service, in: policy.sessionOpeningServices) else { return nil }
        if case .some(.some) = try? logind.session(ofProcess: caller.pid) { return nil }
        return caller.pid
    }
}
