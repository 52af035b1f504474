/// Which account a record was made for: records are kept one per uid, and
/// uids are reused (Debian's adduser gives a new account the lowest free uid,
/// often a deleted account's), so a record names its account and a reader
/// refuses it once the uid is someone else's (issue 32, item 4).
///
/// The binding is the account's name, and only that. Nothing else that
/// changes when an account is made again with the same name and uid is both
/// cheap and reliable on Linux: passwd has no creation stamp or id; shadow's
/// last-change day is unreadable to the setgid helper and changes with every
/// password; a home directory's inode survives `userdel` without `-r`,
/// changes when a home is restored or moved, and would have the helper stat
/// (and automount) homes. An account made again with the same name and uid
/// owns every file the old one left; its PIN goes with them.
public enum AccountBinding: Equatable, Sendable {
    /// A record of format 1, from before records named their account: no
    /// reader uses it until root's `pingate init --upgrade` binds it.
    case unbound
    /// Made for the account of this name (`getpwuid` of its uid, at enrolment).
    case account(String)
    /// Migrated while its uid had no account: it stays an orphan, whoever is
    /// given the uid later.
    case noAccount

    /// The longest name a record holds, in bytes (its field's size, less one).
    static var longestName: Int { RecordCodec.layout.userName.size - 1 }

    /// The binding of a record root makes now for `uid`: the name its uid has.
    static func forEnrolment(uid: UInt32, accounts: any AccountDirectory) throws -> AccountBinding {
        switch accounts.account(forUID: uid) {
        case let .named(name):
            guard name.utf8.count <= longestName else { throw StoreError.accountNameTooLong(name: name, limit: longestName) }
            return .account(name)
        case .noAccount, .unavailable:
            throw StoreError.accountUnknown(uid: uid, path: nil)
        }
    }

    /// Why a record with this binding, at `path`, may not be used while
    /// `uid`'s account is `now`; nil when it may.
    func refusal(uid: UInt32, path: String, now: AccountLookup) -> StoreError? {
        switch (self, now) {
        case (.unbound, _):
            return .recordNotMigrated(path: path, uid: uid)
        case (_, .unavailable):
            return .accountUnknown(uid: uid, path: path)
        case let (.account(enrolled), .named(name)) where enrolled == name:
            return nil
        case let (.account(enrolled), .named(name)):
            return .recordAccountChanged(path: path, uid: uid, enrolledFor: enrolled, now: name)
        case let (.account(enrolled), .noAccount):
            return .recordAccountChanged(path: path, uid: uid, enrolledFor: enrolled, now: nil)
        case let (.noAccount, .named(name)):
            return .recordAccountChanged(path: path, uid: uid, enrolledFor: nil, now: name)
        case (.noAccount, .noAccount):
            return .recordAccountChanged(path: path, uid: uid, enrolledFor: nil, now: nil)
        }
    }
}

/// Who the uids are now: the passwd database (`SystemAccounts`) everywhere
/// but in tests, which give a table.
public protocol AccountDirectory: Sendable {
    func account(forUID uid: UInt32) -> AccountLookup
}

/// The passwd database, through NSS (getpwuid_r).
public struct SystemAccounts: AccountDirectory {
    public init() {}

    public func account(forUID uid: UInt32) -> AccountLookup {
        SystemUser.account(forUID: uid)
    }
}
