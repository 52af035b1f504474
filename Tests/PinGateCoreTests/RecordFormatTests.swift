import Glibc
import Testing
@testable import PinGateCore

@Suite("Records: two slots, written in place")
struct RecordFormatTests {
    func sample(failures: Int = 3) -> UserRecord {
        var record = UserRecord(uid: 1000, binding: .account("user1000"), kind: .pattern, gridSize: 4, hash: "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2g", now: 1_700_000_000)
        record.failures = failures
        record.lastFailure = 1_700_000_100
        record.disabled = false
        record.attemptSerial = 0x0102_0304_0506_0708
        record.lastFailureBoot = BootInstant(bootID: BootID(bytes: Array(0xf0...0xff))!, seconds: 12_345)
        return record
    }

    @Test("a slot round-trips every field")
    func roundTrip() throws {
        let slot = RecordCodec.encode(sample(), sequence: 7)
        let decoded = try #require(RecordCodec.decode(slot[...]))
        #expect(decoded.record == sample())
        #expect(decoded.sequence == 7)
    }

    @Test("a slot written before the attempt serial and boot stamp existed reads as serial 0, no stamp")
    func recordFromBeforeSerialAndBootStamp() throws {
        var slot = RecordCodec.encode(sample(), sequence: 3)
        let layout = RecordCodec.layout
        let added = layout.attemptSerial.offset..<layout.lastFailureBootClock.range.upperBound
        slot.replaceSubrange(added, with: repeatElement(0, count: added.count))
        RecordCodec.seal(&slot)
        let record = try #require(RecordCodec.decode(slot[...])).record
        #expect(record.attemptSerial == 0)
        #expect(record.lastFailureBoot == nil)
        #expect(record.lastFailure == sample().lastFailure)
    }

    @Test("a PIN's length round-trips; a length no policy allows, or a pattern with a PIN length, is not a state")
    func pinLength() throws {
        var pin = UserRecord(uid: 1000, binding: .account("user1000"), kind: .pin, gridSize: 0, pinLength: 6, hash: "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2g", now: 1)
        let decoded = try #require(RecordCodec.decode(RecordCodec.encode(pin, sequence: 1)[...]))
        #expect(decoded.record.pinLength == 6)
        for impossible in [3, 13, 255] {
            pin.pinLength = impossible
            #expect(RecordCodec.decode(RecordCodec.encode(pin, sequence: 1)[...]) == nil, "length \(impossible)")
        }
        var pattern = sample()
        pattern.pinLength = 4
        #expect(RecordCodec.decode(RecordCodec.encode(pattern, sequence: 1)[...]) == nil)
    }

    @Test("the reader takes the valid slot with the higher sequence")
    func higherSequenceWins() throws {
        let older = RecordCodec.encode(sample(failures: 1), sequence: 4)
        let newer = RecordCodec.encode(sample(failures: 2), sequence: 5)
        #expect(RecordCodec.decodeFile(older + newer)?.record.failures == 2)
        #expect(RecordCodec.decodeFile(newer + older)?.record.failures == 2)
    }

    @Test("a torn slot write at every byte offset leaves the previous state readable")
    func tornWriteAtEveryOffset() throws {
        let previous = RecordCodec.encode(sample(failures: 4), sequence: 10)
        let stale = RecordCodec.encode(sample(failures: 3), sequence: 9)
        let next = RecordCodec.encode(sample(failures: 5), sequence: 11)
        for written in 0..<RecordCodec.slotSize {
            // The writer overwrites the stale slot (1) with the next state, and stops after `written` bytes.
            var file = previous + stale
            file.replaceSubrange(RecordCodec.slotSize..<(RecordCodec.slotSize + written), with: next[0..<written])
            let state = try #require(RecordCodec.decodeFile(file), "offset \(written)")
            #expect(state.record.failures == 4, "offset \(written)")
        }
        var complete = previous + stale
        complete.replaceSubrange(RecordCodec.slotSize..., with: next)
        #expect(RecordCodec.decodeFile(complete)?.record.failures == 5)
    }

    @Test("a torn write through the real file and store keeps the previous state")
    func tornWriteOnDisk() throws {
        let store = try TestStore()
        try store.enrollPIN("0427")
        for guess in 1...2 { _ = store.verifier.verify(uid: 1000, input: secret(wrongPIN(guess))) }
        let before = try #require(try store.record())
        var next = before
        next.failures = 99
        let bytes = RecordCodec.encode(next, sequence: 999)
        // Find the older slot as the writer would, then write half of it.
        let raw = try readFile(store.path())
        let current = try #require(RecordCodec.decodeFile(raw))
        let offset = (1 - current.slot) * RecordCodec.slotSize
        let fd = open(store.path(), O_WRONLY)
        defer { close(fd) }
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, 200, off_t(offset)) }
        #expect(try store.record() == before)
        #expect(store.verifier.verify(uid: 1000, input: secret(wrongPIN(3))) == .wrong(failures: 3, attemptsLeft: 2, lockedSeconds: 0, disabled: false))
    }

    @Test("flipped bits, a foreign uid or garbage are not a state", arguments: [0, 4, 16, 20, 23, 64, 300, 496, 511])
    func corruption(offset: Int) {
        var slot = RecordCodec.encode(sample(), sequence: 1)
        slot[offset] ^= 0x40
        #expect(RecordCodec.decode(slot[...]) == nil)
    }

    @Test("random bytes never decode")
    func randomBytes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let bytes = (0..<RecordCodec.fileSize).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(RecordCodec.decodeFile(bytes) == nil)
        }
    }
}

func readFile(_ path: String) throws -> [UInt8] {
    let fd = try FileDescriptor.open(path, [.readOnly, .nonBlocking])
    defer { fd.close() }
    var bytes = [UInt8](repeating: 0, count: 65_536)
    let count = try bytes.withUnsafeMutableBytes { try fd.read(fromAbsoluteOffset: 0, into: $0) }
    return Array(bytes[0..<count])
}
