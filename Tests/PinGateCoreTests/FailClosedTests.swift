import Glibc
import Testing
@testable import PinGateCore

@Suite("A record or store that is not exactly right fails closed")
struct FailClosedTests {
    /// Verifies the right PIN against a damaged store: it must be a store
    /// error naming `fragment`, and whatever is at the record's path (file,
    /// directory, FIFO or link) must be as it was.
    func expectFailClosed(_ store: TestStore, _ fragment: String, uid: UInt32 = 1000, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try #require(PathState(store.path(uid)), "nothing at the record's path to compare", sourceLocation: sourceLocation)
        let outcome = store.verifier.verify(uid: uid, input: secret("0427"))
        guard case let .storeError(message) = outcome else {
            Issue.record("expected a store error, got \(outcome)", sourceLocation: sourceLocation); return
        }
        #expect(message.description.contains(fragment), "\(message)", sourceLocation: sourceLocation)
        #expect(PathState(store.path(uid)) == before, "the record must be left as it was", sourceLocation: sourceLocation)
        guard case .storeError = store.verifier.status(uid: uid) else {
            Issue.record("status must fail closed too", sourceLocation: sourceLocation); return
        }
        #expect(PathState(store.path(uid)) == before, "status must leave the record as it was", sourceLocation: sourceLocation)
    }

    @Test("a symlinked record")
    func symlinkedRecord() throws {
        let store = try TestStore()
        try store.enrollPIN("0427", uid: 2000)
        symlink(store.path(2000), store.path(1000))
        try expectFailClosed(store, "is a symbolic link")
    }

    @Test("a record that is not a regular file")
    func directoryAsRecord() throws {
        let store = try TestStore()
        mkdir(store.path(), 0o770)
        defer { rmdir(store.path()) }
        try expectFailClosed(store, "is not a regular file")
        // enroll --force cannot rename over a directory: the fix moves it away first.
        try expectFailClosed(store, "mv \(store.path()) \(store.path()).unsafe && pingate enroll --force")
    }

    @Test("a FIFO as a record neither blocks nor passes, and nothing is written into it")
    func fifo() throws {
        let store = try TestStore()
        mkfifo(store.path(), 0o660)
        defer { unlink(store.path()) }
        // A reader held open, so that a write would not fail for want of one
        // and what was written waits here to be seen.
        let reader = try FileDescriptor.open(store.path(), [.readOnly, .nonBlocking])
        defer { reader.close() }
        try expectFailClosed(store, "is not a regular file")
        var byte: UInt8 = 0
        #expect(read(reader.rawValue, &byte, 1) <= 0, "something was written into the FIFO")
    }

