import Glibc
import Testing
@testable import PinGateCore

@Suite("One rule per store object, checked the same by the store and by doctor")
struct StoreRulesTests {
    /// The problem the store refuses with when loading the key, if any.
    func keyRefusal(_ store: TestStore) -> StoreProblem? {
        do { _ = try store.store.loadKey(); return nil } catch let StoreError.unsafe(problem) { return problem } catch {
            Issue.record("unexpected \(error)"); return nil
        }
    }

    @Test("the key must be exactly 0640: 0600 would lock the setgid helper out, 0644 shows it to everyone",
          arguments: [0o600, 0o644, 0o440, 0o660, 0o2640])
    func keyModeIsExact(mode: Int) throws {
        let store = try TestStore()
        chmod(store.location.keyPath, mode_t(mode))
        let problem = try #require(keyRefusal(store))
        #expect(problem.violation == .mode(found: mode_t(mode)))
        #expect(problem.fix == "chmod 0640 \(store.location.keyPath)")
    }

    @Test("doctor's inspection finds exactly what the store refuses", arguments: [0o640, 0o600, 0o644, 0o000])
    func inspectionAgreesWithTheStore(mode: Int) throws {
        let store = try TestStore()
        chmod(store.location.keyPath, mode_t(mode))
        #expect(store.location.inspect(.key).first == keyRefusal(store))
    }

    @Test("a store directory must be exactly 0750: 0700 shuts the helper out", arguments: [0o700, 0o755, 0o770])
    func directoryModeIsExact(mode: Int) throws {
        let store = try TestStore()
        chmod(store.directory, mode_t(mode))
        defer { chmod(store.directory, 0o750) }
        #expect(throws: StoreError.unsafe(store.location.inspect(.directory)[0])) { _ = try store.store.loadKey() }
        #expect(store.location.inspect(.directory).map(\.violation) == [.mode(found: mode_t(mode))])
    }

    @Test("every problem of a record is listed, each with its fix")
    func recordProblems() throws {
        let location = StoreLocation(directory: "/srv/store", owner: 0, group: 0)
        var raw = stat()
        raw.st_mode = S_IFREG | 0o640
        raw.st_uid = 1000
        raw.st_gid = 0
        raw.st_nlink = 2
        raw.st_size = 1000
        let problems = location.problems(of: .record(uid: 1000), status: FileStatus(raw))
        #expect(problems.map(\.violation) == [.owner(found: 1000), .mode(found: 0o640), .linkCount(found: 2), .size(found: 1000)])
        #expect(problems[0].fix == "chown root:root /srv/store/1000.record")
        #expect(problems[1].fix == "chmod 0660 /srv/store/1000.record")
        #expect(problems[3].description == "record /srv/store/1000.record is 1000 bytes, expected 1024")
    }

    @Test("a missing key is fixed by 'pingate init', a key of the wrong size only by moving it away")
    func keyFixes() throws {
        let store = try TestStore()
        truncate(store.location.keyPath, 16)
        let short = try #require(keyRefusal(store))
        #expect(short.violation == .size(found: 16))
        #expect(short.fix.hasPrefix("mv \(store.location.keyPath) \(store.location.keyPath).unsafe && pingate init --store \(store.directory)"))
        unlink(store.location.keyPath)
        #expect(keyRefusal(store)?.fix == "pingate init --store \(store.directory)")
    }

    @Test("setUp creates what is missing, repairs modes, and never replaces a key")
    func setUpIsIdempotent() throws {
        let store = try TestStore()
        let key = store.location.keyPath
        let before = try readFile(key)
        chmod(key, 0o600)
        #expect(try store.store.setUp() == [
            .unchanged(.directory, path: store.directory),
            .repaired(.key, path: key, problems: [StoreProblem(object: .key, path: key, violation: .mode(found: 0o600), location: store.location)]),
        ])
        #expect(try store.store.setUp() == [.unchanged(.directory, path: store.directory), .unchanged(.key, path: key)])
        #expect(try readFile(key) == before)
        unlink(key)
        #expect(try store.store.setUp()[1] == .created(.key, path: key))
        #expect(store.location.inspect(.key).isEmpty)
    }

    @Test("setUp refuses a symlinked key and leaves it")
    func setUpRefusesASymlinkedKey() throws {
        let store = try TestStore()
        let key = store.location.keyPath
        rename(key, key + ".real")
        defer { unlink(key + ".real") }
        symlink(key + ".real", key)
        #expect(throws: StoreError.unsafe(StoreProblem(object: .key, path: key, violation: .symbolicLink, location: store.location))) {
            try store.store.setUp()
        }
        var status = stat()
        #expect(lstat(key, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK)
    }

    @Test("setUp creates the directory root:group 0750 when it is missing")
    func setUpCreatesTheDirectory() throws {
        let store = try TestStore()
        let location = StoreLocation(directory: store.directory + "/inner", owner: geteuid(), group: getegid())
        defer { unlink(location.keyPath); rmdir(location.directory) }
        #expect(try Store(location: location).setUp() == [.created(.directory, path: location.directory), .created(.key, path: location.keyPath)])
        #expect(location.inspect(.directory).isEmpty && location.inspect(.key).isEmpty)
    }
}
