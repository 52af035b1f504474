import Testing
@testable import PinGateCore

// A success is verified with no lock held, so other attempts may be counted
// between its count and its clear. These tests park a right PIN there.
@Suite("A success clears only the failures counted up to its own attempt")
struct SuccessClearingTests {
    @Test("wrong guesses counted while a right PIN is verified stay counted after it succeeds")
    func racedWrongGuessesStayCounted() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let right = ParkedAttempt(store.verifier, input: "0427", parkedAt: .released)
        #expect(store.verifier.verify(uid: 1000, input: secret("1111"))
                == .wrong(failures: 2, attemptsLeft: 3, lockedSeconds: 0, disabled: false))
        #expect(store.verifier.verify(uid: 1000, input: secret("2222"))
                == .wrong(failures: 3, attemptsLeft: 2, lockedSeconds: 0, disabled: false))
        #expect(right.finish() == .ok)
        #expect(try store.record()?.failures == 2)
    }

    @Test("a success that finishes after a later success has cleared leaves 0")
    func earlierSuccessAfterLaterClear() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let earlier = ParkedAttempt(store.verifier, input: "0427", parkedAt: .released)
        _ = store.verifier.verify(uid: 1000, input: secret("1111"))
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
        #expect(try store.record()?.failures == 0)
        #expect(earlier.finish() == .ok)
        #expect(try store.record()?.failures == 0)
    }

    @Test("a PIN root replaced while it was being verified is no success and does not undo the change")
    func credentialReplacedDuringVerification() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let old = ParkedAttempt(store.verifier, input: "0427", parkedAt: .released)
        let replacement = try Credential(parsing: secret("5813"), kind: .pin, gridSize: 0, policy: store.policy)
        #expect(try store.administration.replaceCredential(uid: 1000, with: replacement))
        let newHash = try store.record()?.hash
        let outcome = old.finish()
        #expect(outcome != .ok, "the old PIN answered \(outcome)")
        #expect(try store.record()?.hash == newHash, "the new credential was overwritten")
        #expect(store.verifier.verify(uid: 1000, input: secret("5813")) == .ok)
    }

    // A success is counted first, as every attempt is (stamped as a failure
    // now); the clear must not leave that stamp behind as a failure that
    // never was. `pingate status` showed "failures: 0" and "last failure:"
    // at the time of the success.
    @Test("a success that leaves no failure puts back the last-failure stamps it found")
    func successLeavesNoStampOfItsOwn() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        store.clock.advance(by: 60)
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
        let record = try #require(try store.record())
        #expect(record.failures == 0)
        #expect(record.lastFailure == 0, "never failed, but the last failure reads \(record.lastFailure)")
        #expect(record.lastFailureBoot == nil)
    }

    @Test("a success after failures keeps the time of the last real failure")
    func successKeepsTheLastRealFailure() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        _ = store.verifier.verify(uid: 1000, input: secret("1111"))
        let failed = try #require(try store.record())
        store.clock.advance(by: 60)
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
        let record = try #require(try store.record())
        #expect(record.failures == 0)
        #expect(record.lastFailure == failed.lastFailure)
        #expect(record.lastFailureBoot == failed.lastFailureBoot)
    }

    @Test("a success that leaves raced failures keeps the stamp of the last of them")
    func successWithRacedFailuresKeepsTheirStamp() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let right = ParkedAttempt(store.verifier, input: "0427", parkedAt: .released)
        store.clock.advance(by: 60)
        _ = store.verifier.verify(uid: 1000, input: secret("1111"))
        let raced = try #require(try store.record())
        #expect(right.finish() == .ok)
        let record = try #require(try store.record())
        #expect(record.failures == 1)
        #expect(record.lastFailure == raced.lastFailure)
        #expect(record.lastFailureBoot == raced.lastFailureBoot)
    }

    @Test("each counted attempt takes the next attempt serial, and an admin unlock keeps it")
    func attemptSerialIsMonotonic() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        for guess in 1...3 { _ = store.verifier.verify(uid: 1000, input: secret(wrongPIN(guess))) }
        _ = store.verifier.verify(uid: 1000, input: secret("0427"))
        #expect(try store.record()?.attemptSerial == 4)
        #expect(try store.administration.unlock(uid: 1000))
        #expect(try store.record()?.attemptSerial == 4)
        guard case .malformed = store.verifier.verify(uid: 1000, input: secret("12")) else {
            Issue.record("expected malformed"); return
        }
        #expect(try store.record()?.attemptSerial == 4)
    }
}
