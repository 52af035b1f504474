import CSodium

/// The on-disk record: two fixed-size slots, so that an update can be written
/// in place (the setgid helper may not create files) and a torn write can only
/// damage the slot being written.
///
/// Slot layout (little-endian), `slotSize` bytes:
///
///     0   4  magic "PGR1"          24   4  failures
///     4   2  format version (1)    28   1  PIN length (0: pattern/unknown)
///                                  29   3  reserved (0)
///     6   2  reserved (0)          32   8  last failure
///     8   8  sequence number       40   8  created
///    16   4  uid                   48   8  changed
///    20   1  kind (1 PIN, 2 pat.)  56   8  last success
///    21   1  grid size (0 for PIN) 64 128  hash string, NUL-padded
///    22   1  disabled (0 or 1)    192   8  attempt serial
///    23   1  hash length          200  16  boot id at last failure
///                                 216   8  boot clock at last failure
///                                 224 272  reserved (0)
///                                 496  16  BLAKE2b-128 of bytes 0..<496
///
/// The attempt serial counts every attempt ever counted on this record and
/// never goes back (admin unlocks keep it): a success clears only the failures
/// counted before its own attempt (see `UserRecord.failuresCounted(after:)`).
/// The boot id (the UUID's 16 bytes) and boot clock (CLOCK_BOOTTIME seconds)
/// stamp the last failure for timeouts; "last failure" at 32 is wall-clock
/// time, kept for display. All three were reserved zeros before: such records
/// read as serial 0 and no boot stamp (an all-zero boot id).
///
/// A reader takes the valid slot with the higher sequence number; a writer
/// overwrites the other one with sequence + 1.
enum RecordCodec {
    static let slotSize = 512
    static let slotCount = 2
    static let fileSize = slotSize * slotCount
    static let formatVersion: UInt16 = 1
    static let magic: [UInt8] = Array("PGR1".utf8)
    private static let checksumOffset = 496
    private static let checksumSize = 16
    private static let hashOffset = 64
    private static let hashCapacity = 128
    private static let attemptSerialOffset = 192
    private static let bootIDOffset = 200
    private static let bootSecondsOffset = 216

    /// Encodes `record` as the bytes of one slot.
    static func encode(_ record: UserRecord, sequence: UInt64) -> [UInt8] {
        requireSodium()
        var slot = [UInt8](repeating: 0, count: slotSize)
        slot.replaceSubrange(0..<4, with: magic)
        put(formatVersion, at: 4, in: &slot)
        put(sequence, at: 8, in: &slot)
        put(record.uid, at: 16, in: &slot)
        slot[20] = record.kind.rawValue
        slot[21] = UInt8(clamping: record.gridSize)
        slot[28] = UInt8(clamping: record.pinLength)
        slot[22] = record.disabled ? 1 : 0
        let hashBytes = Array(record.hash.utf8.prefix(hashCapacity - 1))
        slot[23] = UInt8(hashBytes.count)
        put(UInt32(clamping: record.failures), at: 24, in: &slot)
        put(record.lastFailure, at: 32, in: &slot)
        put(record.createdAt, at: 40, in: &slot)
        put(record.changedAt, at: 48, in: &slot)
        put(record.lastSuccess, at: 56, in: &slot)
        put(record.attemptSerial, at: attemptSerialOffset, in: &slot)
        if let stamp = record.lastFailureBoot {
            slot.replaceSubrange(bootIDOffset..<(bootIDOffset + BootID.byteCount), with: stamp.bootID.bytes)
            put(stamp.seconds, at: bootSecondsOffset, in: &slot)
        }
        slot.replaceSubrange(hashOffset..<(hashOffset + hashBytes.count), with: hashBytes)
        seal(&slot)
        return slot
    }

    /// Writes the checksum of a slot's bytes 0..<496 into its last 16 bytes.
    static func seal(_ slot: inout [UInt8]) {
        slot.replaceSubrange(checksumOffset..<slotSize, with: checksum(of: slot))
    }

    /// Decodes one slot; nil when it is torn, blank or not this format.
    static func decode(_ slot: ArraySlice<UInt8>) -> (record: UserRecord, sequence: UInt64)? {
        let slot = Array(slot)
        guard slot.count == slotSize, Array(slot[0..<4]) == magic,
              get(UInt16.self, at: 4, in: slot) == formatVersion,
              Array(slot[checksumOffset..<slotSize]) == checksum(of: slot),
              let kind = CredentialKind(rawValue: slot[20]),
              slot[22] <= 1, Int(slot[23]) < hashCapacity
        else { return nil }
        let hashLength = Int(slot[23])
        let hashBytes = slot[hashOffset..<(hashOffset + hashLength)]
        guard !hashBytes.contains(0), let hash = String(validating: hashBytes, as: UTF8.self) else { return nil }
        let gridSize = Int(slot[21])
        guard kind == .pin ? gridSize == 0 : PatternGrid.supportedSizes.contains(gridSize) else { return nil }
        let pinLength = Int(slot[28])
        // 0 is "not known" (a pattern, or a PIN enrolled before lengths were kept).
        guard pinLength == 0 || (kind == .pin && PIN.lengthLimits.contains(pinLength)) else { return nil }
        var record = UserRecord(uid: get(UInt32.self, at: 16, in: slot), kind: kind, gridSize: gridSize,
                                pinLength: pinLength, hash: hash, now: 0)
        record.disabled = slot[22] == 1
        record.failures = Int(get(UInt32.self, at: 24, in: slot))
        record.lastFailure = get(Int64.self, at: 32, in: slot)
        record.createdAt = get(Int64.self, at: 40, in: slot)
        record.changedAt = get(Int64.self, at: 48, in: slot)
        record.lastSuccess = get(Int64.self, at: 56, in: slot)
        record.attemptSerial = get(UInt64.self, at: attemptSerialOffset, in: slot)
        record.lastFailureBoot = BootID(bytes: Array(slot[bootIDOffset..<(bootIDOffset + BootID.byteCount)])).map {
            BootInstant(bootID: $0, seconds: get(Int64.self, at: bootSecondsOffset, in: slot))
        }
        return (record, get(UInt64.self, at: 8, in: slot))
    }

    /// The state a reader sees in a whole file: the valid slot with the higher
    /// sequence, and which slot that was (the writer overwrites the other).
    static func decodeFile(_ bytes: [UInt8]) -> (record: UserRecord, sequence: UInt64, slot: Int)? {
        guard bytes.count == fileSize else { return nil }
        var best: (record: UserRecord, sequence: UInt64, slot: Int)? = nil
        for index in 0..<slotCount {
            let range = (index * slotSize)..<((index + 1) * slotSize)
            if let decoded = decode(bytes[range]), decoded.sequence >= (best?.sequence ?? 0) {
                best = (decoded.record, decoded.sequence, index)
            }
        }
        return best
    }

    private static func checksum(of slot: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: checksumSize)
        crypto_generichash(&digest, checksumSize, slot, UInt64(checksumOffset), nil, 0)
        return digest
    }

    private static func put<Value: FixedWidthInteger>(_ value: Value, at offset: Int, in bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<(offset + $0.count), with: $0) }
    }

    private static func get<Value: FixedWidthInteger>(_: Value.Type, at offset: Int, in bytes: [UInt8]) -> Value {
        var value = Value.zero
        for index in (0..<MemoryLayout<Value>.size).reversed() {
            value = value << 8 | Value(truncatingIfNeeded: bytes[offset + index])
        }
        return value
    }
}
