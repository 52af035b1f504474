// Fuzz target: RecordCodec.decode and decodeFile, the reader of records that
// the setgid helper writes. A random slot almost never passes the BLAKE2b
// checksum, so for half the inputs (first byte odd) the target writes the
// correct checksum into each slot first and the fuzzer explores the fields.
// Invariants: a slot that decodes re-encodes to the same bytes (reserved
// bytes, hash and user name padding, and a format-1 slot's user name read as
// zero) and decodes again to the same record; decodeFile picks a valid slot
// with the highest sequence.
@testable import PinGateCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecordCodec(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    withInput(data, size) { input in
        guard let mode = input.first else { return }
        var bytes = Array(input.dropFirst())
        if mode & 1 == 1 {
            for start in stride(from: 0, to: bytes.count - RecordCodec.slotSize + 1, by: RecordCodec.slotSize) {
                sealSlot(&bytes, at: start)
            }
        }
        if bytes.count == RecordCodec.slotSize {
            checkSlot(bytes[...])
        } else {
            checkFile(bytes)
        }
    }
    return 0
}

private func checkSlot(_ slot: ArraySlice<UInt8>) {
    guard let (record, sequence, unsynced) = RecordCodec.decode(slot) else { return }
    let encoded = RecordCodec.encode(record, sequence: sequence, unsynced: unsynced)
    var expected = Array(slot)
    let layout = RecordCodec.layout
    var unread = layout.rows.filter(\.isReserved).map(\.range)
    unread.append((layout.hash.offset + record.hash.utf8.count)..<layout.hash.range.upperBound)
    if record.lastFailureBoot == nil { unread.append(layout.lastFailureBootClock.range) }  // boot clock without a boot id
    switch record.binding {
    case .unbound:  // format 1 has no account: those bytes were reserved then
        unread += [layout.userNameLength.range, layout.userName.range]
    case .noAccount:
        unread.append(layout.userName.range)
    case let .account(name):
        unread.append((layout.userName.offset + name.utf8.count)..<layout.userName.range.upperBound)
    }
    for range in unread { expected.replaceSubrange(range, with: repeatElement(0, count: range.count)) }
    sealSlot(&expected, at: 0)
    invariant(encoded == expected, "decoded slot re-encodes to different bytes")
    let again = RecordCodec.decode(encoded[...])
    invariant(again?.record == record && again?.sequence == sequence && again?.unsynced == unsynced, "re-encoded slot decodes differently")
    invariant(record.failures >= 0 && record.failures <= Int(UInt32.max), "failures \(record.failures)")
}

private func checkFile(_ bytes: [UInt8]) {
    let decoded = RecordCodec.decodeFile(bytes)
    guard bytes.count == RecordCodec.fileSize else {
        invariant(decoded == nil, "a file of \(bytes.count) bytes decoded")
        return
    }
    let slots = (0..<RecordCodec.slotCount).map { RecordCodec.decode(bytes[($0 * RecordCodec.slotSize)..<(($0 + 1) * RecordCodec.slotSize)]) }
    for slot in slots.indices { checkSlot(bytes[(slot * RecordCodec.slotSize)..<((slot + 1) * RecordCodec.slotSize)]) }
    guard let decoded else {
        invariant(slots.allSatisfy { $0 == nil }, "a valid slot was ignored")
        return
    }
    invariant(slots[decoded.slot]?.record == decoded.record && slots[decoded.slot]?.sequence == decoded.sequence, "chosen slot differs")
    invariant(slots.allSatisfy { ($0?.sequence ?? 0) <= decoded.sequence }, "a slot with a higher sequence was ignored")
}

/// Seals the slot at `start` as the codec does: the checksum over the bytes before it.
private func sealSlot(_ bytes: inout [UInt8], at start: Int) {
    let range = start..<(start + RecordCodec.slotSize)
    var slot = Array(bytes[range])
    RecordCodec.seal(&slot)
    bytes.replaceSubrange(range, with: slot)
}
