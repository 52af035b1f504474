import CSodium

/// The on-disk record: two fixed-size slots, so that an update can be written
/// in place (the setgid helper may not create files) and a torn write can only
/// damage the slot being written. A slot's fields are `RecordLayout`'s.
///
/// The attempt serial counts every attempt ever counted on this record and
/// never goes back (admin unlocks keep it): a success clears only the failures
/// counted before its own attempt (see `UserRecord.failuresCounted(after:)`).
/// The boot id (the UUID's 16 bytes) and boot clock (CLOCK_BOOTTIME seconds)
/// stamp the last failure for timeouts; "last failure" is wall-clock time,
/// kept for display. All three were reserved zeros before: such records read
/// as serial 0 and no boot stamp (an all-zero boot id).
///
/// Format 2 adds the account the record was made for (`AccountBinding`); a
/// record of format 1 decodes as `.unbound` and is encoded as format 1 again,
/// so that nothing but root's migration can make it a bound one.
///
/// A reader takes the valid slot with the higher sequence number; a writer
/// overwrites the other one with sequence + 1, unless the newer one says it
/// was written without waiting for the disk (`unsynced`): then the writer
/// overwrites that one, so that the other, synced slot is never the one a
/// torn write destroys (`RecordFile.write`).
enum RecordCodec {
    static let slotSize = RecordLayout.slotSize
    static let slotCount = 2
    static let fileSize = slotSize * slotCount
    static let layout = RecordLayout()
    private static let magic = Array(RecordLayout.magic.utf8)

    /// Encodes `record` as the bytes of one slot.
    static func encode(_ record: UserRecord, sequence: UInt64, unsynced: Bool = false) -> [UInt8] {
        requireSodium()
        var slot = [UInt8](repeating: 0, count: slotSize)
        put(magic, at: layout.magic, in: &slot)
        put(record.binding == .unbound ? RecordLayout.unboundFormatVersion : RecordLayout.formatVersion, at: layout.formatVersion, in: &slot)
        put(sequence, at: layout.sequence, in: &slot)
        put(record.uid, at: layout.uid, in: &slot)
        if case let .account(name) = record.binding {
            // Never cut: a name cut short could be another account's.
            let nameBytes = Array(name.utf8)
            precondition(!nameBytes.isEmpty && nameBytes.count < layout.userName.size, "an account name of \(nameBytes.count) bytes in a record")
            put(UInt8(nameBytes.count), at: layout.userNameLength, in: &slot)
            put(nameBytes, at: layout.userName, in: &slot)
        }
        put(record.kind.rawValue, at: layout.kind, in: &slot)
        put(UInt8(clamping: record.gridSize), at: layout.grid, in: &slot)
        put(UInt8(record.disabled ? 1 : 0), at: layout.disabled, in: &slot)
        let hashBytes = Array(record.hash.utf8.prefix(layout.hash.size - 1))
        put(UInt8(hashBytes.count), at: layout.hashLength, in: &slot)
        put(hashBytes, at: layout.hash, in: &slot)
        put(UInt32(clamping: record.failures), at: layout.failures, in: &slot)
        put(UInt8(clamping: record.pinLength), at: layout.pinLength, in: &slot)
        put(UInt8(unsynced ? 1 : 0), at: layout.unsynced, in: &slot)
        put(record.lastFailure, at: layout.lastFailure, in: &slot)
        put(record.createdAt, at: layout.created, in: &slot)
        put(record.changedAt, at: layout.changed, in: &slot)
        put(record.lastSuccess, at: layout.lastSuccess, in: &slot)
        put(record.attemptSerial, at: layout.attemptSerial, in: &slot)
        put(record.firstFailure, at: layout.firstFailure, in: &slot)
        put(UInt32(clamping: record.unseenFailures), at: layout.unseenFailures, in: &slot)
        put(record.unseenSince, at: layout.unseenSince, in: &slot)
        if let tag = record.lastWrongTag, tag.count == layout.lastWrongTag.size { put(tag, at: layout.lastWrongTag, in: &slot) }
        if let stamp = record.lastFailureBoot {
            put(stamp.bootID.bytes, at: layout.lastFailureBootID, in: &slot)
            put(stamp.seconds, at: layout.lastFailureBootClock, in: &slot)
        }
        encodeMarks(record.pinOpenedSessions, in: &slot)
        seal(&slot)
        return slot
    }

