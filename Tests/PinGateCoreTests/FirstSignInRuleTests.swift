import Glibc
import Testing
@testable import PinGateCore

// The first sign-in of a boot takes the password at a display manager's
// login: it unlocks the keyring and an encrypted home. A PIN only while the
// user already has a session there (unlocking, switching back).
@Suite("The first sign-in at a login screen takes the password")
struct FirstSignInRuleTests {
    static let boot = BootID(bytes: Array(0x10...0x1f))!
    let rule = { (logind: FakeLogind, service: String) in
        FirstSignInRule(logind: logind, boot: FirstSignInRuleTests.boot).passwordRequired(service: service, uid: 1000, policy: Policy(),
                                                                                           openedWithPIN: { .none })
    }

    /// The rule with the record's marks `marks`.
    func rule(_ logind: FakeLogind, marks: PINOpenedSessions, boot: BootID? = boot) -> String? {
        FirstSignInRule(logind: logind, boot: boot).passwordRequired(service: "gdm-password", uid: 1000, policy: Policy(),
                                                                     openedWithPIN: { marks })
    }

    /// Marks of `boot` for processes (pid, start), all running.
    func marks(_ leaders: [(pid_t, UInt64)], boot: BootID = boot) -> PINOpenedSessions {
        var marks = PINOpenedSessions.none
        for (pid, start) in leaders { marks.mark(ProcessInstance(pid: pid, startTicks: start), boot: boot, isRunning: { _ in true }) }
        return marks
    }

    @Test("gdm-password, lightdm and sddm with no session of the user: the password", arguments: ["gdm-password", "lightdm", "sddm"])
    func firstSignIn(service: String) {
        var logind = FakeLogind()
        logind.add("c1", uid: 120, class: "greeter")   // the greeter's own session is not hers
        #expect(rule(logind, service) != nil)
    }

    @Test("with a session of hers (unlocking, switching back): a PIN may be offered")
    func withASession() {
        var logind = FakeLogind()
        logind.add("3", uid: 1000)
        #expect(rule(logind, "gdm-password") == nil)
    }

    @Test("her user manager's own session, an ssh login, a cron job or an unreadable session is no sign-in at the seat")
    func onlyASeatSessionCounts() {
        var logind = FakeLogind()
        logind.add("m1", uid: 1000, seat: nil, class: "manager")
        logind.add("s1", uid: 1000, seat: nil, remote: true)
        logind.add("c1", uid: 1000, class: "background")
        logind.add("u1", uid: 1000)
        logind.unreadable = ["u1"]
        #expect(rule(logind, "lightdm") != nil)
    }

    @Test("other services are not affected, and without logind a login screen takes the password")
    func otherServicesAndNoLogind() {
        #expect(rule(FakeLogind(), "sudo") == nil)
        #expect(rule(FakeLogind(), "pingate-lock") == nil)
        #expect(rule(FakeLogind(logindRuns: false), "gdm-password") != nil)
        #expect(rule(FakeLogind(logindRuns: false), "sudo") == nil)
    }

    @Test("the list is pingate.conf's password_first_services")
    func configurable() throws {
        var policy = Policy()
        try policy.set("password_first_services", to: "lightdm")
        #expect(FirstSignInRule(logind: FakeLogind(), boot: Self.boot).passwordRequired(service: "gdm-password", uid: 1000, policy: policy, openedWithPIN: { .none }) == nil)
        #expect(FirstSignInRule(logind: FakeLogind(), boot: Self.boot).passwordRequired(service: "lightdm", uid: 1000, policy: policy, openedWithPIN: { .none }) != nil)
    }

    // Issue 32, item 7: a PIN typed at a text console's login opened a seat
    // session, which lifted the rule at gdm and lightdm.
    @Test("a session whose leader signed in with the PIN is no sign-in with the password")
    func sessionOpenedWithThePIN() {
        var logind = FakeLogind()
        logind.add("3", leader: 900, leaderStart: 7)
        #expect(rule(logind, marks: marks([(900, 7)])) != nil)
        #expect(rule(logind, marks: .none) == nil)
        // Beside a session opened with the password: a PIN may be offered.
        logind.add("4", leader: 901, leaderStart: 8)
        #expect(rule(logind, marks: marks([(900, 7)])) == nil)
    }

