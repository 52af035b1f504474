extension Verifier {
    /// Spends `uid`'s notice after a success where the owner was shown
    /// `shown` before typing: only when exactly that is unseen now — as
    /// many failed attempts, the first at the same time — so an attempt made
    /// meanwhile is told next time rather than lost. The count alone is not
    /// enough: another sign-in of the owner's may have spent what was shown
    /// and a job's guess taken its place, one for one. Returns the notice
    /// spent.
    public func takeNotice(uid: UInt32, shown: FailureNotice) throws -> FailureNotice? {
        try store.withRecord(uid: uid, writable: true) { file in
            guard let file else { return nil }
            let taken: FailureNotice?? = try file.withLock {
                var record = try file.read()
                guard record.pendingNotice == shown, let notice = record.takeNotice() else { return nil }
                try file.write(record, durability: .pageCache)
                return notice
            }
            return taken ?? nil
        }
    }

    /// Takes `uid`'s notice of unseen failures, for a caller that shows it to
    /// the owner now (the module in a conversation that shows messages, the
    /// owner's own `pingate verify` or `status`): once taken it is gone, so
    /// each failure is told once. Nothing is written when there is none.
    public func takeNotice(uid: UInt32) throws -> FailureNotice? {
        try store.withRecord(uid: uid, writable: true) { file in
            guard let file else { return nil }
            let taken: FailureNotice?? = try file.withLock {
                var record = try file.read()
                guard let notice = record.takeNotice() else { return nil }
                // Lost in a crash, the notice is told again.
                try file.write(record, durability: .pageCache)
                return notice
            }
            // nil: root replaced the record meanwhile; its notice stays for next time.
            return taken ?? nil
        }
    }
}
