import Testing
@testable import PinGateCore

@Suite("The lockout schedule, step by step with an injected clock")
struct LockoutScheduleTests {
    @Test("failures 1-4 are free; 5-9 lock for 1, 5, 15, 30, 90 min; the 10th disables")
    func fullSchedule() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let verifier = store.verifier
        let expectedTimeouts: [Int: Int64] = [5: 60, 6: 300, 7: 900, 8: 1_800, 9: 5_400]
        for failure in 1...10 {
            let outcome = verifier.verify(uid: 1000, input: secret(wrongPIN(failure)))
            let timeout = expectedTimeouts[failure] ?? 0
            #expect(outcome == .wrong(failures: failure, attemptsLeft: max(0, 5 - failure),
                                      lockedSeconds: failure == 10 ? 5_400 : timeout, disabled: failure == 10),
                    "failure \(failure)")
            if failure >= 5 && failure < 10 {
                // During the timeout: refused, not counted, not verified.
                store.clock.advance(by: timeout - 1)
                #expect(verifier.verify(uid: 1000, input: secret("0427")) == .locked(seconds: 1, failures: failure))
                #expect(try store.record()?.failures == failure)
                // Its last whole second holds too (the boot clock's stamps
                // are cut to whole seconds): never a moment early.
                store.clock.advance(by: 1)
                #expect(verifier.verify(uid: 1000, input: secret("0427")) == .locked(seconds: 1, failures: failure))
                store.clock.advance(by: 1)
            }
        }
        #expect(verifier.verify(uid: 1000, input: secret("0427")) == .disabled(failures: 10))
        store.clock.advance(by: 365 * 86_400)
        #expect(verifier.verify(uid: 1000, input: secret("0427")) == .disabled(failures: 10))
        #expect(try store.administration.unlock(uid: 1000))
        #expect(verifier.verify(uid: 1000, input: secret("0427")) == .ok)
    }

    @Test("success clears the count")
    func successClears() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        for guess in 1...4 { _ = store.verifier.verify(uid: 1000, input: secret(wrongPIN(guess))) }
        #expect(try store.record()?.failures == 4)
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
        #expect(try store.record()?.failures == 0)
        #expect(try store.record()?.lastSuccess == store.clock.now())
    }

    @Test("a timeout runs from the last failure")
    func timeoutFromLastFailure() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        for guess in 1...5 { _ = store.verifier.verify(uid: 1000, input: secret(wrongPIN(guess))) }
        store.clock.advance(by: 59)
        #expect(store.verifier.status(uid: 1000) == .locked(seconds: 1, failures: 5))
        store.clock.advance(by: 1)
        #expect(store.verifier.status(uid: 1000) == .locked(seconds: 1, failures: 5))
        store.clock.advance(by: 1)
        #expect(store.verifier.status(uid: 1000) == .enrolled(kind: .pin, gridSize: 0, pinLength: 4, failures: 5))
    }

    @Test("a timeout holds through its last whole second: stamps cut to whole seconds never end it early")
    func lastWholeSecondHolds() throws {
        // A failure at boot second 100.93 is stamped 100; at 160.0 the
        // stamps are 60 apart, but only 59.07 s have passed.
        let schedule = Policy().lockout
        var record = UserRecord(uid: 1000, binding: .account("user1000"), kind: .pin, gridSize: 0, pinLength: 4, hash: "", now: 0)
        record.failures = 5
        let boot = try #require(BootID(parsing: "b9b8d56f-1535-46aa-bf9c-8a1a10498584"))
        record.lastFailureBoot = BootInstant(bootID: boot, seconds: 100)
        let at = { (seconds: Int64) in ClockReading(wall: 0, boot: BootInstant(bootID: boot, seconds: seconds)) }
        #expect(schedule.block(for: record, now: at(100)) == .timeout(remaining: 60, restartsFromNow: false))
        #expect(schedule.block(for: record, now: at(160)) == .timeout(remaining: 1, restartsFromNow: false))
        #expect(schedule.block(for: record, now: at(161)) == nil)
    }

    @Test("malformed input is refused without counting", arguments: ["123", "12345", "abcd", "", "1-2-3-4"])
    func malformedNotCounted(text: String) throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        guard case .malformed = store.verifier.verify(uid: 1000, input: secret(text)) else {
            Issue.record("expected malformed"); return
        }
        #expect(try store.record()?.failures == 0)
    }

    @Test("a new verifier (a new process) keeps the count")
    func persistence() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        for guess in 1...5 { _ = store.verifier.verify(uid: 1000, input: secret(wrongPIN(guess))) }
        let afterReboot = Verifier(store: Store(location: store.location, accounts: store.accounts), policy: store.policy, clock: store.clock)
        #expect(afterReboot.verify(uid: 1000, input: secret("0427")) == .locked(seconds: 60, failures: 5))
    }

    @Test("not enrolled is answered without a record being created")
    func notEnrolled() throws {
        let store = try TestStore()
        #expect(store.verifier.verify(uid: 4242, input: secret("0427")) == .notEnrolled)
        #expect(store.verifier.status(uid: 4242) == .notEnrolled)
        #expect(try store.store.enrolledUIDs().isEmpty)
    }

    @Test("change verifies the current PIN (counted) and replaces the credential")
    func change() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let pattern = try Credential(parsing: secret("1-5-9-6"), kind: .pattern, gridSize: 3, policy: store.policy)
        #expect(store.verifier.change(uid: 1000, current: secret("1111"), replacement: pattern)
                == .wrong(failures: 1, attemptsLeft: 4, lockedSeconds: 0, disabled: false))
        #expect(store.verifier.change(uid: 1000, current: secret("0427"), replacement: pattern) == .ok)
        #expect(try store.record()?.kind == .pattern)
        #expect(store.verifier.verify(uid: 1000, input: secret("1596")) == .ok)
        guard case .malformed = store.verifier.verify(uid: 1000, input: secret("0427")) else {
            Issue.record("a PIN typed for a 3x3 pattern with a 0 is malformed"); return
        }
    }

    @Test("changed cost parameters upgrade the hash on the next success")
    func rehashOnSuccess() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let before = try #require(try store.record()).hash
        store.policy.kdf = KDFParameters(operations: 2, memoryBytes: 16 << 10)
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
        let after = try #require(try store.record()).hash
        #expect(before != after && after.contains("m=16,t=2"))
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
    }
}
