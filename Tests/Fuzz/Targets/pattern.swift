// Fuzz target: Pattern(parsing:expectedGrid:minimumCells:) for grids 3–6.
// The first byte picks the grid (3 + b % 4) and the minimum cells (4…R²);
// the rest is the typed text. An accepted pattern is a normalised path (no
// repeated cell, no unvisited cell skipped over), and its canonical text
// and its dash-separated form both re-parse to the same cells.
@testable import PinGateCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPatternParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    withInput(data, size) { input in
        guard let selector = input.first else { return }
        let grid = try! PatternGrid(size: 3 + Int(selector % 4))
        let minimumCells = 4 + Int(selector / 4) % (grid.cellCount - 3)
        let typed = Secret(copying: UnsafeRawBufferPointer(rebasing: input.dropFirst()))
        guard let pattern = try? Pattern(parsing: typed, expectedGrid: grid, minimumCells: minimumCells) else { return }
        let cells = pattern.cellNumbers
        invariant(pattern.grid == grid, "grid changed")
        invariant(cells.count >= minimumCells && cells.count <= grid.cellCount, "\(cells.count) cells")
        invariant(Set(cells).count == cells.count, "repeated cell in \(cells)")
        invariant(cells.allSatisfy { (1...grid.cellCount).contains($0) }, "cell outside the grid in \(cells)")
        for index in cells.indices.dropFirst() {
            let crossed = grid.cellsBetween(cells[index - 1], cells[index])
            invariant(crossed.allSatisfy { cells[..<index].contains($0) }, "step \(index) skips an unvisited cell in \(cells)")
        }
        let canonical = pattern.canonicalText()
        let reparsed = try? Pattern(parsing: canonical, expectedGrid: grid, minimumCells: minimumCells)
        let reparsedCells = cellNumbers(of: reparsed)
        let reparsedCanonical = canonicalBytes(of: reparsed)
        invariant(reparsedCells == cells, "canonical text does not re-parse to the same cells")
        invariant(reparsedCanonical == canonical.bytes, "canonical text is not a fixed point")
        let dashed = Secret(copying: cells.map(String.init).joined(separator: "-").utf8)
        let typedAgain = try? Pattern(parsing: dashed, expectedGrid: grid, minimumCells: minimumCells)
        let typedAgainCells = cellNumbers(of: typedAgain)
        invariant(typedAgainCells == cells, "dash form does not re-parse to the same cells")
    }
    return 0
}
