@testable import PinGateCLI
import PinGateCore
import Testing

/// The pattern pad's path follows the core's gap rule and typed-text parser.
@Suite struct PatternPathTests {
    let grid = try! PatternGrid(size: 3)

    func typed(_ text: String) -> (cells: [Int], valid: Bool) {
        var buffer = Secret(capacity: 64)
        for byte in text.utf8 { buffer.append(byte) }
        let result = PatternPath.fromTyped(buffer, grid: grid)
        return (cells(result), result.isValid)
    }

    func cells(_ path: borrowing PatternPath) -> [Int] { path.cells.withUnsafeBytes { $0.map(Int.init) } }

    @Test func drawingAcrossACellTakesItFirst() {
        var path = PatternPath(grid: grid)
        #expect(path.take(1) && path.take(3))
        #expect(cells(path) == [1, 2, 3])
        path.undo()
        #expect(cells(path) == [1])
    }

    @Test func aTakenCellCannotBeTakenAgain() {
        var path = PatternPath(grid: grid)
        #expect(path.take(5) && !path.take(5) && !path.take(10))
    }

    @Test func typedTextIsReadAsTheCoreReadsIt() {
        #expect(typed("1-9").cells == [1, 5, 9])
        #expect(typed("159").cells == [1, 5, 9])
        #expect(typed("1,5-").cells == [1, 5])
        #expect(typed("1-5-1").valid == false)
        #expect(typed("1-5-1").cells == [1, 5])
        #expect(typed("1--5").valid == false)
    }

    @Test func aDrawnPathHasTheCanonicalTextOfThePattern() throws {
        var path = PatternPath(grid: grid)
        _ = path.take(1); _ = path.take(9); _ = path.take(6)
        let pattern = try Pattern(grid: grid, drawnCells: path.cells, minimumCells: 4)
        #expect(String(decoding: (0..<pattern.canonicalText().count).map { pattern.canonicalText()[$0] }, as: UTF8.self) == "3:1-5-9-6")
    }
}
