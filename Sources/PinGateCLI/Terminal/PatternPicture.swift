import PinGateCore

/// Draws a pattern grid as text: a dot per cell (● taken, ○ free), the path's
/// segments between taken cells, an optional cursor, and the cell numbers as a
/// legend on the right. Dots sit 4 columns and 2 rows apart, so a 6×6 grid is
/// 21×11 characters and fits 80×24 with room for the instructions.
struct PatternPicture {
    let grid: PatternGrid
    var path: [Int] = []
    /// Row and column of the cursor, or nil for a still picture.
    var cursor: (row: Int, column: Int)? = nil

    private var height: Int { 2 * grid.size - 1 }
    private var width: Int { 4 * (grid.size - 1) + 1 }

    func lines(indent: String = "    ") -> [String] {
        var canvas = [[String]](repeating: [String](repeating: " ", count: width), count: height)
        for (from, to) in zip(path, path.dropFirst()) { drawSegment(from, to, on: &canvas) }
        let taken = Set(path)
        for cell in 1...grid.cellCount {
            let (row, column) = position(of: cell)
            var dot = taken.contains(cell) ? "●" : "○"
            if let cursor, cursor.row == row, cursor.column == column { dot = "\u{1B}[7m" + dot + "\u{1B}[0m" }
            canvas[2 * row][4 * column] = dot
        }
        let legend = grid.legend()
        return canvas.enumerated().map { index, characters in
            var line = indent + characters.joined()
            if index % 2 == 0 { line += "      " + legend[index / 2] }
            return line
        }
    }

    private func position(of cell: Int) -> (Int, Int) { ((cell - 1) / grid.size, (cell - 1) % grid.size) }

    /// Marks the characters on the straight line between two dots.
    private func drawSegment(_ from: Int, _ to: Int, on canvas: inout [[String]]) {
        let (fromRow, fromColumn) = position(of: from)
        let (toRow, toColumn) = position(of: to)
        let (y1, x1) = (2 * fromRow, 4 * fromColumn)
        let (dy, dx) = (2 * (toRow - fromRow), 4 * (toColumn - fromColumn))
        let glyph = dy == 0 ? "─" : dx == 0 ? "│" : (dx > 0) == (dy > 0) ? "╲" : "╱"
        let steps = max(abs(dx), abs(dy))
        guard steps > 1 else { return }
        for step in 1..<steps {
            let y = y1 + Int((Double(dy * step) / Double(steps)).rounded())
            let x = x1 + Int((Double(dx * step) / Double(steps)).rounded())
            if y % 2 == 0, x % 4 == 0 { continue }  // a dot: drawn later
            canvas[y][x] = glyph
        }
    }
}

/// A path being drawn, with the gap rule applied as it grows: taking b after a
/// first takes the unvisited cells between them (PatternGrid.cellsBetween),
/// exactly as `Pattern` normalises typed cells.
struct PatternPath {
    let grid: PatternGrid
    private(set) var cells: [Int] = []
    /// How many cells each take added, so Backspace undoes a whole take.
    private var takes: [Int] = []

    init(grid: PatternGrid) { self.grid = grid }

    /// Takes `cell`; false (and no change) if it is outside or already used.
    mutating func take(_ cell: Int) -> Bool {
        guard (1...grid.cellCount).contains(cell), !cells.contains(cell) else { return false }
        let before = cells.count
        if let last = cells.last {
            cells += grid.cellsBetween(last, cell).filter { !cells.contains($0) }
        }
        cells.append(cell)
        takes.append(cells.count - before)
        return true
    }

    mutating func undo() {
        guard let added = takes.popLast() else { return }
        cells.removeLast(added)
    }

    mutating func wipe() {
        for index in cells.indices { cells[index] = 0 }
        cells = []
        takes = []
    }

    /// Cells from typed text such as "1-5-9-6", "1,5" or, on grids of at most
    /// 9 cells, "1596". Stops at the first cell that cannot be taken.
    static func fromTyped(_ text: SecretBuffer, grid: PatternGrid) -> (path: PatternPath, valid: Bool) {
        var path = PatternPath(grid: grid)
        var number = 0
        var digits = 0
        var valid = true
        func finish() {
            if digits > 0, valid { valid = path.take(number) }
            number = 0; digits = 0
        }
        for index in 0..<text.count {
            let byte = text[index]
            if (0x30...0x39).contains(byte) {
                if grid.cellCount <= 9, digits == 1 { finish() }
                number = number * 10 + Int(byte - 0x30)
                digits += 1
            } else {
                finish()
            }
        }
        finish()
        number = 0
        return (path, valid)
    }
}