    @Test("wrong modes", arguments: [0o666, 0o644, 0o600, 0o4660, 0o670])
    func wrongMode(mode: Int) throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        chmod(store.path(), mode_t(mode))
        try expectFailClosed(store, "has mode \(octal(mode_t(mode)))")
    }

    @Test("a wrong owner", .enabled(if: geteuid() == 0, "chown to another owner needs root"))
    func wrongOwner() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        chown(store.path(), 1234, getegid())
        try expectFailClosed(store, "is owned by uid 1234")
    }

    @Test("a wrong group", .enabled(if: geteuid() == 0, "chgrp to another group needs root"))
    func wrongGroup() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        chown(store.path(), geteuid(), 4321)
        try expectFailClosed(store, "has group 4321")
    }

    @Test("a truncated record")
    func truncated() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        truncate(store.path(), 700)
        try expectFailClosed(store, "is 700 bytes, expected 1024")
    }

    @Test("a record of garbage")
    func garbage() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let fd = open(store.path(), O_WRONLY)
        let noise = [UInt8](repeating: 0xA5, count: RecordCodec.fileSize)
        _ = noise.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        close(fd)
        try expectFailClosed(store, "has no valid slot")
    }

    @Test("another uid's record renamed into place")
    func foreignRecord() throws {
        let store = try TestStore()
        try store.enrollPIN("0427", uid: 2000)
        rename(store.path(2000), store.path(1000))
        try expectFailClosed(store, "belongs to uid 2000")
    }

    @Test("a hard link to a record")
    func hardLink() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        link(store.path(), store.directory + "/extra")
        defer { unlink(store.directory + "/extra") }
        try expectFailClosed(store, "hard links")
    }

    @Test("a missing machine key fails closed before anything is counted")
    func missingKey() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        unlink(store.location.keyPath)
        try expectFailClosed(store, "machine key")
        #expect(try store.record()?.failures == 0)
    }

    @Test("a machine key readable by others is refused")
    func exposedKey() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        chmod(store.location.keyPath, 0o644)
        try expectFailClosed(store, "machine key")
    }

    @Test("a store directory writable by group or others")
    func writableDirectory() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        chmod(store.directory, 0o770)
        try expectFailClosed(store, "is writable by group or others")
        chmod(store.directory, 0o750)
    }

    @Test("a store directory that is a symlink")
    func symlinkedDirectory() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let link = store.directory + ".link"
        symlink(store.directory, link)
        defer { unlink(link) }
        let linked = Verifier(store: Store(location: StoreLocation(directory: link, owner: geteuid(), group: getegid())), policy: store.policy)
        guard case let .storeError(message) = linked.verify(uid: 1000, input: secret("0427")) else {
            Issue.record("expected a store error"); return
        }
        #expect(message.description.contains("is a symbolic link"))
    }

    @Test("the machine key is never overwritten")
    func keyNotReplaced() throws {
        let store = try TestStore()
        let before = try readFile(store.location.keyPath)
        #expect(try store.store.createKeyIfMissing() == false)
        #expect(try readFile(store.location.keyPath) == before)
    }

    @Test("enrolling over an existing record without replacing is refused")
    func enrollRefusesOverwrite() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let credential = try Credential(parsing: secret("3859"), kind: .pin, gridSize: 0, policy: store.policy)
        #expect(throws: StoreError.recordExists(path: store.path())) {
            try store.administration.enroll(uid: 1000, credential: credential, replacing: false)
        }
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .ok)
    }

    @Test("a KDF whose memory cannot be had is a typed error, and nothing is counted")
    func kdfOutOfMemory() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        // Just under 4 TiB (the most a hash string libsodium reads may name):
        // no mmap gets that much.
        let hash = try #require(try store.record()?.hash)
        let huge = hash.replacing(#/m=[0-9]+,/#, with: "m=4294967295,")
        try #require(huge != hash)
        try store.store.updateRecord(uid: 1000) { $0.hash = huge }
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .storeError(.hashing(.outOfMemory(bytes: 4_294_967_295 << 10))))
        #expect(try store.record()?.failures == 0)
    }

    @Test("a hash libsodium cannot read is an error before anything is counted, not every credential wrong",
          arguments: ["m=08", "m=0", "m=16384,t=01"])
    func unreadableHash(field: String) throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let hash = try #require(try store.record()?.hash)
        let edited = hash.replacing(#/m=[0-9]+,t=[0-9]+/#, with: field.contains("t=") ? field : field + ",t=1")
        try #require(edited != hash)
        try store.store.updateRecord(uid: 1000) { $0.hash = edited }
        #expect(store.verifier.verify(uid: 1000, input: secret("0427")) == .storeError(.hashing(.unreadableHash)), "\(edited)")
        #expect(store.verifier.verify(uid: 1000, input: secret("1111")) == .storeError(.hashing(.unreadableHash)))
        #expect(try store.record()?.failures == 0)
    }
}

/// What is at a path, read without following a link or disturbing it: its
/// lstat (type, mode, owner, inode, links, size, modification and change
/// times; not the access time, which reading moves) and what it holds: a
/// file's bytes, a directory's names, a link's target. A FIFO's contents
/// are not read, since reading takes them; its times show a write.
/// Nil if there is nothing there.
struct PathState: Equatable {
    let device, inode, links: UInt64
    let mode, owner, group: UInt32
    let size: Int64
    let modified, changed: [Int]
    let contents: [UInt8]
    let names: [String]

    init?(_ path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        links = UInt64(status.st_nlink)
        mode = status.st_mode
        owner = status.st_uid
        group = status.st_gid
        size = Int64(status.st_size)
        modified = [status.st_mtim.tv_sec, status.st_mtim.tv_nsec]
        changed = [status.st_ctim.tv_sec, status.st_ctim.tv_nsec]
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            contents = (try? readFile(path)) ?? []
            names = []
        case S_IFDIR:
            let directory = try? FileDescriptor.open(path, [.readOnly, .directory])
            names = ((try? directory?.directoryEntryNames()) ?? []).sorted()
            directory?.close()
            contents = []
        case S_IFLNK:
            var target = [UInt8](repeating: 0, count: Int(PATH_MAX))
            let count = readlink(path, &target, target.count)
            contents = Array(target.prefix(max(0, count)))
            names = []
        default:
            contents = []
            names = []
        }
    }
}
