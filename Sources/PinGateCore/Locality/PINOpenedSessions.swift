/// The processes that may have opened a session with the PIN in this boot,
/// kept in the user's record, so that the first-sign-in rule does not take
/// their sessions for a sign-in with the password: a PIN typed at a text
/// console's `login` after a restart must not let gdm or lightdm take the
/// PIN next (`FirstSignInRule`).
///
/// A PIN success marks the process that ran PAM for it when that process
/// may open a session with it (`SessionOpenerRule`): root's worker of
/// `login` or of a display manager's login, in no logind session yet.
/// pam_systemd makes the process that opens a session its leader; sudo, su,
/// polkit's agent helper and the lock screens open none, and are never
/// marked. The marks are a boot's: a mark of another boot means nothing.
/// Marks of processes that have ended are dropped to make room; when more
/// than `capacity` marked processes run at once, nothing of the boot can be
/// told any more (`overflowed`) and every session of it counts as opened
/// with the PIN — stricter, never looser. Only sign-ins that opened
/// sessions still open can fill them: four text consoles signed in with
/// the PIN at once, not the owner's everyday sudo.
public struct PINOpenedSessions: Equatable, Sendable {
    /// As many as fit the record's slot; a person rarely has more than one
    /// text console signed in with the PIN.
    public static let capacity = 3

    /// The boot the marks are of; nil: no marks.
    public private(set) var boot: BootID?
    public private(set) var leaders: [ProcessInstance]
    public private(set) var overflowed: Bool

    public static let none = PINOpenedSessions()

    private init() {
        boot = nil
        leaders = []
        overflowed = false
    }

    /// The marks as a record holds them; nil when they break its rules
    /// (more than `capacity`, a pid of 0, marks without a boot, or marks
    /// beside an overflow, which drops them).
    public init?(boot: BootID?, leaders: [ProcessInstance], overflowed: Bool) {
        guard leaders.count <= Self.capacity, leaders.allSatisfy({ $0.pid > 0 }), !(overflowed && !leaders.isEmpty),
              boot != nil || (leaders.isEmpty && !overflowed) else { return nil }
        self.boot = boot
        self.leaders = leaders
        self.overflowed = overflowed
    }

    /// Marks `leader` as having signed in with the PIN in `boot`. Marks of
    /// another boot, and of processes `isRunning` says have ended, go first.
    public mutating func mark(_ leader: ProcessInstance, boot: BootID,
                              isRunning: (ProcessInstance) -> Bool = { $0.isRunning }) {
        if self.boot != boot { self = .none }
        self.boot = boot
        guard !overflowed, !leaders.contains(leader) else { return }
        leaders.removeAll { !isRunning($0) }
        if leaders.count < Self.capacity {
            leaders.append(leader)
        } else {
            leaders = []
            overflowed = true
        }
    }

    /// Whether the session led by process `pid` may have been opened with
    /// the PIN, in `boot`. `startTicks` is the leader's start as it runs
    /// now, nil when it has ended: then the pid alone decides, since a pid
    /// given again later can only make the rule stricter.
    public func mayHaveOpened(sessionLedBy pid: ProcessID, startTicks: UInt64?, boot: BootID) -> Bool {
        guard self.boot == boot else { return false }
        if overflowed { return true }
        return leaders.contains { $0.pid == pid && (startTicks == nil || $0.startTicks == startTicks) }
    }
}