    private static func encodeMarks(_ marks: PINOpenedSessions, in slot: inout [UInt8]) {
        guard let boot = marks.boot else { return }
        put(boot.bytes, at: layout.pinSessionsBootID, in: &slot)
        put(UInt8(marks.overflowed ? 1 : 0), at: layout.pinSessionsOverflow, in: &slot)
        for (leader, fields) in zip(marks.leaders, layout.pinSessionMarks) {
            put(UInt32(leader.pid), at: fields.pid, in: &slot)
            put(leader.startTicks, at: fields.start, in: &slot)
        }
    }

    /// A slot's `PINOpenedSessions`; nil when they break its rules (a torn
    /// or forged slot is not read at all).
    private static func decodeMarks(_ slot: [UInt8]) -> PINOpenedSessions? {
        let overflow = get(UInt8.self, at: layout.pinSessionsOverflow, in: slot)
        guard overflow <= 1 else { return nil }
        // One way to write each state: marks from the first field on, and
        // an unused field all zero, so a slot re-encodes to its own bytes.
        var leaders: [ProcessInstance] = []
        var unused = false
        for fields in layout.pinSessionMarks {
            let pid = get(UInt32.self, at: fields.pid, in: slot), start = get(UInt64.self, at: fields.start, in: slot)
            if pid == 0 {
                guard start == 0 else { return nil }
                unused = true
                continue
            }
            guard !unused, let pid = ProcessID(exactly: pid) else { return nil }
            leaders.append(ProcessInstance(pid: pid, startTicks: start))
        }
        return PINOpenedSessions(boot: BootID(bytes: Array(slot[layout.pinSessionsBootID.range])),
                                 leaders: leaders, overflowed: overflow == 1)
    }

    /// Writes the checksum of the bytes before it into a slot.
    static func seal(_ slot: inout [UInt8]) {
        put(checksum(of: slot), at: layout.checksum, in: &slot)
    }

    /// Decodes one slot; nil when it is torn, blank or not this format.
    static func decode(_ slot: ArraySlice<UInt8>) -> (record: UserRecord, sequence: UInt64, unsynced: Bool)? {
        let slot = Array(slot)
        let version = slot.count == slotSize ? get(UInt16.self, at: layout.formatVersion, in: slot) : 0
        guard slot.count == slotSize, Array(slot[layout.magic.range]) == magic,
              version == RecordLayout.formatVersion || version == RecordLayout.unboundFormatVersion,
              Array(slot[layout.checksum.range]) == checksum(of: slot),
              let kind = CredentialKind(rawValue: get(UInt8.self, at: layout.kind, in: slot)),
              get(UInt8.self, at: layout.disabled, in: slot) <= 1, get(UInt8.self, at: layout.unsynced, in: slot) <= 1,
              Int(get(UInt8.self, at: layout.hashLength, in: slot)) < layout.hash.size
        else { return nil }
        let hashLength = Int(get(UInt8.self, at: layout.hashLength, in: slot))
        let hashBytes = slot[layout.hash.range].prefix(hashLength)
        guard !hashBytes.contains(0), let hash = String(validating: hashBytes, as: UTF8.self) else { return nil }
        let gridSize = Int(get(UInt8.self, at: layout.grid, in: slot))
        guard kind == .pin ? gridSize == 0 : PatternGrid.supportedSizes.contains(gridSize) else { return nil }
        let pinLength = Int(get(UInt8.self, at: layout.pinLength, in: slot))
        // 0 is "not known" (a pattern, or a PIN enrolled before lengths were kept).
        guard pinLength == 0 || (kind == .pin && PIN.lengthLimits.contains(pinLength)) else { return nil }
        guard let binding = version == RecordLayout.unboundFormatVersion ? .unbound : decodeBinding(slot) else { return nil }
        var record = UserRecord(uid: get(UInt32.self, at: layout.uid, in: slot), binding: binding, kind: kind, gridSize: gridSize,
                                pinLength: pinLength, hash: hash, now: 0)
        record.disabled = get(UInt8.self, at: layout.disabled, in: slot) == 1
        record.failures = Int(get(UInt32.self, at: layout.failures, in: slot))
        record.lastFailure = get(Int64.self, at: layout.lastFailure, in: slot)
        record.createdAt = get(Int64.self, at: layout.created, in: slot)
        record.changedAt = get(Int64.self, at: layout.changed, in: slot)
        record.lastSuccess = get(Int64.self, at: layout.lastSuccess, in: slot)
        record.attemptSerial = get(UInt64.self, at: layout.attemptSerial, in: slot)
        record.firstFailure = get(Int64.self, at: layout.firstFailure, in: slot)
        record.unseenFailures = Int(get(UInt32.self, at: layout.unseenFailures, in: slot))
        record.unseenSince = get(Int64.self, at: layout.unseenSince, in: slot)
        let tag = Array(slot[layout.lastWrongTag.range])
        record.lastWrongTag = tag.allSatisfy { $0 == 0 } ? nil : tag
        record.lastFailureBoot = BootID(bytes: Array(slot[layout.lastFailureBootID.range])).map {
            BootInstant(bootID: $0, seconds: get(Int64.self, at: layout.lastFailureBootClock, in: slot))
        }
        guard let marks = decodeMarks(slot) else { return nil }
        record.pinOpenedSessions = marks
        return (record, get(UInt64.self, at: layout.sequence, in: slot), get(UInt8.self, at: layout.unsynced, in: slot) == 1)
    }

