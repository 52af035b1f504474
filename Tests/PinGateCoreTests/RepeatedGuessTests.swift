import Testing
@testable import PinGateCore

// "Only attempts a person made are counted": the answer verified wrong last
// time, typed again (a lock screen re-running PAM with the same buffer, Enter
// pressed twice), is wrong without a second count.
@Suite("The same wrong answer again is not counted again")
struct RepeatedGuessTests {
    @Test("1,000 identical wrong submissions count one failure; then the right PIN works")
    func retryLoop() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        #expect(store.verifier.verify(uid: 1000, input: secret("1397")) == .wrong(failures: 1, attemptsLeft: 4, lockedSeconds: 0, disabled: false))
        for _ in 2...1_000 {
            let outcome = store.verifier.verify(uid: 1000, input: secret("1397"))
            guard outcome == .repeatedWrong(failures: 1, attemptsLeft: 4) else { Issue.record("answered \(outcome)"); return }
        }
        #expect(try store.record()?.failures == 1)
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
        #expect(try store.record()?.pendingNotice?.failures == 1, "the notice tells of one attempt, not 1,000")
    }

    @Test("a different wrong answer counts, and so does the first one again after it")
    func onlyConsecutiveRepeats() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        _ = store.verifier.verify(uid: 1000, input: secret("1397"))
        _ = store.verifier.verify(uid: 1000, input: secret("1398"))
        _ = store.verifier.verify(uid: 1000, input: secret("1397"))
        #expect(try store.record()?.failures == 3)
    }

    @Test("a success, an unlock and a new credential forget the last wrong answer")
    func clearedBySuccessUnlockAndChange() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        _ = store.verifier.verify(uid: 1000, input: secret("1397"))
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
        #expect(try store.record()?.lastWrongTag == nil)
        #expect(store.verifier.verify(uid: 1000, input: secret("1397")) == .wrong(failures: 1, attemptsLeft: 4, lockedSeconds: 0, disabled: false))
        #expect(try store.administration.unlock(uid: 1000))
        #expect(try store.record()?.lastWrongTag == nil)
        _ = store.verifier.verify(uid: 1000, input: secret("1397"))
        let replacement = try Credential(parsing: secret("5813"), kind: .pin, gridSize: 0, policy: store.policy)
        #expect(try store.administration.replaceCredential(uid: 1000, with: replacement))
        #expect(store.verifier.verify(uid: 1000, input: secret("1397")) == .wrong(failures: 1, attemptsLeft: 4, lockedSeconds: 0, disabled: false))
    }

    @Test("identical guesses made in parallel before any is verified all count (at most 5 verified)")
    func parallelIdenticalGuessesCount() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let first = ParkedAttempt(store.verifier, input: "1397", parkedAt: .released)
        #expect(store.verifier.verify(uid: 1000, input: secret("1397")) == .wrong(failures: 2, attemptsLeft: 3, lockedSeconds: 0, disabled: false))
        #expect(first.finish() == .wrong(failures: 1, attemptsLeft: 4, lockedSeconds: 0, disabled: false))
        #expect(try store.record()?.failures == 2)
    }

    @Test("the tag is keyed, bound to the user, and not the pre-hash")
    func tagIsKeyedAndDomainSeparated() throws {
        let pin = try Credential(parsing: secret("1397"), kind: .pin, gridSize: 0, policy: Policy())
        let parameters = KDFParameters(operations: 1, memoryBytes: 8 << 10)
        let hasher = CredentialHasher(key: MachineKey.generate(), parameters: parameters)
        let other = CredentialHasher(key: MachineKey.generate(), parameters: parameters)
        let tag = hasher.repeatTag(pin, uid: 1000)
        // Results first: #expect cannot take a ~Copyable Secret.
        let count = tag.count
        let same = tag.constantTimeEquals(hasher.repeatTag(pin, uid: 1000))
        let otherUser = tag.constantTimeEquals(hasher.repeatTag(pin, uid: 1001))
        let otherKey = tag.constantTimeEquals(other.repeatTag(pin, uid: 1000))
        let preHash = tag.constantTimeEquals(hasher.keyedPreHash(pin, uid: 1000))
        #expect(count == 32)
        #expect(same)
        #expect(!otherUser)
        #expect(!otherKey)
        #expect(!preHash)
    }
}
