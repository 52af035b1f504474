/// The fields of one record slot, declared once. `RecordCodec` reads and
/// writes through them; docs/design.md shows them as a table that
/// `RecordLayoutTests` renders from here and compares; Tests/Attack/record_tool.py
/// reads its offsets from that table.
///
/// An offset never moves. A gap between two fields is reserved: zero in every
/// record written so far, and the place for a new field. Format 2 is format 1
/// with `user_name` (and its length) where format 1 had reserved zeros; a
/// slot of format 1 is read only to migrate it (`Store.migrateRecords`). Adding one is a line below, at an offset inside a gap, plus its
/// `put` in `RecordCodec.encode` and `get` in `decode`; a record written
/// before it reads the new field as zero. `rows` lists the gaps, so the
/// reserved ranges need no editing.
struct RecordLayout {
    static let slotSize = 512
    static let magic = "PGR1"
    static let formatVersion: UInt16 = 2
    /// Records from before they named their account (`AccountBinding.unbound`).
    static let unboundFormatVersion: UInt16 = 1

    let magic                = RecordField("magic",                   at: 0,   .bytes(4),    "\"\(RecordLayout.magic)\"")
    let formatVersion        = RecordField("format_version",          at: 4,   .u16,         "\(RecordLayout.formatVersion); \(RecordLayout.unboundFormatVersion): a slot from before `user_name`, read only by `pingate init --upgrade`; another is not read")
    let sequence             = RecordField("sequence",                at: 8,   .u64,         "the reader takes the valid slot with the higher one")
    let uid                  = RecordField("uid",                     at: 16,  .u32,         "must match the record's file name")
    let kind                 = RecordField("kind",                    at: 20,  .u8,          "1 PIN, 2 pattern")
    let grid                 = RecordField("grid",                    at: 21,  .u8,          "a pattern's grid size, \(rangeText(PatternGrid.supportedSizes)); 0 for a PIN")
    let disabled             = RecordField("disabled",                at: 22,  .u8,          "1: disabled until `pingate unlock`; else 0")
    let hashLength           = RecordField("hash_length",             at: 23,  .u8,          "bytes of `hash` in use; less than its size")
    let failures             = RecordField("failures",                at: 24,  .u32,         "failures counted since the last clearing")
    let pinLength            = RecordField("pin_length",              at: 28,  .u8,          "a PIN's digits, \(rangeText(PIN.lengthLimits)); 0: a pattern, or not kept")
    let unsynced             = RecordField("unsynced",                at: 29,  .u8,          "1: written without waiting for the disk; the next write goes over this slot, not the other, synced one; 0: synced")
    let userNameLength       = RecordField("user_name_length",        at: 30,  .u8,          "bytes of `user_name` in use; less than its size; 0: bound to no account (migrated as an orphan)")
    let lastFailure          = RecordField("last_failure",            at: 32,  .i64,         "wall clock (Unix s) of the last failure, for display; 0: none")
    let created              = RecordField("created",                 at: 40,  .i64,         "wall clock (Unix s) of the enrolment")
    let changed              = RecordField("changed",                 at: 48,  .i64,         "wall clock (Unix s) of the last new credential")
    let lastSuccess          = RecordField("last_success",            at: 56,  .i64,         "wall clock (Unix s) of the last success; 0: never")
    let hash                 = RecordField("hash",                    at: 64,  .text(128),   "the Argon2id string, NUL-padded")
    let attemptSerial        = RecordField("attempt_serial",          at: 192, .u64,         "attempts ever counted; never goes back")
    let lastFailureBootID    = RecordField("last_failure_boot_id",    at: 200, .uuid,        "boot id at the last failure; all zero: no boot stamp")
    let lastFailureBootClock = RecordField("last_failure_boot_clock", at: 216, .i64,         "CLOCK_BOOTTIME seconds at the last failure; timeouts run on it")
    let firstFailure         = RecordField("first_failure",           at: 224, .i64,         "wall clock (Unix s) of the first of the failures counted now; 0: none")
    let unseenFailures       = RecordField("unseen_failures",         at: 232, .u32,         "failures cleared since the owner was last told of them")
    let unseenSince          = RecordField("unseen_since",            at: 240, .i64,         "wall clock (Unix s) of the first unseen failure; 0: none")
    let lastWrongTag         = RecordField("last_wrong_tag",          at: 256, .bytes(32),   "keyed HMAC of the last credential verified wrong (not counted again); all zero: none")
    let userName             = RecordField("user_name",               at: 288, .text(128),   "the account the record was made for (its uid's name at enrolment); a reader refuses the record when `uid` has another name now, or none")
    let pinSessionsBootID    = RecordField("pin_sessions_boot_id",    at: 416, .uuid,        "boot id of the marks below; all zero: no marks")
    let pinSessionLeader1    = RecordField("pin_session_leader_1",    at: 432, .u32,         "pid of a process that signed in with the PIN outside any session, so may lead a session it opened (`PINOpenedSessions`); 0: none")
    let pinSessionLeader2    = RecordField("pin_session_leader_2",    at: 436, .u32,         "the same, a second one; 0: none")
    let pinSessionLeader3    = RecordField("pin_session_leader_3",    at: 440, .u32,         "the same, a third one; 0: none")
    let pinSessionsOverflow  = RecordField("pin_sessions_overflow",   at: 444, .u8,          "1: more such processes ran at once in that boot than fit here: every session of the boot counts as opened with the PIN; else 0")
    let pinSessionStart1     = RecordField("pin_session_start_1",     at: 448, .u64,         "start time (clock ticks after boot, /proc/PID/stat) of `pin_session_leader_1`")
    let pinSessionStart2     = RecordField("pin_session_start_2",     at: 456, .u64,         "the same for `pin_session_leader_2`")
    let pinSessionStart3     = RecordField("pin_session_start_3",     at: 464, .u64,         "the same for `pin_session_leader_3`")
    let checksum             = RecordField("checksum",                at: 496, .blake2b(16), "BLAKE2b-128 of every byte before it")