    @Test("a mark names one process of one boot: not a later one given its pid, nor one of another boot")
    func marksAreOneProcessOfOneBoot() {
        var logind = FakeLogind()
        logind.add("3", leader: 900, leaderStart: 9)   // pid 900 again, started later: signed in with the password
        #expect(rule(logind, marks: marks([(900, 7)])) == nil)
        var sameStart = FakeLogind()
        sameStart.add("3", leader: 900, leaderStart: 7)
        #expect(rule(sameStart, marks: marks([(900, 7)], boot: BootID(bytes: Array(0x20...0x2f))!)) == nil)
    }

    @Test("a leader that has ended matches by its pid alone: stricter, never looser")
    func endedLeader() {
        var logind = FakeLogind()
        logind.add("3", leader: 900, leaderStart: nil)
        #expect(rule(logind, marks: marks([(900, 7)])) != nil)
    }

    @Test("a closing session, one with no leader, or marks that overflowed: no sign-in; an unreadable boot id: the password")
    func whatCannotBeTold() {
        var closing = FakeLogind()
        closing.add("3", closing: true)
        #expect(rule(closing, marks: .none) != nil)
        var leaderless = FakeLogind()
        leaderless.add("3", leader: nil)
        #expect(rule(leaderless, marks: .none) != nil)
        var logind = FakeLogind()
        logind.add("3", leader: 950, leaderStart: 1)
        #expect(rule(logind, marks: marks([(900, 7), (901, 7), (902, 7), (903, 7)])) != nil)
        #expect(rule(logind, marks: .none, boot: nil) != nil)
    }
}

@Suite("Marks of the processes that signed in with the PIN")
struct PINOpenedSessionsTests {
    let boot = BootID(bytes: Array(0x10...0x1f))!
    let process = { (pid: pid_t) in ProcessInstance(pid: pid, startTicks: UInt64(pid) * 10) }

    @Test("ended processes make room; more running ones than fit overflow, for the rest of the boot")
    func capacity() {
        var marks = PINOpenedSessions.none
        for pid: pid_t in 1...3 { marks.mark(process(pid), boot: boot, isRunning: { _ in true }) }
        #expect(marks.leaders.count == 3 && !marks.overflowed)
        marks.mark(process(4), boot: boot, isRunning: { $0.pid != 2 })
        #expect(marks.leaders.map(\.pid) == [1, 3, 4])
        marks.mark(process(5), boot: boot, isRunning: { _ in true })
        #expect(marks.overflowed && marks.leaders.isEmpty)
        #expect(marks.mayHaveOpened(sessionLedBy: 77, startTicks: 1, boot: boot))
        marks.mark(process(6), boot: boot, isRunning: { _ in false })
        #expect(marks.overflowed)
    }

    @Test("a new boot starts afresh; the same process twice is one mark")
    func newBoot() {
        var marks = PINOpenedSessions.none
        marks.mark(process(1), boot: boot, isRunning: { _ in true })
        marks.mark(process(1), boot: boot, isRunning: { _ in true })
        #expect(marks.leaders.count == 1)
        let next = BootID(bytes: Array(0x30...0x3f))!
        marks.mark(process(2), boot: next, isRunning: { _ in true })
        #expect(marks.boot == next && marks.leaders == [process(2)])
        #expect(!marks.mayHaveOpened(sessionLedBy: 1, startTicks: 10, boot: next))
    }

    @Test("a record keeps them; marks past the capacity or without a boot are no state")
    func recordRoundTrip() throws {
        var record = UserRecord(uid: 1000, binding: .account("user1000"), kind: .pin, gridSize: 0, pinLength: 4,
                                hash: "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2g", now: 1)
        record.pinOpenedSessions.mark(process(4242), boot: boot, isRunning: { _ in true })
        record.pinOpenedSessions.mark(ProcessInstance(pid: .max, startTicks: .max), boot: boot, isRunning: { _ in true })
        let decoded = try #require(RecordCodec.decode(RecordCodec.encode(record, sequence: 1)[...]))
        #expect(decoded.record.pinOpenedSessions == record.pinOpenedSessions)
        #expect(PINOpenedSessions(boot: nil, leaders: [process(1)], overflowed: false) == nil)
        #expect(PINOpenedSessions(boot: boot, leaders: (1...4).map(process), overflowed: false) == nil)
    }

