/// The first sign-in of a boot takes the password, at a display manager's
/// login (pingate.conf `password_first_services`: gdm-password, lightdm,
/// sddm and greetd by default), as a phone asks for its passcode after a restart: that
/// sign-in unlocks the login keyring and an encrypted home, which a PIN must
/// never reach. There a PIN is offered only while the user already has a
/// session — unlocking it, or switching back to it. A session that may
/// have been opened with the PIN (`PINOpenedSessions`: a text console's
/// `login`) is no such sign-in. Without logind nobody can tell, so the
/// password it is (fail closed).
public struct FirstSignInRule {
    public let logind: any LoginSessions
    /// This boot's id; nil when it cannot be read (then the password it is).
    public let boot: BootID?

    public init(logind: any LoginSessions = SystemdLogin(), boot: BootID? = (try? readBootID()) ?? nil) {
        self.logind = logind
        self.boot = boot
    }

    /// Why `service` must take the password for `uid` now; nil when a PIN may
    /// be offered. `openedWithPIN` gives the record's marks, read only when
    /// `service` is a login screen.
    public func passwordRequired(service: String?, uid: UserID, policy: Policy,
                                 openedWithPIN: () -> PINOpenedSessions) -> String? {
        guard let service, Policy.lists(service, in: policy.passwordFirstServices) else { return nil }
        guard logind.logindRuns else { return "\(service) is a login screen and logind does not run: no session can be seen" }
        guard let boot else { return "the boot id cannot be read: no session can be told from one opened with the PIN" }
        let marks = openedWithPIN()
        do {
            // Only a sign-in at this machine's seat counts: an ssh login, a
            // cron job or the user manager's own session after a restart does
            // not open the keyring the password would. Nor does a session
            // that may have been opened with the PIN (a text console's login),
            // one whose leader logind does not name, or one closing after its
            // leader ended. Unreadable: not counted.
            let signedIn = try logind.sessions(ofUser: uid).contains { id in
                guard let session = try? logind.describe(session: id),
                      session.uid == uid, !session.isRemote, session.seat != nil, session.sessionClass == "user",
                      !session.isClosing, let leader = session.leader else { return false }
                return !marks.mayHaveOpened(sessionLedBy: leader, startTicks: session.leaderStartTicks, boot: boot)
            }
            return signedIn ? nil : "uid \(uid) has no session at a seat opened with the password yet: the first sign-in at \(service) takes the password"
        } catch {
            return "logind's sessions of uid \(uid) cannot be read (\(error))"
        }
    }
}
