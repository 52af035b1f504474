import Glibc
import Testing
@testable import PinGateCore

/// Issue 32, item 4: records are kept one per uid, and uids are reused. A
/// record names the account it was made for, and is refused once its uid is
/// another account's, or none's; records of format 1 are refused until root
/// migrates them (`pingate init --upgrade`).
@Suite("Records belong to an account, not to a uid")
struct AccountBindingTests {
    /// The record's bytes, to show that a refusal wrote nothing.
    func bytes(_ store: TestStore) -> [UInt8] {
        let descriptor = open(store.path(), O_RDONLY)
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: RecordCodec.fileSize)
        #expect(pread(descriptor, &bytes, bytes.count, 0) == bytes.count)
        return bytes
    }

    /// Rewrites the record as records were before they named their account:
    /// both slots of format 1.
    func makeFormat1(_ store: TestStore) throws {
        var record = try #require(RecordCodec.decodeFile(bytes(store))).record
        record.binding = .unbound
        let file = RecordCodec.encode(record, sequence: 1) + RecordCodec.encode(record, sequence: 2)
        let descriptor = open(store.path(), O_WRONLY)
        defer { close(descriptor) }
        #expect(pwrite(descriptor, file, file.count, 0) == file.count)
    }

    func slotBindings(_ store: TestStore) -> [AccountBinding?] {
        let file = bytes(store)
        return (0..<RecordCodec.slotCount).map {
            RecordCodec.decode(file[($0 * RecordCodec.slotSize)..<(($0 + 1) * RecordCodec.slotSize)])?.record.binding
        }
    }

    func storeError(_ outcome: VerifyOutcome) -> String? {
        if case let .storeError(error) = outcome { return error.description } else { return nil }
    }

    func storeError(_ outcome: StatusOutcome) -> String? {
        if case let .storeError(error) = outcome { return error.description } else { return nil }
    }

    @Test("enrolment binds the record to the name its uid has")
    func enrolmentBinds() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        #expect(slotBindings(store).contains(.account("user1000")))
        #expect(try store.record()?.binding == .account("user1000"))
    }

    @Test("a deleted account's uid given to another: no PIN offered, nothing counted, the fix named")
    func uidGivenToAnotherAccount() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        store.accounts.set(1000, .named("dave"))
        let before = bytes(store)
        let status = try #require(storeError(store.verifier.status(uid: 1000)))
        #expect(status.contains("was enrolled for user1000, but uid 1000 is dave now"))
        #expect(status.contains("fix: pingate remove dave"))
        #expect(storeError(store.verifier.verify(uid: 1000, input: secret("0427"))) == status)
        #expect(storeError(store.verifier.verify(uid: 1000, input: secret(wrongPIN(1)))) == status)
        #expect(bytes(store) == before, "nothing counted or written")
        #expect(throws: StoreError.recordAccountChanged(path: store.path(), uid: 1000, enrolledFor: "user1000", now: "dave")) {
            try store.administration.unlock(uid: 1000)
        }
    }

    @Test("a deleted account's record is refused while no account has its uid")
    func deletedAccount() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        store.accounts.set(1000, .noAccount)
        let status = try #require(storeError(store.verifier.status(uid: 1000)))
        #expect(status.contains("no account has uid 1000 now"))
        #expect(status.contains("fix: pingate remove 1000"))
        #expect(storeError(store.verifier.verify(uid: 1000, input: secret("0427"))) != nil)
    }

    @Test("a user database that does not answer fails closed")
    func lookupOutage() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        store.accounts.set(1000, .unavailable)
        let before = bytes(store)
        #expect(storeError(store.verifier.verify(uid: 1000, input: secret("0427")))?.contains("the user database did not answer") == true)
        #expect(bytes(store) == before)
        store.accounts.set(1000, .named("user1000"))
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
    }

    @Test("root's remove and enroll --force repair a record of another account")
    func removeAndReenrolRepair() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        store.accounts.set(1000, .named("dave"))
        try store.enrollPIN("3859")
        #expect(try store.record()?.binding == .account("dave"))
        #expect(store.verifier.verify(uid: 1000, input: secret("3859")) == .ok)
        store.accounts.set(1000, .noAccount)
        #expect(try store.administration.remove(uid: 1000))
        #expect(try store.record() == nil)
    }

    @Test("a record of format 1 is refused, saying to run pingate init --upgrade")
    func format1Refused() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        try makeFormat1(store)
        let before = bytes(store)
        let message = try #require(storeError(store.verifier.verify(uid: 1000, input: secret("0427"))))
        #expect(message.contains("pingate init --upgrade"))
        #expect(bytes(store) == before)
    }

    @Test("migration binds a record of format 1 to its uid's account, in both slots, and its PIN works as before")
    func migrationBinds() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        _ = store.verifier.verify(uid: 1000, input: secret(wrongPIN(1)))
        try makeFormat1(store)
        #expect(slotBindings(store) == [.unbound, .unbound])
        #expect(try store.store.migrateRecords() == [.bound(uid: 1000, name: "user1000")])
        #expect(slotBindings(store) == [.account("user1000"), .account("user1000")])
        #expect(try store.record()?.failures == 1, "the state is kept")
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
        #expect(try store.store.migrateRecords() == [], "a bound record is never bound again")
    }

    @Test("an orphan at migration is bound to no account and stays refused, whoever gets its uid")
    func orphanStaysOrphan() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        try makeFormat1(store)
        store.accounts.set(1000, .noAccount)
        #expect(try store.store.migrateRecords() == [.orphaned(uid: 1000)])
        store.accounts.set(1000, .named("dave"))
        #expect(try store.store.migrateRecords() == [])
        let message = try #require(storeError(store.verifier.verify(uid: 1000, input: secret("0427"))))
        #expect(message.contains("had no account when it was migrated, but uid 1000 is dave now"))
    }

    @Test("migration while the user database does not answer leaves the record in format 1, untouched")
    func migrationOutage() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        try makeFormat1(store)
        let before = bytes(store)
        store.accounts.set(1000, .unavailable)
        guard case .leftUnbound(uid: 1000, _)? = try store.store.migrateRecords().first else {
            Issue.record("expected the record left unbound"); return
        }
        #expect(bytes(store) == before)
    }

    @Test("a slot of format 1 reads as unbound and is written as format 1; format 2 keeps the name, or none")
    func codec() throws {
        var record = UserRecord(uid: 1000, binding: .unbound, kind: .pin, gridSize: 0, pinLength: 4,
                                hash: "$argon2id$v=19$m=8,t=1,p=1$c2FsdA$aGFzaA", now: 1)
        let layout = RecordCodec.layout
        for binding in [AccountBinding.unbound, .noAccount, .account("carol"), .account(String(repeating: "é", count: 63) + "x")] {
            record.binding = binding
            let slot = RecordCodec.encode(record, sequence: 1)
            #expect(RecordCodec.decode(slot[...])?.record.binding == binding)
            let version = UInt16(slot[layout.formatVersion.offset]) | UInt16(slot[layout.formatVersion.offset + 1]) << 8
            #expect(version == (binding == .unbound ? 1 : 2))
        }
        record.binding = .account("carol")
        var slot = RecordCodec.encode(record, sequence: 1)
        slot[layout.userName.offset + 1] = 0
        RecordCodec.seal(&slot)
        #expect(RecordCodec.decode(slot[...]) == nil, "a NUL inside the name")
        slot = RecordCodec.encode(record, sequence: 1)
        slot[layout.userNameLength.offset] = UInt8(layout.userName.size)
        RecordCodec.seal(&slot)
        #expect(RecordCodec.decode(slot[...]) == nil, "a length past the field")
    }

    @Test("a name longer than a record holds is refused at enrolment, never cut")
    func longName() throws {
        let store = try TestStore()
        store.accounts.set(1000, .named(String(repeating: "a", count: 128)))
        #expect(throws: StoreError.accountNameTooLong(name: String(repeating: "a", count: 128), limit: 127)) {
            try store.enrollPIN("0427")
        }
        store.accounts.set(1000, .named(String(repeating: "a", count: 127)))
        try store.enrollPIN("0427")
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
    }
}