    @Test("/proc/PID/stat's start time is read past a name holding spaces and parentheses")
    func statParsing() throws {
        let stat = "4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 123456 1 2 3"
        #expect(ProcessInstance.startTicks(inStat: stat) == 123456)
        let me = try #require(ProcessInstance.running(getpid()))
        #expect(me.isRunning)
        #expect(!ProcessInstance(pid: me.pid, startTicks: me.startTicks + 1).isRunning)
    }
}

@Suite("A PIN success marks the process that may open a session with it")
struct SessionOpenerMarkTests {
    @Test("only a success marks, in the same write, with the boot it happened in")
    func successMarks() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let me = try #require(ProcessInstance.running(getpid()))
        _ = store.verifier.verify(uid: 1000, input: secret("1111"), sessionOpener: me)
        #expect(try store.record()?.pinOpenedSessions == PINOpenedSessions.none)
        #expect(store.verifier.verify(uid: 1000, input: secret("0427"), sessionOpener: me) == .ok)
        let marks = try #require(try store.record()?.pinOpenedSessions)
        #expect(marks.leaders == [me])
        #expect(marks.boot == store.clock.bootNow()?.bootID)
        // A verification for no session opener leaves the marks as they are.
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
        #expect(try store.record()?.pinOpenedSessions == marks)
    }
}

// Issue 40, item 2: sudo from a desktop terminal and polkit ≥ 127's agent
// helper run outside any session; each was marked, and four at once
// overflowed the marks, turning the PIN off at gdm until the next boot.
@Suite("Only a sign-in that may open a session is marked")
struct SessionOpenerRuleTests {
    static let boot = BootID(bytes: Array(0x10...0x1f))!
    let rule = SessionOpenerRule(logind: FakeLogind())

    func opener(_ service: String, uid: uid_t = 0, pid: pid_t = 700, policy: Policy = Policy()) -> pid_t? {
        rule.opener(service: service, caller: CallerFacts(uid: uid, pid: pid), policy: policy)
    }

    @Test("root's worker of login, gdm-password, lightdm or sddm outside a session", arguments: ["login", "gdm-password", "lightdm", "sddm"])
    func sessionOpeners(service: String) {
        #expect(opener(service) == 700)
    }

    @Test("sudo, su, polkit-1 and the lock screens never, even as root outside a session",
          arguments: ["sudo", "su", "polkit-1", "kde", "i3lock", "swaylock", "gnome-screensaver", "cinnamon-screensaver", "pingate-lock"])
    func neverMarked(service: String) {
        #expect(opener(service) == nil)
        #expect(opener(service, uid: 1000) == nil)
    }

    @Test("a caller of another real uid (sudo's, a socket's peer), one in a session, no service or no pid: none")
    func notRootOrInASession() {
        #expect(opener("login", uid: 1000) == nil)
        #expect(opener("gdm-password", pid: 0) == nil)
        #expect(rule.opener(service: nil, caller: CallerFacts(uid: 0, pid: 700), policy: Policy()) == nil)
        var logind = FakeLogind()
        logind.processSessions[700] = "c1"
        #expect(SessionOpenerRule(logind: logind).opener(service: "login", caller: CallerFacts(uid: 0, pid: 700), policy: Policy()) == nil)
    }

    @Test("the display managers are pingate.conf's password_first_services")
    func configurable() throws {
        var policy = Policy()
        try policy.set("password_first_services", to: "greetd")
        #expect(opener("greetd", policy: policy) == 700)
        #expect(opener("gdm-password", policy: policy) == nil)
        #expect(opener("login", policy: policy) == 700)
    }

    @Test("four concurrent sudo and a polkit agent helper leave no mark, and gdm-password still offers the PIN")
    func everydayUseNeverOverflows() {
        var marks = PINOpenedSessions.none
        let callers = [("sudo", 1000), ("sudo", 1000), ("sudo", 1000), ("sudo", 1000), ("polkit-1", 1000), ("polkit-1", 0)]
        for (index, (service, uid)) in callers.enumerated() {
            if let pid = opener(service, uid: uid_t(uid), pid: pid_t(800 + index)) {
                marks.mark(ProcessInstance(pid: pid, startTicks: 1), boot: Self.boot, isRunning: { _ in true })
            }
        }
        #expect(marks == .none)
        var logind = FakeLogind()
        logind.add("2", leader: 950, leaderStart: 3)   // her seat session, opened with the password
        #expect(FirstSignInRule(logind: logind, boot: Self.boot).passwordRequired(service: "gdm-password", uid: 1000, policy: Policy(),
                                                                                 openedWithPIN: { marks }) == nil)
    }
}
