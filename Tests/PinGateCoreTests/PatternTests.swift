import Testing
@testable import PinGateCore

@Suite("Patterns: the generalised gap rule")
struct PatternTests {
    let grid3 = try! PatternGrid(size: 3)

    func normalised(_ text: String, grid: Int = 3, minimum: Int = 4) throws -> String {
        let pattern = try Pattern(parsing: secret(text), expectedGrid: PatternGrid(size: grid), minimumCells: minimum)
        return pattern.canonicalText().withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Depth-first count of the normalised patterns: a step may go to any
    /// unvisited cell whose in-between cells are all visited already.
    func countPatterns(grid: PatternGrid, minimum: Int) -> [Int: Int] {
        var counts: [Int: Int] = [:]
        var visited = [Bool](repeating: false, count: grid.cellCount + 1)
        func extend(from cell: Int, length: Int) {
            if length >= minimum { counts[length, default: 0] += 1 }
            for next in 1...grid.cellCount where !visited[next] {
                guard grid.cellsBetween(cell, next).allSatisfy({ visited[$0] }) else { continue }
                visited[next] = true
                extend(from: next, length: length + 1)
                visited[next] = false
            }
        }
        for start in 1...grid.cellCount {
            visited[start] = true
            extend(from: start, length: 1)
            visited[start] = false
        }
        return counts
    }

    @Test("there are exactly 389,112 valid 3×3 patterns, by length as Android counts them")
    func enumerationOf3x3() {
        let counts = countPatterns(grid: grid3, minimum: 4)
        #expect(counts.values.reduce(0, +) == 389_112)
        #expect(counts == [4: 1_624, 5: 7_152, 6: 26_016, 7: 72_912, 8: 140_704, 9: 140_704])
    }

    @Test("every enumerated pattern is its own normal form, and the normaliser agrees on all of them")
    func enumeratedPatternsAreFixedPoints() throws {
        // Walk the same tree and normalise each path: it must come back unchanged.
        var visited = [Bool](repeating: false, count: 10)
        var path: [Int] = []
        var checked = 0
        func walk() throws {
            if path.count >= 4 {
                let pattern = try Pattern(grid: grid3, typedCells: path, minimumCells: 4)
                guard pattern.cells.withUnsafeBytes({ $0.map(Int.init) }) == path else { throw CredentialError.patternSyntax }
                checked += 1
            }
            for next in 1...9 where !visited[next] {
                if let last = path.last, !grid3.cellsBetween(last, next).allSatisfy({ visited[$0] }) { continue }
                visited[next] = true; path.append(next)
                try walk()
                visited[next] = false; path.removeLast()
            }
        }
        try walk()
        #expect(checked == 389_112)
    }

    @Test("a jump over an unvisited middle cell adds it", arguments: [
        ("1-3-6-9", "3:1-2-3-6-9"), ("1-9-8-7", "3:1-5-9-8-7"), ("1-3-9-7", "3:1-2-3-6-9-8-7"),
        ("7-1-2-3", "3:7-4-1-2-3"), ("3-7-8-9", "3:3-5-7-8-9"),
    ])
    func gapRule(typed: String, canonical: String) throws {
        #expect(try normalised(typed) == canonical)
    }

    @Test("1-3 becomes 1-2-3 and 1-9 becomes 1-5-9")
    func shortJumps() throws {
        #expect(try normalised("1-3", minimum: 3) == "3:1-2-3")
        #expect(try normalised("1-9", minimum: 3) == "3:1-5-9")
    }

    @Test("a visited cell may be crossed: 2-1-3 stays 2-1-3")
    func crossingVisited() throws {
        #expect(try normalised("2-1-3-6") == "3:2-1-3-6")
        #expect(try normalised("2-1-3", minimum: 3) == "3:2-1-3")
    }

    @Test("knight moves add nothing")
    func knightMoves() throws {
        #expect(try normalised("1-6-7-2") == "3:1-6-7-2")
        #expect(grid3.cellsBetween(1, 6) == [])
        #expect(grid3.cellsBetween(1, 8) == [])
    }

    @Test("on 4×4 a step of gcd 2 adds its middle point, gcd 3 adds two")
    func fourByFourGaps() throws {
        let grid4 = try PatternGrid(size: 4)
        // 1 (0,0) → 9 (2,0): passes 5 (1,0). 1 → 11 (2,2): passes 6 (1,1).
        #expect(grid4.cellsBetween(1, 9) == [5])
        #expect(grid4.cellsBetween(1, 11) == [6])
        #expect(grid4.cellsBetween(1, 16) == [6, 11])
        #expect(grid4.cellsBetween(1, 12) == [])  // (0,0)→(2,3): gcd 1
        // 1→11 passes 6; 11→3 (2,2)→(0,2) passes 7.
        #expect(try normalised("1-11-3-4", grid: 4) == "4:1-6-11-7-3-4")
        // The diagonal, then the right column upwards, then the anti-diagonal.
        #expect(try normalised("1-16-4-13", grid: 4) == "4:1-6-11-16-12-8-4-7-10-13")
    }

    @Test("a repeated cell is an error, including one the gap rule already added")
    func repeatedCell() {
        #expect(throws: CredentialError.patternCellRepeated(cell: 5)) { try normalised("1-5-9-5") }
        #expect(throws: CredentialError.patternCellRepeated(cell: 2)) { try normalised("1-3-2-6") }
    }

    @Test("fewer than the minimum cells is an error")
    func tooShort() throws {
        #expect(throws: CredentialError.patternTooShort(minimum: 4, got: 3)) { try normalised("1-2-6") }
        // The gap rule's additions count: 1-3-9 is 1-2-3-6-9.
        #expect(try normalised("1-3-9") == "3:1-2-3-6-9")
    }

    @Test("every typed form gives the same canonical pattern", arguments: [
        "1-5-9-6", "1 5 9 6", "1,5,9,6", "1596", "3:1-5-9-6", " 1-5-9-6 ", "1, 5, 9, 6", "1 - 5 - 9 - 6", "1 ,5 ,9 ,6",
    ])
    func typedForms(text: String) throws {
        #expect(try normalised(text) == "3:1-5-9-6")
    }

    @Test("digits without separators are refused where cells have two digits")
    func digitsNeedSeparatorsOnLargeGrids() {
        #expect(throws: CredentialError.patternDigitsNeedSeparators(grid: 4)) { try normalised("1596", grid: 4) }
    }

    @Test("malformed text is a typed error that names the problem", arguments: [
        ("1-12-3-4", CredentialError.patternCellOutsideGrid(cell: 12, grid: 3)),
        ("0-1-2-3", CredentialError.patternCellOutsideGrid(cell: 0, grid: 3)),
        ("1-300-2-3", CredentialError.patternCellOutsideGrid(cell: 300, grid: 3)),  // past a cell's byte
        ("1-a-3-4", CredentialError.patternSyntax),
        ("1--2-3", CredentialError.patternSyntax),
        ("1 - - 2-3", CredentialError.patternSyntax),
        ("1-5-9-", CredentialError.patternSyntax),
        ("-1-5-9", CredentialError.patternSyntax),
        ("4:1-2-3-4", CredentialError.patternGridMismatch(expected: 3, got: 4)),
        ("", CredentialError.empty),
        ("1-2-3-4-5-6-7-8-9-1", CredentialError.patternTooLong(grid: 3)),
    ])
    func malformed(text: String, error: CredentialError) {
        #expect(throws: error) { try normalised(text) }
    }

    @Test("a 10,000-cell pattern is refused quickly without a crash")
    func hugePattern() {
        let text = Array(repeating: "1", count: 10_000).joined(separator: "-")
        #expect(throws: CredentialError.patternTooLong(grid: 3)) { try normalised(text) }
        #expect(throws: CredentialError.patternSyntax) { try normalised(String(repeating: "7", count: 10_000)) }
    }

    // The parser's scratch arrays have fixed room (SecretScratch.swift) and
    // trap rather than grow: these inputs fill each to its limit.
    @Test("the longest inputs fill the room reserved for them and give the same answers")
    func longestInputs() throws {
        let snake = (0..<6).flatMap { row in (1...6).map { row * 6 + (row % 2 == 0 ? $0 : 7 - $0) } }
        let text = "6:" + snake.map(String.init).joined(separator: "-")
        #expect(try normalised(snake.map(String.init).joined(separator: " , "), grid: 6) == text)
        #expect(try normalised(text, grid: 6) == text)
        #expect(throws: CredentialError.patternTooLong(grid: 6)) { try normalised(text + "-1", grid: 6) }
        #expect(throws: CredentialError.patternTooLong(grid: 6)) { try normalised(text + " 1 2", grid: 6) }
        #expect(try normalised("6:36 - 35 - 34 - 33 - 32 - 31 - 30 - 29 - 28", grid: 6) == "6:36-35-34-33-32-31-30-29-28")
        #expect(throws: CredentialError.patternTooLong(grid: 3)) { try normalised(String(repeating: "1", count: 64)) }
        #expect(throws: CredentialError.patternSyntax) { try normalised(String(repeating: "1", count: 65)) }
        #expect(throws: CredentialError.patternSyntax) { try normalised("1-2-" + String(repeating: "1", count: 4)) }
        #expect(throws: CredentialError.patternCellRepeated(cell: 1)) { try normalised("3:123456781") }
        #expect(try normalised("3:159637") == "3:1-5-9-6-3-7")
    }

    @Test("error messages say what is wrong")
    func messages() {
        #expect(CredentialError.patternCellOutsideGrid(cell: 12, grid: 3).description.hasPrefix("cell 12 is outside a 3×3 grid"))
        #expect(CredentialError.pinLength(minimum: 4, maximum: 4, got: 3).description == "a PIN has 4 digits; got 3")
    }

    @Test("grids outside 3…6 are refused")
    func gridSizes() throws {
        #expect(throws: CredentialError.patternGridUnsupported(grid: 2)) { try PatternGrid(size: 2) }
        #expect(throws: CredentialError.patternGridUnsupported(grid: 7)) { try PatternGrid(size: 7) }
        #expect(try PatternGrid(size: 6).cellCount == 36)
    }
}
