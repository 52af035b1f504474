import Testing
@testable import PinGateCore

// Timeouts are measured on the boot clock, which nobody can set; the wall
// clock only dates the record. A reboot (or a record with no boot stamp)
// restarts the full timeout. Five failures start the first timeout: 60 s.
@Suite("Timeouts run on the boot clock: no clock change shortens one")
struct LockoutClockTests {
    /// A store with 0427 enrolled and five failures counted: 60 s to wait.
    func lockedStore() throws -> TestStore {
        let store = try TestStore()
        try store.enrollPIN("0427")
        for guess in 1...5 { _ = store.verifier.verify(uid: 1000, input: secret(wrongPIN(guess))) }
        return store
    }

    @Test("the wall clock set a day forward does not end a timeout")
    func wallClockForward() throws {
        let store = try lockedStore()
        store.clock.advance(by: 10)
        store.clock.moveWallClock(by: 86_400)
        #expect(store.verifier.status(uid: 1000) == .locked(seconds: 50, failures: 5))
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .locked(seconds: 50, failures: 5))
        store.clock.advance(by: 51)  // its last whole second holds too
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
    }

    @Test("the wall clock set a day back neither ends nor extends a timeout, and nothing is written")
    func wallClockBack() throws {
        let store = try lockedStore()
        store.clock.advance(by: 10)
        store.clock.moveWallClock(by: -86_400)
        let before = try store.record()
        #expect(store.verifier.status(uid: 1000) == .locked(seconds: 50, failures: 5))
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .locked(seconds: 50, failures: 5))
        #expect(try store.record() == before)
        store.clock.advance(by: 51)
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
    }

    @Test("a timeout that ran its full length on the boot clock has expired, whatever the wall clock reads")
    func expiresOnTheBootClock() throws {
        let store = try lockedStore()
        store.clock.advance(by: 61)  // its full length and its last whole second
        store.clock.moveWallClock(by: -86_400)
        #expect(store.verifier.status(uid: 1000) == .enrolled(kind: .pin, gridSize: 0, pinLength: 4, failures: 5))
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
    }

    @Test("after a reboot the full timeout restarts from now, written to the record")
    func rebootRestartsTheTimeout() throws {
        let store = try lockedStore()
        store.clock.advance(by: 30)
        store.clock.reboot()
        store.clock.advance(by: 5)
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .locked(seconds: 60, failures: 5))
        let record = try #require(try store.record())
        #expect(record.lastFailureBoot == store.clock.bootNow())
        #expect(record.lastFailure == store.clock.now())
        #expect(record.failures == 5)
        store.clock.advance(by: 59)
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .locked(seconds: 1, failures: 5))
        store.clock.advance(by: 2)
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
    }

    @Test("status after a reboot reports the full timeout and writes its restart, so that it runs out with no attempt made")
    func statusAfterReboot() throws {
        // No client attempts while the status says locked (the module, the
        // CLI and the lock screen all ask first): were the restart left to
        // an attempt, the timeout would never run out.
        let store = try lockedStore()
        store.clock.advance(by: 30)
        store.clock.reboot()
        store.clock.advance(by: 5)
        #expect(store.verifier.status(uid: 1000) == .locked(seconds: 60, failures: 5))
        let record = try #require(try store.record())
        #expect(record.lastFailureBoot == store.clock.bootNow())
        #expect(record.failures == 5)
        store.clock.advance(by: 59)
        #expect(store.verifier.status(uid: 1000) == .locked(seconds: 1, failures: 5))
        store.clock.advance(by: 2)
        #expect(store.verifier.status(uid: 1000) == .enrolled(kind: .pin, gridSize: 0, pinLength: 4, failures: 5))
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
    }

    @Test("a record without a boot stamp (written before them) restarts the full timeout, durably")
    func recordWithoutBootStamp() throws {
        let store = try lockedStore()
        try store.store.updateRecord(uid: 1000) { $0.lastFailureBoot = nil }
        store.clock.advance(by: 30)
        #expect(store.verifier.status(uid: 1000) == .locked(seconds: 60, failures: 5))
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .locked(seconds: 60, failures: 5))
        #expect(try store.record()?.lastFailureBoot == store.clock.bootNow())
        store.clock.advance(by: 61)
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
    }

    @Test("a boot clock that cannot be read never ends a timeout")
    func unreadableBootClock() throws {
        let store = try lockedStore()
        store.clock.advance(by: 3_600)
        let verifier = Verifier(store: store.store, policy: store.policy, clock: WallClockOnly(store.clock))
        #expect(verifier.status(uid: 1000) == .locked(seconds: 60, failures: 5))
        #expect(verifier.verify(uid: 1000, input: secret("0427")) == .locked(seconds: 60, failures: 5))
        store.clock.advance(by: 3_600)
        #expect(verifier.verify(uid: 1000, input: secret("0427")) == .locked(seconds: 60, failures: 5))
    }

    @Test("each failure stamps the wall clock for display and the boot clock for the timeout")
    func failuresAreStampedOnBothClocks() throws {
        let store = try lockedStore()
        let record = try #require(try store.record())
        #expect(record.lastFailure == store.clock.now())
        #expect(record.lastFailureBoot == store.clock.bootNow())
    }

    @Test("an admin unlock clears the last failure on both clocks")
    func unlockClearsBothStamps() throws {
        let store = try lockedStore()
        #expect(try store.administration.unlock(uid: 1000))
        let record = try #require(try store.record())
        #expect(record.lastFailure == 0 && record.lastFailureBoot == nil)
    }
}

/// A system whose boot clock cannot be read (no /proc).
private struct WallClockOnly: Clock {
    let wall: ManualClock
    init(_ wall: ManualClock) { self.wall = wall }
    func now() -> Int64 { wall.now() }
    func bootNow() -> BootInstant? { nil }
}
