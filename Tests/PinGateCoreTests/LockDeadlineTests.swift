import Glibc
import Testing
@testable import PinGateCore

// A second descriptor of the same file is a second open file description,
// so its locks conflict with ours exactly as another process's would: the
// "stopped helper" here is this test holding a lock and never letting go.
// Waits that would hang on a regression run under `within(seconds:)`, so
// such a test fails instead of stopping the suite.
@Suite("Lock waits end at a deadline", .serialized)
struct LockDeadlineTests {
    @Test("a flock held through another open file description: the wait gives up after ≈ the deadline")
    func flockWaitTimesOut() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let holder = try FileDescriptor.open(store.path(), .readWrite)
        defer { holder.close() }
        #expect(try holder.tryLockExclusive())
        let waiter = try FileDescriptor.open(store.path(), .readWrite)
        defer { waiter.close() }

        let start = monotonicNanoseconds()
        let acquired = try waiter.lockExclusive(until: .after(milliseconds: 300))
        let elapsed = milliseconds(since: start)
        #expect(!acquired)
        #expect(elapsed >= 300 && elapsed < 600, "gave up after \(elapsed) ms")
    }

    @Test("a lock released during the wait is taken before the deadline")
    func releasedLockIsTaken() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let holder = try FileDescriptor.open(store.path(), .readWrite)
        defer { holder.close() }
        #expect(try holder.tryLockExclusive())
        let release = Thread { sleep(nanoseconds: 100_000_000); holder.unlock() }
        defer { release.join() }
        let waiter = try FileDescriptor.open(store.path(), .readWrite)
        defer { waiter.close() }

        let start = monotonicNanoseconds()
        #expect(try waiter.lockExclusive(until: .after(milliseconds: 2_000)))
        #expect(milliseconds(since: start) < 500)
    }

    @Test("a passed deadline still takes a free lock: at least one attempt")
    func passedDeadlineTakesFreeLock() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let file = try FileDescriptor.open(store.path(), .readWrite)
        defer { file.close() }
        #expect(try file.lockExclusive(until: .after(milliseconds: 0)))
    }

    @Test("root's unlock on a busy record fails after LockWait's limit, naming this process as the holder")
    func busyRecordNamesHolder() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let holder = try FileDescriptor.open(store.path(), .readWrite)
        defer { holder.close() }
        #expect(try holder.tryLockExclusive())

        let administration = store.administration
        let start = monotonicNanoseconds()
        let outcome = within(seconds: 10) { Result { try administration.unlock(uid: 1000) } }
        let elapsed = milliseconds(since: start)
        let expected = LockHolder(processID: getpid(), command: ownCommand(), isStopped: false)
        #expect(throws: StoreError.recordBusy(path: store.path(), holder: expected)) { try #require(outcome).get() }
        #expect(elapsed >= LockWait.limitMilliseconds && elapsed < LockWait.limitMilliseconds + 500, "answered after \(elapsed) ms")
        #expect(String(describing: StoreError.recordBusy(path: "/r", holder: expected))
                == "record /r is busy: held by process \(getpid()) (\(ownCommand())); try again")
    }

    @Test("a verification stuck in flight during a lockout: the next attempt answers locked after ≈ the deadline, uncounted")
    func stuckInFlightAnswersLocked() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        try store.store.updateRecord(uid: 1000) { $0.failures = 5; $0.lastFailure = store.clock.now() }
        let inFlight = try FileDescriptor.open(store.path(), .readWrite)
        defer { inFlight.close() }
        #expect(try inFlight.tryLockByte(RecordFile.inFlightByte, shared: true))

        let verifier = store.verifier
        let start = monotonicNanoseconds()
        let outcome = within(seconds: 10) { verifier.verify(uid: 1000, input: secret("0427")) }
        let elapsed = milliseconds(since: start)
        #expect(outcome == .locked(seconds: 60, failures: 5))
        // The upper bound only has to tell "after the deadline" from "waited
        // for the stuck one"; a loaded 2-core machine adds hundreds of ms.
        #expect(elapsed >= LockWait.limitMilliseconds && elapsed < LockWait.limitMilliseconds + 1500, "answered after \(elapsed) ms")
        #expect(try store.record()?.failures == 5)
    }

    @Test("status never waits: it answers at once while the writer lock is held")
    func statusDoesNotWait() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let holder = try FileDescriptor.open(store.path(), .readWrite)
        defer { holder.close() }
        #expect(try holder.tryLockExclusive())
        let start = monotonicNanoseconds()
        #expect(store.verifier.status(uid: 1000) == .enrolled(kind: .pin, gridSize: 0, pinLength: 4, failures: 0))
        #expect(milliseconds(since: start) < 200)
    }

    @Test("status never waits for a held lock to write a timeout's restart after a reboot; the next one writes it")
    func statusRestartDoesNotWait() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        for guess in 1...5 { _ = store.verifier.verify(uid: 1000, input: secret(wrongPIN(guess))) }
        store.clock.reboot()
        let holder = try FileDescriptor.open(store.path(), .readWrite)
        #expect(try holder.tryLockExclusive())
        let start = monotonicNanoseconds()
        #expect(store.verifier.status(uid: 1000) == .locked(seconds: 60, failures: 5))
        #expect(milliseconds(since: start) < 200)
        #expect(try store.record()?.lastFailureBoot != store.clock.bootNow())
        holder.close()
        #expect(store.verifier.status(uid: 1000) == .locked(seconds: 60, failures: 5))
        #expect(try store.record()?.lastFailureBoot == store.clock.bootNow())
    }

    @Test("/proc/locks: holders of the file's device and inode, waiters skipped, -1 (an OFD lock) as unknown")
    func parsesLocksTable() {
        let table = """
            1: OFDLCK ADVISORY  READ -1 fe:00:16222471 100 100
            2: FLOCK  ADVISORY  WRITE 13369 fe:00:16222471 0 EOF
            2: -> FLOCK  ADVISORY  WRITE 13370 fe:00:16222471 0 EOF
            3: FLOCK  ADVISORY  WRITE 555 fe:01:16222471 0 EOF
            4: POSIX  ADVISORY  WRITE 777 fe:00:16222471 0 EOF
            """
        let device = UInt64(0xfe) << 8
        #expect(LockHolder.processIDs(inLocksTable: table, kind: .flock, device: device, inode: 16222471) == [13369])
        #expect(LockHolder.processIDs(inLocksTable: table, kind: .openFileDescription, device: device, inode: 16222471) == [nil])
        #expect(LockHolder.processIDs(inLocksTable: table, kind: .flock, device: device, inode: 1) == [])
    }
}

