import Glibc

/// A user from the passwd database (getpwnam_r/getpwuid_r).
public struct SystemUser: Sendable, Equatable {
    public let name: String
    public let uid: UserID
    public let gid: GroupID
    public let home: String

    public static func lookup(name: String) -> SystemUser? {
        lookup { entry, buffer, size, result in getpwnam_r(name, entry, buffer, size, result) }
    }

    public static func lookup(uid: UserID) -> SystemUser? {
        lookup { entry, buffer, size, result in getpwuid_r(uid, entry, buffer, size, result) }
    }

    /// Whether the passwd database has an entry for `uid`; nil when it could
    /// not say, so that an outage is never taken for a deleted account. Only
    /// glibc's own "not found" (status 0, no entry) is a no: some directory
    /// services' modules report being out of reach as ENOENT.
    public static func exists(uid: UserID) -> Bool? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>? = nil
        return withNSSBuffer({ getpwuid_r(uid, &entry, $0, $1, &result) }) { status in
            status == 0 ? result != nil : nil
        }
    }

    /// The name of `uid`'s account, as getpwuid gives it (the first entry of
    /// a uid wins), or that there is none, or that the database could not
    /// say (as in `exists(uid:)`: an outage is never taken for a deletion).
    public static func account(forUID uid: UserID) -> AccountLookup {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>? = nil
        return withNSSBuffer({ getpwuid_r(uid, &entry, $0, $1, &result) }) { status in
            guard status == 0 else { return .unavailable }
            guard result != nil, let name = entry.pw_name else { return .noAccount }
            return .named(String(cString: name))
        }
    }

    /// The names of many uids: one pass over the passwd database (getpwent)
    /// instead of a getpwuid per uid, each of which scans all of /etc/passwd —
    /// quadratic for `pingate list` (10,000 users: 6.6 s, now 0.1 s). The
    /// pass stops once every uid is found; uids it does not return (a source
    /// that does not enumerate) are looked up one by one. As with getpwuid,
    /// the first entry of a uid wins. Not thread-safe (getpwent).
    public static func names(forUIDs uids: [UserID]) -> [UserID: String] {
        var wanted = Set(uids)
        var names: [UserID: String] = [:]
        if wanted.count > 16 {
            setpwent()
            while !wanted.isEmpty, let entry = getpwent() {
                let uid = entry.pointee.pw_uid
                if wanted.contains(uid), let name = entry.pointee.pw_name {
                    names[uid] = String(cString: name)
                    wanted.remove(uid)
                }
            }
            endpwent()
        }
        for uid in wanted {
            if let user = lookup(uid: uid) { names[uid] = user.name }
        }
        return names
    }

    private static func lookup(
        _ call: (UnsafeMutablePointer<passwd>, UnsafeMutablePointer<CChar>, Int, UnsafeMutablePointer<UnsafeMutablePointer<passwd>?>) -> CInt
    ) -> SystemUser? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>? = nil
        return withNSSBuffer({ call(&entry, $0, $1, &result) }) {
            guard result != nil, let name = entry.pw_name else { return nil }
            return SystemUser(
                name: String(cString: name), uid: entry.pw_uid, gid: entry.pw_gid,
                home: entry.pw_dir.map { String(cString: $0) } ?? "/")
        }
    }
}

/// What the passwd database says of a uid now.
public enum AccountLookup: Equatable, Sendable {
    /// The account's name.
    case named(String)
    /// No account has the uid.
    case noAccount
    /// The database could not answer (a directory service out of reach).
    case unavailable
}

/// A group from the group database (getgrnam_r).
public struct SystemGroup: Sendable, Equatable {
    public let name: String
    public let gid: GroupID

    public static func lookup(name: String) -> SystemGroup? {
        var entry = group()
        var result: UnsafeMutablePointer<group>? = nil
        return withNSSBuffer({ getgrnam_r(name, &entry, $0, $1, &result) }) {
            result != nil ? SystemGroup(name: name, gid: entry.gr_gid) : nil
        }
    }

    /// Every user in the group: those the group database lists, and those
    /// whose primary group it is (passwd's gid, which /etc/group never shows).
    public var members: [String] {
        var entry = group()
        var result: UnsafeMutablePointer<group>? = nil
        var names: [String] = withNSSBuffer({ getgrgid_r(gid, &entry, $0, $1, &result) }) {
            guard result != nil, var member = entry.gr_mem else { return nil }
            var listed: [String] = []
            while let name = member.pointee {
                listed.append(String(cString: name))
                member += 1
            }
            return listed
        } ?? []
        setpwent()
        while let user = getpwent() {
            if user.pointee.pw_gid == gid, let name = user.pointee.pw_name { names.append(String(cString: name)) }
        }
        endpwent()
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    public static func lookup(gid: GroupID) -> SystemGroup? {
        var entry = group()
        var result: UnsafeMutablePointer<group>? = nil
        return withNSSBuffer({ getgrgid_r(gid, &entry, $0, $1, &result) }) {
            guard result != nil, let name = entry.gr_name else { return nil }
            return SystemGroup(name: String(cString: name), gid: gid)
        }
    }
}

/// Runs a reentrant passwd or group lookup (getpwnam_r and the like) with a
/// scratch buffer for the entry's strings, then `read`s the entry while the
/// buffer lives. The buffer starts at 4 KiB and doubles while the call says
/// ERANGE (a group with many members), up to 16 MiB; it is not zero-filled:
/// the call writes all it returns, and zeroing a fixed 64 KiB cost a quarter
/// of a helper run's instructions (and still failed a group larger than it).
func withNSSBuffer<Result>(_ lookup: (UnsafeMutablePointer<CChar>, Int) -> CInt, read: () -> Result?) -> Result? {
    withNSSBuffer(lookup) { status in status == 0 ? read() : nil }
}

/// The same, for a caller that tells the lookup's failures apart: `finish`
/// gets its status once the buffer was large enough (or the largest failed).
func withNSSBuffer<Result>(_ lookup: (UnsafeMutablePointer<CChar>, Int) -> CInt, finish: (CInt) -> Result) -> Result {
    var size = 4096
    while true {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
        defer { buffer.deallocate() }
        let status = lookup(buffer, size)
        if status == ERANGE && size < 16 << 20 {
            size *= 2
            continue
        }
        return finish(status)
    }
}
