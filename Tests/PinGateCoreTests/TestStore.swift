import Glibc
@testable import PinGateCore

/// A store in a fresh temporary directory, owned by whoever runs the tests,
/// with a machine key and cheap KDF parameters.
final class TestStore {
    let directory: String
    let location: StoreLocation
    let store: Store
    var policy: Policy
    let clock = ManualClock(1_800_000_000)
    /// Who the uids are: "user<uid>" unless a test deletes or renames one.
    let accounts = TestAccounts()

    init(policy: Policy = TestStore.cheapPolicy()) throws {
        var template = Array("/tmp/pingate-test.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Errno.current }
        directory = String(cString: made)
        chmod(directory, 0o750)
        location = StoreLocation(directory: directory, owner: geteuid(), group: getegid())
        store = Store(location: location, accounts: accounts)
        self.policy = policy
        try store.createKeyIfMissing()
    }

    deinit {
        for uid in (try? store.enrolledUIDs()) ?? [] { unlink(location.recordPath(forUID: uid)) }
        unlink(location.keyPath)
        rmdir(directory)
    }

    static func cheapPolicy() -> Policy {
        var policy = Policy()
        policy.kdf = .minimal
        return policy
    }

    var verifier: Verifier { Verifier(store: store, policy: policy, clock: clock) }
    var administration: Administration { Administration(store: store, policy: policy, clock: clock) }

    func enrollPIN(_ text: String, uid: UInt32 = 1000) throws {
        let credential = try Credential(parsing: secret(text), kind: .pin, gridSize: 0, policy: policy)
        try administration.enroll(uid: uid, credential: credential, replacing: true)
    }

    func record(_ uid: UInt32 = 1000) throws -> UserRecord? { try store.readRecord(uid: uid) }

    func path(_ uid: UInt32 = 1000) -> String { location.recordPath(forUID: uid) }
}

/// The user database of a test: every uid is "user<uid>" unless set here.
final class TestAccounts: AccountDirectory, @unchecked Sendable {
    private var lock = pthread_mutex_t()
    private var changed: [UInt32: AccountLookup] = [:]
    init() { pthread_mutex_init(&lock, nil) }

    func account(forUID uid: UInt32) -> AccountLookup {
        pthread_mutex_lock(&lock); defer { pthread_mutex_unlock(&lock) }
        return changed[uid] ?? .named("user\(uid)")
    }

    /// `userdel`, `useradd` with a reused uid, or an outage: what `uid` is from now on.
    func set(_ uid: UInt32, _ lookup: AccountLookup) {
        pthread_mutex_lock(&lock); defer { pthread_mutex_unlock(&lock) }
        changed[uid] = lookup
    }
}

func secret(_ text: String) -> Secret { Secret(copying: text.utf8) }

/// The nth of distinct wrong PINs (1001, 1002, …): the verifier does not
/// count the answer verified wrong last time again, so a count-down to a
/// lockout needs different guesses, as a person makes them.
func wrongPIN(_ n: Int) -> String { String(1000 + n) }

/// Counts events from concurrent verifications (the fault hook is @Sendable).
final class Counter: @unchecked Sendable {
    private var lock = pthread_mutex_t()
    private var values: [String: Int] = [:]
    init() { pthread_mutex_init(&lock, nil) }
    func add(_ key: String) { pthread_mutex_lock(&lock); values[key, default: 0] += 1; pthread_mutex_unlock(&lock) }
    subscript(key: String) -> Int { pthread_mutex_lock(&lock); defer { pthread_mutex_unlock(&lock) }; return values[key] ?? 0 }
}

/// Runs `body(i)` on `count` threads at once and waits for all of them.
func runConcurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let threads = (0..<count).map { index in startThread { body(index) } }
    for thread in threads { pthread_join(thread, nil) }
}
