import Glibc
import Testing
@testable import PinGateCore

/// logind as a table: what sd-login would read from its state files.
struct FakeLogind: LoginSessions {
    var logindRuns = true
    var processSessions: [pid_t: String] = [:]
    var userManagers: [pid_t: uid_t] = [:]
    var sessionTable: [String: LoginSession] = [:]
    var displays: [uid_t: String] = [:]
    var unreadable: Set<String> = []

    func session(ofProcess pid: pid_t) throws(Errno) -> String? { processSessions[pid] }
    func describe(session id: String) throws(Errno) -> LoginSession {
        guard !unreadable.contains(id), let session = sessionTable[id] else { throw Errno(rawValue: ENODATA) }
        return session
    }
    func userManagerOwner(ofProcess pid: pid_t) throws(Errno) -> uid_t? { userManagers[pid] }
    func displaySession(ofUser uid: uid_t) throws(Errno) -> String? { displays[uid] }
    func sessions(ofUser uid: uid_t) throws(Errno) -> [String] {
        sessionTable.values.filter { $0.uid == uid }.map(\.id).sorted()
    }

    /// A session led by process `leader` (started at `leaderStart`, nil: ended since).
    mutating func add(_ id: String, uid: uid_t = 1000, seat: String? = "seat0", remote: Bool = false,
                      class sessionClass: String = "user", active: Bool = true, closing: Bool = false,
                      leader: pid_t? = 900, leaderStart: UInt64? = 7) {
        sessionTable[id] = LoginSession(id: id, uid: uid, seat: seat, isRemote: remote, sessionClass: sessionClass, isActive: active,
                                        isClosing: closing, leader: leader, leaderStartTicks: leaderStart)
    }
}

@Suite("only at the machine: the locality rule")
struct LocalityRuleTests {
    let alice: uid_t = 1000
    let pid: pid_t = 500

    func judge(_ logind: FakeLogind, uid: uid_t = 1000, pid: pid_t = 500, host: String? = nil, allowRemote: Bool = false) -> Locality {
        LocalityRule(logind: logind).judge(CallerFacts(uid: uid, pid: pid, remoteHost: host, allowRemote: allowRemote))
    }

    func isLocal(_ verdict: Locality) -> Bool { verdict == .atTheMachine }

    @Test("any remote host is remote, loopback names too (tunnels end there)", arguments: ["localhost", "127.0.0.1", "::1", "ssh.example"])
    func remoteHosts(host: String) {
        #expect(!isLocal(judge(FakeLogind(logindRuns: false), host: host)))
        #expect(!isLocal(judge(FakeLogind(logindRuns: false), uid: 0, host: host)))
    }

    @Test("without logind (no seat0) the remote host alone decides")
    func noLogind() {
        var logind = FakeLogind(logindRuns: false)
        logind.processSessions[pid] = "7"
        logind.add("7", remote: true)
        #expect(isLocal(judge(logind)))
        #expect(isLocal(judge(logind, host: "")))
    }

    @Test("allow_remote lifts the rule")
    func allowRemote() {
        #expect(isLocal(judge(FakeLogind(), host: "ssh.example", allowRemote: true)))
    }

    @Test("a local, active seat session of a person is at the machine", arguments: ["user", "greeter", "lock-screen"])
    func seatSession(sessionClass: String) {
        var logind = FakeLogind()
        logind.processSessions[pid] = "3"
        logind.add("3", class: sessionClass)
        #expect(isLocal(judge(logind)))
    }

    @Test("a session that is remote, seatless, of another class, inactive, unreadable or someone else's is not")
    func badSessions() {
        let variants: [(inout FakeLogind) -> Void] = [
            { $0.add("3", remote: true) },
            { $0.add("3", seat: nil) },                      // ssh through a tunnel: REMOTE=0, no seat
            { $0.add("3", class: "background") },            // cron
            { $0.add("3", active: false) },                  // switched away from
            { $0.add("3"); $0.unreadable = ["3"] },          // a missing field or file
            { $0.add("3", uid: 1001) },
        ]
        for make in variants {
            var logind = FakeLogind()
            logind.processSessions[pid] = "3"
            make(&logind)
            #expect(!isLocal(judge(logind)), "\(logind.sessionTable)")
        }
    }

    @Test("root in a person's seat session (gdm's worker unlocking it) is at the machine; outside sessions, root is judged by the host alone")
    func rootCallers() {
        var logind = FakeLogind()
        logind.processSessions[pid] = "3"
        logind.add("3", uid: 1000)
        #expect(isLocal(judge(logind, uid: 0)))
        #expect(isLocal(judge(FakeLogind(), uid: 0)))
        logind.add("3", uid: 1000, remote: true)
        #expect(!isLocal(judge(logind, uid: 0)))
    }

