/// The first sign-in of a boot takes the password, at a display manager's
/// login (pingate.conf `password_first_services`: gdm-password, lightdm and
/// sddm by default), as a phone asks for its passcode after a restart: that
/// sign-in unlocks the login keyring and an encrypted home, which a PIN must
/// never reach. There a PIN is offered only while the user already has a
/// session — unlocking it, or switching back to it. Without logind nobody
/// can tell, so the password it is (fail closed).
public struct FirstSignInRule {
    public let logind: any LoginSessions

    public init(logind: any LoginSessions = SystemdLogin()) {
        self.logind = logind
    }

    /// Why `service` must take the password for `uid` now; nil when a PIN may be offered.
    public func passwordRequired(service: String?, uid: UserID, policy: Policy) -> String? {
        guard let service, Policy.lists(service, in: policy.passwordFirstServices) else { return nil }
        guard logind.logindRuns else { return "\(service) is a login screen and logind does not run: no session can be seen" }
        do {
            // Only a sign-in at this machine's seat counts: an ssh login, a
            // cron job or the user manager's own session after a restart does
            // not open the keyring the password would. Unreadable: not counted.
            let signedIn = try logind.sessions(ofUser: uid).contains { id in
                guard let session = try? logind.describe(session: id) else { return false }
                return session.uid == uid && !session.isRemote && session.seat != nil && session.sessionClass == "user"
            }
            return signedIn ? nil : "uid \(uid) has no session at a seat yet: the first sign-in at \(service) takes the password"
        } catch {
            return "logind's sessions of uid \(uid) cannot be read (\(error))"
        }
    }
}
