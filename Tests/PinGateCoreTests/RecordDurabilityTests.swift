import Synchronization
import Testing
@testable import PinGateCore

// "No lost write can give a guess back" (docs/design.md, section 4, "Which
// writes wait for the disk"), checked against a model of the disk: it holds
// what the last fdatasync put there, and at a crash each slot whose cached
// bytes differ from it may be the disk's, the cache's, or torn between them.
// At every write of a run of attempts, every such disk must read as a state
// that still counts every attempt already answered.
@Suite("Record writes: a crash at any write, whatever it loses or tears, gives no guess back")
struct RecordDurabilityTests {
    /// The record's bytes on the disk and in the page cache, as the writes go.
    final class DiskModel: @unchecked Sendable {
        private let lock = Mutex<Void>(())
        private var disk: [UInt8]
        private var cache: [UInt8]
        /// The attempt serial every crash must keep: the last answered attempt's.
        var answeredSerial: UInt64 = 0
        private(set) var problems: [String] = []
        private(set) var writes = 0
        private(set) var syncedWrites = 0

        init(file: [UInt8]) {
            disk = file
            cache = file
        }

        /// A slot write: first every crash during it, then its effect.
        func wrote(slot: Int, bytes: [UInt8], synced: Bool, during step: String) {
            lock.withLock { _ in
                writes += 1
                var cacheDuring = cache
                cacheDuring.replaceSubrange(range(of: slot), with: bytes)
                for image in crashImages(cache: cacheDuring) {
                    guard let state = RecordCodec.decodeFile(image) else {
                        problems.append("\(step): a crash leaves no readable state")
                        continue
                    }
                    if state.record.attemptSerial < answeredSerial {
                        problems.append("\(step): a crash gives back an answered attempt (serial \(state.record.attemptSerial) < \(answeredSerial))")
                    }
                }
                cache = cacheDuring
                if synced {
                    syncedWrites += 1
                    disk = cache  // fdatasync writes the page: both slots
                }
            }
        }

        /// Every disk a crash may leave: per slot, the disk's bytes, the
        /// cache's, or the cache's first half over the disk's second.
        private func crashImages(cache: [UInt8]) -> [[UInt8]] {
            var images: [[UInt8]] = [[]]
            for slot in 0..<RecordCodec.slotCount {
                let range = range(of: slot)
                let onDisk = Array(disk[range]), cached = Array(cache[range])
                var choices = [onDisk]
                if cached != onDisk {
                    let half = RecordCodec.slotSize / 2
                    choices += [cached, Array(cached[..<half] + onDisk[half...])]
                }
                images = images.flatMap { image in choices.map { image + $0 } }
            }
            return images
        }

        private func range(of slot: Int) -> Range<Int> {
            (slot * RecordCodec.slotSize)..<((slot + 1) * RecordCodec.slotSize)
        }

        func currentSerial() -> UInt64 {
            lock.withLock { _ in RecordCodec.decodeFile(cache)?.record.attemptSerial ?? 0 }
        }
    }

    @Test("wrong, repeated, right, notice, unlock and change, in one record's life")
    func everyWriteOfARun() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        let path = store.path()
        let model = DiskModel(file: try #require(try readSmallFileBytes(path, limit: RecordCodec.fileSize)))
        let step = Mutex("")
        RecordFile.writeObserver.withLock {
            $0 = { writtenPath, slot, bytes, synced in
                guard writtenPath == path else { return }
                model.wrote(slot: slot, bytes: bytes, synced: synced, during: step.withLock { $0 })
            }
        }
        defer { RecordFile.writeObserver.withLock { $0 = nil } }

        let verifier = store.verifier
        func run(_ name: String, _ body: () throws -> Void) throws {
            step.withLock { $0 = name }
            try body()
            model.answeredSerial = model.currentSerial()  // answered: its count must stay
        }
        try run("wrong 1111") { _ = verifier.verify(uid: 1000, input: secret("1111")) }
        try run("1111 again") { _ = verifier.verify(uid: 1000, input: secret("1111")) }
        try run("wrong 2222") { _ = verifier.verify(uid: 1000, input: secret("2222")) }
        try run("right") { #expect(verifier.verify(uid: 1000, input: secret("0427")) == .ok) }
        try run("notice taken") { _ = try verifier.takeNotice(uid: 1000) }
        try run("wrong 3333") { _ = verifier.verify(uid: 1000, input: secret("3333")) }
        try run("wrong 4444") { _ = verifier.verify(uid: 1000, input: secret("4444")) }
        try run("unlock") { _ = try store.administration.unlock(uid: 1000) }
        try run("wrong 5555") { _ = verifier.verify(uid: 1000, input: secret("5555")) }
        try run("change") {
            let replacement = try Credential(parsing: secret("5820"), kind: .pin, gridSize: 0, policy: store.policy)
            #expect(verifier.change(uid: 1000, current: secret("0427"), replacement: replacement) == .ok)
        }
        try run("wrong 6666") { _ = verifier.verify(uid: 1000, input: secret("6666")) }
        try run("right, new PIN") { #expect(verifier.verify(uid: 1000, input: secret("5820")) == .ok) }
        try run("wrong 7777") { _ = verifier.verify(uid: 1000, input: secret("7777")) }

        #expect(model.problems.isEmpty, "\(model.problems.joined(separator: "\n"))")
        #expect(model.writes >= 15, "the observer saw \(model.writes) writes")
        #expect(model.syncedWrites < model.writes, "no write went unsynced: nothing was modelled")
    }
}