    func userManager() -> FakeLogind {
        var logind = FakeLogind()
        logind.userManagers[pid] = alice
        return logind
    }

    @Test("under the user manager: at the machine while the display session is a local, active seat session and no session is remote or seatless")
    func userManagerWithDisplay() {
        var logind = userManager()
        logind.add("2")
        logind.add("9", seat: nil, class: "manager")        // the manager's own session (systemd >= 256)
        logind.displays[alice] = "2"
        #expect(isLocal(judge(logind)))
        logind.add("4", remote: true)
        #expect(!isLocal(judge(logind)))
        logind.add("4", seat: nil)                           // ssh through 127.0.0.1: REMOTE=0, no seat
        #expect(!isLocal(judge(logind)))
    }

    @Test("user_manager = no: a caller under the user manager is never at the machine, a seat session still is")
    func userManagerRefused() {
        var logind = userManager()
        logind.add("2")
        logind.displays[alice] = "2"
        let rule = LocalityRule(logind: logind, userManagerCallers: false)
        #expect(!isLocal(rule.judge(CallerFacts(uid: alice, pid: pid, remoteHost: nil, allowRemote: false))))
        logind.processSessions[pid] = "2"
        #expect(isLocal(LocalityRule(logind: logind, userManagerCallers: false).judge(CallerFacts(uid: alice, pid: pid, remoteHost: nil, allowRemote: false))))
    }

    @Test("a lingering user manager with nobody logged in is not at the machine")
    func lingering() {
        #expect(!isLocal(judge(userManager())))
        var logind = userManager()
        logind.displays[alice] = "2"                        // a display session logind no longer knows
        #expect(!isLocal(judge(logind)))
    }

    @Test("under the user manager, a display session that is remote, inactive or not the user's is not enough")
    func badDisplay() {
        for make in [{ (l: inout FakeLogind) in l.add("2", remote: true) }, { $0.add("2", active: false) }, { $0.add("2", uid: 1001) }] {
            var logind = userManager()
            make(&logind)
            logind.displays[alice] = "2"
            #expect(!isLocal(judge(logind)))
        }
    }

    @Test("outside any session and outside its own user manager (a system service, another user's manager) is not at the machine")
    func systemService() {
        var logind = FakeLogind()
        logind.add("2")
        logind.displays[alice] = "2"
        #expect(!isLocal(judge(logind)))
        logind.userManagers[pid] = 1001
        #expect(!isLocal(judge(logind)))
    }
}

// Issue 40, item 4: lightdm's XDMCP displays reach its root worker with
// PAM_TTY "HOST:N" and no PAM_RHOST.
@Suite("An X display on another host is not at the machine")
struct XDisplayLocalityTests {
    func judge(terminal: String, uid: uid_t = 0, logindRuns: Bool = true) -> Locality {
        LocalityRule(logind: FakeLogind(logindRuns: logindRuns)).judge(CallerFacts(uid: uid, pid: 500, terminal: terminal))
    }

    @Test("a display on a host, localhost too, is remote for root's worker and for anyone",
          arguments: ["xterminal.example:0", "192.0.2.7:1", "localhost:10.0", "tcp/xterminal.example:0", "::1:0", "[::1]:0", "xterminal::0"])
    func remoteDisplays(terminal: String) {
        #expect(judge(terminal: terminal) != .atTheMachine)
        #expect(judge(terminal: terminal, logindRuns: false) != .atTheMachine)
        #expect(judge(terminal: terminal, uid: 1000, logindRuns: false) != .atTheMachine)
    }

    @Test("this machine's own displays and terminals are judged as before",
          arguments: [":0", ":1.0", "unix:0", "unix/:0", "/dev/tty7", "tty1", "pts/3", "ssh"])
    func localDisplays(terminal: String) {
        #expect(judge(terminal: terminal) == .atTheMachine)
        #expect(XDisplayName.remoteHost(of: terminal) == nil)
    }

    @Test("the request's tty travels into the caller's facts, from root and from anyone")
    func terminalInFacts() {
        var request = HelperRequest(operation: .status, user: "alice", tty: "xterminal.example:0")
        request.callerUID = 0
        request.callerPID = 77
        #expect(CallerFacts(request: request, realUID: 0).terminal == "xterminal.example:0")
        #expect(CallerFacts(request: request, realUID: 1000).terminal == "xterminal.example:0")
        #expect(XDisplayName.remoteHost(of: "xterminal.example:0") == "xterminal.example")
    }
}
