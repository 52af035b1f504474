import Glibc

/// One logind session as sd-login reads it from logind's state file.
public struct LoginSession: Equatable, Sendable {
    public let id: String
    public let uid: UserID
    /// nil: the session has no seat (ssh, cron, a user manager's own session).
    public let seat: String?
    public let isRemote: Bool
    /// `user`, `greeter`, `lock-screen`, `background`, `manager`, …
    public let sessionClass: String
    public let isActive: Bool
    /// `closing`: its leader has ended (logged out), while processes it
    /// left behind keep it listed.
    public let isClosing: Bool
    /// The process that opened it; nil when logind does not say.
    public let leader: ProcessID?
    /// The leader's start time as it runs now (`ProcessInstance`); nil when it has ended.
    public let leaderStartTicks: UInt64?

    public init(id: String, uid: UserID, seat: String?, isRemote: Bool, sessionClass: String, isActive: Bool,
                isClosing: Bool = false, leader: ProcessID? = nil, leaderStartTicks: UInt64? = nil) {
        self.id = id
        self.uid = uid
        self.seat = seat
        self.isRemote = isRemote
        self.sessionClass = sessionClass
        self.isActive = isActive
        self.isClosing = isClosing
        self.leader = leader
        self.leaderStartTicks = leaderStartTicks
    }
}

/// The logind facts the locality rule reads. `SystemdLogin` asks sd-login;
/// unit tests give a table. Every method throws when logind's answer cannot
/// be had, and the rule then fails closed.
public protocol LoginSessions {
    /// True where logind (or elogind) runs. It always creates seat0, while a
    /// leftover /run/systemd/sessions, or systemd as PID 1 (`sd_booted`),
    /// says nothing about it.
    var logindRuns: Bool { get }
    /// The session that process `pid` (0: this one) belongs to; nil if none.
    func session(ofProcess pid: ProcessID) throws(Errno) -> String?
    func describe(session id: String) throws(Errno) -> LoginSession
    /// The uid whose own service manager (`user@UID.service`) runs `pid`; nil if none does.
    func userManagerOwner(ofProcess pid: ProcessID) throws(Errno) -> UserID?
    /// The user's graphical (or else text) session at a seat; nil if none.
    func displaySession(ofUser uid: UserID) throws(Errno) -> String?
    func sessions(ofUser uid: UserID) throws(Errno) -> [String]
}

/// sd-login from libsystemd: reads /proc/PID/cgroup, /run/systemd/sessions/ID
/// and /run/systemd/users/UID, the files logind writes. Each call turns
/// sd-login's negative errno into a thrown `Errno`; -ENODATA, its word for
/// "no such thing", into nil. libsystemd is loaded on first use
/// (`SDLogin.library`), so only a machine where logind runs pays for it.
public struct SystemdLogin: LoginSessions {
    public static let seat0Path = "/run/systemd/seats/seat0"

    public init() {}

    public var logindRuns: Bool { access(SystemdLogin.seat0Path, F_OK) == 0 }

    public func session(ofProcess pid: ProcessID) throws(Errno) -> String? {
        let sd = try SDLogin.loaded()
        return try optionalString { sd.pidGetSession(pid, $0) }
    }

    public func describe(session id: String) throws(Errno) -> LoginSession {
        let sd = try SDLogin.loaded()
        var uid: UserID = 0
        try check(sd.sessionGetUID(id, &uid))
        let seat = try optionalString { sd.sessionGetSeat(id, $0) }
        let sessionClass = try optionalString { sd.sessionGetClass(id, $0) }
        guard let sessionClass else { throw Errno(rawValue: ENODATA) }
        let leader = Self.leader(ofSession: id)
        return LoginSession(id: id, uid: uid, seat: seat?.isEmpty == false ? seat : nil,
                            isRemote: try check(sd.sessionIsRemote(id)) != 0,
                            sessionClass: sessionClass,
                            isActive: try check(sd.sessionIsActive(id)) != 0,
                            isClosing: try optionalString { sd.sessionGetState(id, $0) } == "closing",
                            leader: leader, leaderStartTicks: leader.flatMap { ProcessInstance.running($0)?.startTicks })
    }

    /// LEADER= of logind's file for session `id`: sd-login gained a call for
    /// it only in systemd 254, and Debian 12 has 252. Nil when it cannot be read.
    static func leader(ofSession id: String) -> ProcessID? {
        // logind's ids are letters and digits; anything else is no path to build.
        guard !id.isEmpty, id.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }),
              let text = (try? readSmallFile("/run/systemd/sessions/\(id)", limit: 65536)) ?? nil else { return nil }
        return leader(inSessionFile: text)
    }

    static func leader(inSessionFile text: String) -> ProcessID? {
        for line in text.split(separator: "\n") where line.hasPrefix("LEADER=") {
            guard let pid = ProcessID(line.dropFirst("LEADER=".count)), pid > 0 else { return nil }
            return pid
        }
        return nil
    }

    public func userManagerOwner(ofProcess pid: ProcessID) throws(Errno) -> UserID? {
        let sd = try SDLogin.loaded()
        guard let unit = try optionalString({ sd.pidGetUnit(pid, $0) }) else { return nil }
        var owner: UserID = 0
        let result = sd.pidGetOwnerUID(pid, &owner)
        if result == -ENODATA { return nil }
        try check(result)
        return unit == "user@\(owner).service" ? owner : nil
    }

    public func displaySession(ofUser uid: UserID) throws(Errno) -> String? {
        let sd = try SDLogin.loaded()
        let result: String?
        do { result = try optionalString { sd.uidGetDisplay(uid, $0) } } catch where error.rawValue == ENXIO || error.rawValue == ENOENT {
            return nil  // no state file: the user is not logged in
        }
        return result?.isEmpty == false ? result : nil
    }

    public func sessions(ofUser uid: UserID) throws(Errno) -> [String] {
        let sd = try SDLogin.loaded()
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil
        // -1: every session logind lists (SESSIONS=), not only the online ones.
        let count = try check(sd.uidGetSessions(uid, -1, &list))
        defer { free(list) }
        var ids: [String] = []
        for index in 0..<Int(count) {
            guard let item = list?[index] else { continue }
            ids.append(String(cString: item))
            free(item)
        }
        return ids
    }

    /// A string sd-login allocates; nil for -ENODATA.
    private func optionalString(_ call: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt) throws(Errno) -> String? {
        var text: UnsafeMutablePointer<CChar>? = nil
        let result = call(&text)
        defer { free(text) }
        if result == -ENODATA { return nil }
        try check(result)
        return text.map { String(cString: $0) }
    }

    @discardableResult
    private func check(_ result: CInt) throws(Errno) -> CInt {
        guard result >= 0 else { throw Errno(rawValue: -result) }
        return result
    }
}