    /// A slot's account: a name of `user_name_length` bytes, no NUL, UTF-8; none when 0.
    private static func decodeBinding(_ slot: [UInt8]) -> AccountBinding? {
        let length = Int(get(UInt8.self, at: layout.userNameLength, in: slot))
        guard length < layout.userName.size else { return nil }
        guard length > 0 else { return .noAccount }
        let bytes = slot[layout.userName.range].prefix(length)
        guard !bytes.contains(0), let name = String(validating: bytes, as: UTF8.self) else { return nil }
        return .account(name)
    }

    /// The state a reader sees in a whole file: the valid slot with the higher
    /// sequence, which slot that was, whether it was written unsynced, and
    /// whether the other slot is valid too (the writer's choice of slot).
    static func decodeFile(_ bytes: [UInt8]) -> DecodedFile? {
        guard bytes.count == fileSize else { return nil }
        var best: DecodedFile? = nil
        var valid = 0
        for index in 0..<slotCount {
            let range = (index * slotSize)..<((index + 1) * slotSize)
            guard let decoded = decode(bytes[range]) else { continue }
            valid += 1
            if decoded.sequence >= (best?.sequence ?? 0) {
                best = DecodedFile(record: decoded.record, sequence: decoded.sequence, slot: index,
                                   unsynced: decoded.unsynced, otherSlotValid: false)
            }
        }
        best?.otherSlotValid = valid == slotCount
        return best
    }

    struct DecodedFile {
        let record: UserRecord
        let sequence: UInt64
        let slot: Int
        let unsynced: Bool
        var otherSlotValid: Bool
    }

    private static func checksum(of slot: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: layout.checksum.size)
        crypto_generichash(&digest, digest.count, slot, UInt64(layout.checksum.offset), nil, 0)
        return digest
    }

    /// Writes `value` into `field`; an integer of another type than the field's is a programming error.
    private static func put<Value: FixedWidthInteger>(_ value: Value, at field: RecordField, in slot: inout [UInt8]) {
        precondition(field.type.holds(Value.self), "record field \(field.name) is not a \(Value.self)")
        withUnsafeBytes(of: value.littleEndian) { slot.replaceSubrange(field.range, with: $0) }
    }

    /// Writes `bytes` at the start of `field`; the rest of the field stays as it was (zero).
    private static func put(_ bytes: [UInt8], at field: RecordField, in slot: inout [UInt8]) {
        precondition(bytes.count <= field.size, "\(bytes.count) bytes do not fit record field \(field.name)")
        slot.replaceSubrange(field.offset..<(field.offset + bytes.count), with: bytes)
    }

    private static func get<Value: FixedWidthInteger>(_: Value.Type, at field: RecordField, in slot: [UInt8]) -> Value {
        precondition(field.type.holds(Value.self), "record field \(field.name) is not a \(Value.self)")
        var value = Value.zero
        for index in field.range.reversed() {
            value = value << 8 | Value(truncatingIfNeeded: slot[index])
        }
        return value
    }
}