    /// The pid and start fields of each `PINOpenedSessions` mark, in order.
    var pinSessionMarks: [(pid: RecordField, start: RecordField)] {
        [(pinSessionLeader1, pinSessionStart1), (pinSessionLeader2, pinSessionStart2), (pinSessionLeader3, pinSessionStart3)]
    }

    /// The declared fields, by offset. Read by reflection, so that a field
    /// declared above is listed without a second line.
    var fields: [RecordField] {
        Mirror(reflecting: self).children.compactMap { $0.value as? RecordField }.sorted { $0.offset < $1.offset }
    }

    /// The whole slot: the declared fields and, between them, the reserved gaps.
    /// Overlapping fields, or a field past the slot, are a programming error.
    var rows: [RecordField] {
        var rows: [RecordField] = []
        var end = 0
        for field in fields {
            precondition(field.offset >= end, "record field \(field.name) overlaps the one before it")
            if field.offset > end { rows.append(.reserved(end..<field.offset)) }
            rows.append(field)
            end = field.range.upperBound
        }
        precondition(end <= Self.slotSize, "record field \(rows.last?.name ?? "") ends past the slot")
        if end < Self.slotSize { rows.append(.reserved(end..<Self.slotSize)) }
        return rows
    }
}

/// "3...6", as a `ClosedRange<Int>` prints itself, without the runtime's
/// generic printing: the layout is built at every helper start.
private func rangeText(_ range: ClosedRange<Int>) -> String {
    String(range.lowerBound) + "..." + String(range.upperBound)
}

/// One field of a record slot: its name (record_tool.py's key), where it is,
/// what it holds, and what it means.
struct RecordField: Equatable, Sendable {
    let name: String
    let offset: Int
    let type: RecordFieldType
    let meaning: String

    init(_ name: String, at offset: Int, _ type: RecordFieldType, _ meaning: String) {
        self.name = name
        self.offset = offset
        self.type = type
        self.meaning = meaning
    }

    var size: Int { type.size }
    var range: Range<Int> { offset..<(offset + size) }
    var isReserved: Bool { type == .zero(size) }

    static func reserved(_ range: Range<Int>) -> RecordField {
        RecordField("reserved", at: range.lowerBound, .zero(range.count), "zero; room for new fields")
    }
}

/// What a field holds; integers are little-endian.
enum RecordFieldType: Equatable, Sendable {
    case u8, u16, u32, u64, i64
    /// Raw bytes (the magic).
    case bytes(Int)
    /// UTF-8 text, NUL-padded; its length is in the field named `<name>_length`.
    case text(Int)
    /// A UUID's 16 bytes.
    case uuid
    /// A BLAKE2b digest of every byte before the field.
    case blake2b(Int)
    /// Reserved bytes, zero.
    case zero(Int)

    var size: Int {
        switch self {
        case .u8: return 1
        case .u16: return 2
        case .u32: return 4
        case .u64, .i64: return 8
        case .uuid: return 16
        case .bytes(let size), .text(let size), .blake2b(let size), .zero(let size): return size
        }
    }

    /// The word in docs/design.md's table.
    var name: String {
        switch self {
        case .u8: return "u8"
        case .u16: return "u16"
        case .u32: return "u32"
        case .u64: return "u64"
        case .i64: return "i64"
        case .bytes: return "bytes"
        case .text: return "text"
        case .uuid: return "uuid"
        case .blake2b: return "blake2b"
        case .zero: return "zero"
        }
    }

    /// Whether an integer of type `Value` is what this field holds.
    func holds<Value: FixedWidthInteger>(_: Value.Type) -> Bool {
        switch self {
        case .u8, .u16, .u32, .u64: return !Value.isSigned && MemoryLayout<Value>.size == size
        case .i64: return Value.isSigned && MemoryLayout<Value>.size == size
        default: return false
        }
    }
}
