import Testing
@testable import PinGateCore

// "The owner sees every guess": failures a success clears are kept for a
// notice, which the owner is told once, wherever it is shown.
@Suite("The owner is told of the failed attempts before a success, once")
struct FailureNoticeTests {
    @Test("two wrong PINs in earlier sign-ins, then the right one: 2, from the first one's time; then nothing")
    func toldOnce() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let first = store.clock.now()
        _ = store.verifier.verify(uid: 1000, input: secret("1111"))
        store.clock.advance(by: 90)
        _ = store.verifier.verify(uid: 1000, input: secret("2222"))
        store.clock.advance(by: 90)
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
        #expect(try store.record()?.failures == 0)
        #expect(try store.record()?.pendingNotice == FailureNotice(failures: 2, firstAt: first))
        #expect(try store.verifier.takeNotice(uid: 1000) == FailureNotice(failures: 2, firstAt: first))
        #expect(try store.verifier.takeNotice(uid: 1000) == nil)
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
        #expect(try store.verifier.takeNotice(uid: 1000) == nil, "a success with no failures before it has nothing to tell")
    }

    @Test("before the PIN: the failures not yet told, cleared or not, from the first one's time")
    func beforeTheAttempt() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let first = store.clock.now()
        _ = store.verifier.verify(uid: 1000, input: secret("1111"))
        store.clock.advance(by: 90)
        #expect(try store.record()?.noticeBeforeAttempt == FailureNotice(failures: 1, firstAt: first), "a failure not cleared yet")
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
        _ = store.verifier.verify(uid: 1000, input: secret("2222"))
        #expect(try store.record()?.noticeBeforeAttempt == FailureNotice(failures: 2, firstAt: first), "one cleared unseen, one counted")
    }

    @Test("a success spends the notice only when exactly what was shown is unseen: a guess meanwhile is told next time")
    func spentOnlyAsShown() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        _ = store.verifier.verify(uid: 1000, input: secret("1111"))
        _ = store.verifier.verify(uid: 1000, input: secret("2222"))
        // The owner was shown 2; a job guesses once more before the owner's PIN.
        _ = store.verifier.verify(uid: 1000, input: secret("3333"))
        let shown = try #require(try store.record()?.noticeBeforeAttempt)
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
        #expect(try store.verifier.takeNotice(uid: 1000, shown: FailureNotice(failures: 2, firstAt: shown.firstAt)) == nil)
        #expect(try store.record()?.pendingNotice?.failures == 3)
        #expect(try store.verifier.takeNotice(uid: 1000, shown: shown)?.failures == 3)
        #expect(try store.record()?.pendingNotice == nil)
    }

    @Test("two sign-ins showed the same notice; the first spends it, a job guesses once: the second's success spends nothing")
    func aGuessCannotTakeTheSpentNoticesPlace() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        _ = store.verifier.verify(uid: 1000, input: secret("1111"))
        // A sudo and a lock screen both show "1 failed PIN attempt" before their questions.
        let shown = try #require(try store.record()?.noticeBeforeAttempt)
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
        #expect(try store.verifier.takeNotice(uid: 1000, shown: shown) == shown, "the first success spends it")
        store.clock.advance(by: 30)
        _ = store.verifier.verify(uid: 1000, input: secret("2222"))   // the job's guess
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
        #expect(try store.verifier.takeNotice(uid: 1000, shown: shown) == nil,
                "one unseen again, but not the one shown: it is told next time")
        #expect(try store.record()?.pendingNotice == FailureNotice(failures: 1, firstAt: shown.firstAt + 30))
    }

    @Test("a success where nothing is shown leaves the notice; later failures add to it, the first time stays")
    func waitsUntilShown() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let first = store.clock.now()
        _ = store.verifier.verify(uid: 1000, input: secret("1111"))
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)   // sudo: silent
        store.clock.advance(by: 3_600)
        _ = store.verifier.verify(uid: 1000, input: secret("2222"))
        _ = store.verifier.verify(uid: 1000, input: secret("3333"))
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
        #expect(try store.verifier.takeNotice(uid: 1000) == FailureNotice(failures: 3, firstAt: first))
    }

    @Test("the success's own count is not a failure, nor are wrong guesses raced against it, which stay counted")
    func ownAndRacedAttempts() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        _ = store.verifier.verify(uid: 1000, input: secret("1111"))
        let right = ParkedAttempt(store.verifier, input: "0427", parkedAt: .released)
        _ = store.verifier.verify(uid: 1000, input: secret("2222"))
        #expect(right.finish() == .ok)
        #expect(try store.record()?.failures == 1, "the raced wrong guess stays counted")
        #expect(try store.record()?.pendingNotice?.failures == 1, "only the failure before the success is told")
    }

    @Test("an admin's unlock or new credential clears the count, and the owner is still told")
    func adminClearsAreTold() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        for guess in ["1111", "2222", "3333", "4444", "5555"] { _ = store.verifier.verify(uid: 1000, input: secret(guess)) }
        #expect(try store.administration.unlock(uid: 1000))
        #expect(try store.record()?.failures == 0)
        #expect(try store.record()?.pendingNotice?.failures == 5)
    }

    @Test("a notice outlives a re-read: it is on disk in both slots' format")
    func onDisk() throws {
        var record = UserRecord(uid: 7, binding: .account("user7"), kind: .pin, gridSize: 0, pinLength: 4, hash: "h", now: 1)
        record.unseenFailures = 3
        record.unseenSince = 1_700_000_000
        record.firstFailure = 1_700_000_100
        let decoded = RecordCodec.decode(RecordCodec.encode(record, sequence: 1)[...])?.record
        #expect(decoded == record)
    }
}
