import Foundation
import Testing
@testable import PinGateCore

/// The record slot's layout is written once, in `RecordLayout`. docs/design.md
/// shows it as a table, and Tests/Attack/record_tool.py reads its offsets
/// from that table: these tests keep the table equal to the layout, byte for
/// byte, and the layout whole.
@Suite("Record layout: one declaration, shown in docs/design.md")
struct RecordLayoutTests {
    static let layout = RecordCodec.layout
    static let header = "| offset | size | field | type | meaning |"

    /// The markdown table of `rows`, as docs/design.md must show it.
    static func table(_ rows: [RecordField]) -> String {
        let lines = rows.map { "| \($0.offset) | \($0.size) | `\($0.name)` | \($0.type.name) | \($0.meaning) |" }
        return ([header, "|---:|---:|---|---|---|"] + lines).joined(separator: "\n")
    }

    /// The record table in `markdown`: its header line and every `|` line after it.
    static func documentedTable(in markdown: String) -> String? {
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == header }) else { return nil }
        return lines[start...].prefix { $0.hasPrefix("|") }.joined(separator: "\n")
    }

    /// nil when `documented` is `expected`; else what differs, and the table to paste.
    static func drift(documented: String?, expected: String) -> String? {
        guard let documented else {
            return "docs/design.md has no record table (a line \"\(header)\"); section 4 should have:\n\(expected)"
        }
        guard documented != expected else { return nil }
        let old = documented.split(separator: "\n", omittingEmptySubsequences: false)
        let new = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let line = Array(zip(old, new)).firstIndex { $0 != $1 } ?? min(old.count, new.count)
        let shown = { (lines: [Substring]) in line < lines.count ? String(lines[line]) : "(the table ends)" }
        return """
            docs/design.md's record table differs from RecordLayout at table line \(line + 1):
              docs/design.md: \(shown(old))
              RecordLayout:   \(shown(new))
            The table RecordLayout gives (paste it into docs/design.md, section 4; record_tool.py reads it):
            \(expected)
            """
    }

    static var designDocument: String? {
        let root = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        return try? String(contentsOfFile: "/" + root + "/docs/design.md", encoding: .utf8)
    }

    @Test("docs/design.md's record table is RecordLayout's, byte for byte")
    func documentedTableMatches() throws {
        let document = try #require(Self.designDocument, "docs/design.md is readable")
        if let problem = Self.drift(documented: Self.documentedTable(in: document), expected: Self.table(Self.layout.rows)) {
            Issue.record(Comment(rawValue: problem))
        }
        #expect(document.components(separatedBy: Self.header).count == 2, "docs/design.md has one record table")
    }

    @Test("a field moved in the layout, or a line edited in the document, is reported with the table to paste")
    func driftIsReported() throws {
        let document = try #require(Self.designDocument)
        let documented = Self.documentedTable(in: document)
        let moved = Self.layout.rows.map { $0.name == "pin_length" ? RecordField("pin_length", at: 29, .u8, $0.meaning) : $0 }
        let problem = try #require(Self.drift(documented: documented, expected: Self.table(moved)))
        #expect(problem.contains("RecordLayout:   | 29 | 1 | `pin_length`"))
        #expect(problem.hasSuffix(Self.table(moved)))

        let expected = Self.table(Self.layout.rows)
        let edited = expected.replacingOccurrences(of: "| 28 | 1 | `pin_length`", with: "| 28 | 4 | `reserved`")
        #expect(Self.drift(documented: edited, expected: expected)?.contains("docs/design.md: | 28 | 4 | `reserved`") == true)
        #expect(Self.drift(documented: nil, expected: expected) != nil)
    }

    @Test("the fields and the reserved gaps cover the slot once, the checksum last over every byte before it")
    func fieldsCoverTheSlot() {
        let rows = Self.layout.rows
        #expect(rows.first?.offset == 0)
        for (previous, next) in zip(rows, rows.dropFirst()) {
            #expect(previous.range.upperBound == next.offset, "\(previous.name) then \(next.name)")
        }
        #expect(rows.last == Self.layout.checksum)
        #expect(Self.layout.checksum.range.upperBound == RecordLayout.slotSize)
    }

    @Test("every field has its own name, and a text field has its length field")
    func names() {
        let names = Self.layout.fields.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(!names.contains("reserved"))
        for field in Self.layout.fields {
            if case .text(let size) = field.type {
                let length = Self.layout.fields.first { $0.name == field.name + "_length" }
                #expect(length?.type == .u8 && size <= 256, "\(field.name)_length")
            }
        }
    }

    @Test("encode writes every declared field and nothing in the reserved gaps")
    func encodeWritesTheDeclaredFields() {
        var pin = UserRecord(uid: 1000, binding: .account("user1000"), kind: .pin, gridSize: 0, pinLength: 6, hash: "$argon2id$v=19$m=8,t=1,p=1$c2FsdA$aGFzaA", now: 1)
        pin.failures = 2
        pin.lastFailure = 3
        pin.lastSuccess = 4
        pin.changedAt = 5
        pin.disabled = true
        pin.attemptSerial = 6
        pin.lastFailureBoot = BootInstant(bootID: BootID(bytes: Array(1...16))!, seconds: 7)
        pin.firstFailure = 9
        pin.unseenFailures = 10
        pin.unseenSince = 11
        pin.lastWrongTag = [UInt8](repeating: 12, count: 32)
        var pattern = pin
        pattern.kind = .pattern
        pattern.gridSize = 4
        pattern.pinLength = 0
        // Three marks in one slot; in the other, more than fit (overflowed).
        for pid: Int32 in 13...15 {
            pin.pinOpenedSessions.mark(ProcessInstance(pid: pid, startTicks: 16), boot: BootID(bytes: Array(1...16))!, isRunning: { _ in true })
        }
        pattern.pinOpenedSessions = pin.pinOpenedSessions
        pattern.pinOpenedSessions.mark(ProcessInstance(pid: 17, startTicks: 16), boot: BootID(bytes: Array(1...16))!, isRunning: { _ in true })
        let slots = [RecordCodec.encode(pin, sequence: 8), RecordCodec.encode(pattern, sequence: 8, unsynced: true)]
        for row in Self.layout.rows {
            let written = slots.contains { slot in slot[row.range].contains { $0 != 0 } }
            #expect(written == !row.isReserved, "\(row.name) at \(row.offset)")
        }
    }
}
