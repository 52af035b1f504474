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