private func milliseconds(since start: UInt64) -> Int { Int((monotonicNanoseconds() - start) / 1_000_000) }

/// /proc/self/comm, as the kernel cut it.
private func ownCommand() -> String {
    ((try? readSmallFile("/proc/self/comm", limit: 64)) ?? nil)?.split(separator: "\n").first.map(String.init) ?? "?"
}

/// Runs `body` on its own thread and returns its result, or nil if it has
/// not finished within `seconds` (it is then left running: the test's
/// cleanup releases the lock it waits for).
private func within<Value: Sendable>(seconds: Int, _ body: @escaping @Sendable () -> Value) -> Value? {
    let box = ResultBox<Value>()
    _ = Thread { box.set(body()) }
    let limit = Deadline.after(milliseconds: seconds * 1000)
    _ = limit.retry { box.value != nil }
    return box.value
}

private final class ResultBox<Value>: @unchecked Sendable {
    private var lock = pthread_mutex_t()
    private var stored: Value?
    init() { pthread_mutex_init(&lock, nil) }
    func set(_ value: Value) { pthread_mutex_lock(&lock); stored = value; pthread_mutex_unlock(&lock) }
    var value: Value? { pthread_mutex_lock(&lock); defer { pthread_mutex_unlock(&lock) }; return stored }
}

/// A started pthread, joined by `join()`.
private final class Thread: @unchecked Sendable {
    private var thread = pthread_t()
    init(_ body: @escaping @Sendable () -> Void) {
        final class Box { let body: () -> Void; init(_ body: @escaping () -> Void) { self.body = body } }
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        pthread_create(&thread, nil, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
    }
    func join() { pthread_join(thread, nil) }
}
