import Glibc
import Testing
@testable import PinGateCore

/// A TestStore whose key was sealed: the sealed blob in the store, the key
/// file gone, and (when `loaded`) the key in a loaded-key directory of its
/// own (a plain temporary directory: the ramfs is `pingate key load`'s, and
/// tpm_test.sh checks it).
final class SealedTestStore {
    let base = try! TestStore()
    let memory: String
    let store: Store
    let key: [UInt8]

    init(loaded: Bool) throws {
        var template = Array("/tmp/pingate-memory.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Errno.current }
        memory = String(cString: made)
        chmod(memory, 0o750)
        var location = base.location
        location.loadedKeyDirectory = memory
        store = Store(location: location)
        key = try readKeyBytes(base.location.keyPath)
        try store.writeSealedKey(SealedKey(pcrs: [7], tpmBlob: [1, 2, 3]))
        if loaded { try writeLoaded(key) }
        try store.destroyKeyFile()
    }

    func writeLoaded(_ bytes: [UInt8]) throws {
        let path = store.location.loadedKeyPath
        let file = try FileDescriptor.open(path, [.writeOnly, .create, .noFollow], permissions: 0o640)
        defer { file.close() }
        try file.writeAll(bytes)
        chmod(path, 0o640)
    }

    deinit {
        unlink(store.location.loadedKeyPath)
        unlink(store.location.loadFailurePath)
        rmdir(memory)
        unlink(store.location.sealedKeyPath)
        unlink(store.location.keyPath)
    }
}

private func readKeyBytes(_ path: String) throws -> [UInt8] {
    let file = try FileDescriptor.open(path, [.readOnly])
    defer { file.close() }
    var bytes = [UInt8](repeating: 0, count: 64)
    let count = try bytes.withUnsafeMutableBytes { try file.read(fromAbsoluteOffset: 0, into: $0) }
    return Array(bytes[..<count])
}

private func bytes(_ key: borrowing MachineKey) -> [UInt8] { key.bytes.withUnsafeBytes { Array($0) } }

@Suite("A sealed key is the key: read from memory, never from a stale file, never replaced")
struct SealedKeyStateTests {
    @Test("the sealed file round-trips its PCRs and blob, and refuses anything else")
    func sealedFormat() {
        let sealed = SealedKey(pcrs: [0, 7], tpmBlob: [9, 8, 7])
        #expect(SealedKey(encoded: sealed.encoded) == sealed)
        #expect(SealedKey(encoded: Array("PGSEAL02".utf8) + [0, 1]) == nil)
        #expect(SealedKey(encoded: Array("PGSEAL01".utf8) + [1, 24, 1]) == nil, "PCR 24 does not exist")
        #expect(SealedKey(encoded: Array("PGSEAL01".utf8) + [2, 7]) == nil, "truncated")
    }

    @Test("sealed and loaded: loadKey reads the loaded key")
    func loadedKeyIsRead() throws {
        let sealed = try SealedTestStore(loaded: true)
        #expect(try sealed.store.keyState() == .sealedAndLoaded)
        #expect(bytes(try sealed.store.loadKey()) == sealed.key)
    }

    @Test("a clear key file beside the sealed key is never read")
    func staleFileIsIgnored() throws {
        let sealed = try SealedTestStore(loaded: true)
        _ = try sealed.store.writeKeyFile(try MachineKey(bytes: Secret(copying: [UInt8](repeating: 0xAA, count: 32))))
        #expect(bytes(try sealed.store.loadKey()) == sealed.key)
    }

    @Test("sealed and not loaded: an error naming the recorded cause, and nothing to read")
    func notLoadedFailsClosed() throws {
        let sealed = try SealedTestStore(loaded: false)
        #expect(try sealed.store.keyState() == .sealedNotLoaded(failure: nil))
        #expect(throws: StoreError.keyNotLoaded(sealedPath: sealed.store.location.sealedKeyPath, reason: nil)) { _ = try sealed.store.loadKey() }
        let failure = KeyLoadFailure(cause: "pcr-changed", detail: "tpm:session(1):a policy check failed")
        try sealed.store.recordLoadFailure(failure)
        #expect(try sealed.store.keyState() == .sealedNotLoaded(failure: failure))
        #expect(throws: StoreError.keyNotLoaded(sealedPath: sealed.store.location.sealedKeyPath, reason: "pcr-changed: tpm:session(1):a policy check failed")) {
            _ = try sealed.store.loadKey()
        }
    }

    @Test("a loaded key with a wrong mode is refused like the key file")
    func loadedKeyKeepsTheRule() throws {
        let sealed = try SealedTestStore(loaded: true)
        chmod(sealed.store.location.loadedKeyPath, 0o644)
        #expect(throws: StoreError.self) { _ = try sealed.store.loadKey() }
    }

    @Test("init on a sealed store makes no clear key and reports the sealed one unchanged")
    func initKeepsTheSealedKey() throws {
        let sealed = try SealedTestStore(loaded: false)
        #expect(try sealed.store.createKeyIfMissing() == false)
        let actions = try sealed.store.setUp()
        #expect(actions.last == .unchanged(.sealedKey, path: sealed.store.location.sealedKeyPath))
        #expect(sealed.store.location.inspect(.key).first?.violation == .missing)
    }

    @Test("destroying the key file overwrites it before removing it")
    func destroyOverwrites() throws {
        let store = try TestStore()
        let file = try FileDescriptor.open(store.location.keyPath, [.readOnly])
        defer { file.close() }
        #expect(try store.store.destroyKeyFile())
        var bytes = [UInt8](repeating: 1, count: 32)
        _ = try bytes.withUnsafeMutableBytes { try file.read(fromAbsoluteOffset: 0, into: $0) }
        #expect(bytes == [UInt8](repeating: 0, count: 32), "the old inode holds zeros")
        #expect(try store.store.keyState() == .missing)
    }
}
