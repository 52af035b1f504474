/// What root's migration (`pingate init`) did with one record of format 1.
public enum RecordMigration: Equatable, Sendable {
    /// Bound to the account its uid has now.
    case bound(uid: UInt32, name: String)
    /// Its uid has no account: bound to none, it stays an orphan for good.
    case orphaned(uid: UInt32)
    /// Left in format 1, still refused: the reason (the user database did
    /// not answer, a name too long, an unreadable record).
    case leftUnbound(uid: UInt32, reason: String)
}

extension Store {
    /// Binds every record of format 1 to the account its uid has now, in
    /// place, under the record's lock, writing both slots so that neither
    /// holds format 1 afterwards. Root only. A record of format 2 is never
    /// bound again: that would hand a deleted account's PIN to whoever has
    /// its uid now. So a uid without an account is bound to none, and stays
    /// an orphan whoever is given the uid later (docs/design.md, section 4).
    /// Only records of format 1 are reported.
    public func migrateRecords() throws -> [RecordMigration] {
        try enrolledUIDs().compactMap { uid in
            do {
                return try migrateRecord(uid: uid)
            } catch {
                return .leftUnbound(uid: uid, reason: "\(error)")
            }
        }
    }

    private func migrateRecord(uid: UInt32) throws -> RecordMigration? {
        for _ in 0..<3 {
            let outcome: RecordMigration?? = try withRecord(uid: uid, writable: true) { file in
                guard let file else { return .some(nil) }
                return try file.withLock { () throws -> RecordMigration? in
                    var record = try file.readAnyAccount()
                    guard record.binding == .unbound else { return nil }
                    let outcome: RecordMigration
                    switch accounts.account(forUID: uid) {
                    case let .named(name):
                        guard name.utf8.count <= AccountBinding.longestName else {
                            return .leftUnbound(uid: uid, reason: "\(StoreError.accountNameTooLong(name: name, limit: AccountBinding.longestName))")
                        }
                        record.binding = .account(name)
                        outcome = .bound(uid: uid, name: name)
                    case .noAccount:
                        record.binding = .noAccount
                        outcome = .orphaned(uid: uid)
                    case .unavailable:
                        return .leftUnbound(uid: uid, reason: "\(StoreError.accountUnknown(uid: uid, path: location.recordPath(forUID: uid)))")
                    }
                    try file.write(record)
                    try file.write(record)
                    return outcome
                }
            }
            // nil: root replaced the record meanwhile; open it again.
            if let outcome { return outcome }
        }
        throw StoreError.recordReplaced(path: location.recordPath(forUID: uid), duringVerification: false)
    }
}
