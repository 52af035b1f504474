import PinGateCore

/// Draws a pattern grid as text: a dot per cell (● taken, ○ free), the path's
/// segments between taken cells, an optional cursor, and the cell numbers as a
/// legend on the right. Dots sit 4 columns and 2 rows apart, so a 6×6 grid is
/// 21×11 characters and fits 80×24 with room for the instructions.
struct PatternPicture {
    let grid: PatternGrid
    /// Row and column of the cursor, or nil for a still picture.
    var cursor: (row: Int, column: Int)? = nil

    private var height: Int { 2 * grid.size - 1 }
    private var width: Int { 4 * (grid.size - 1) + 1 }

    /// The picture of `path`, its cells one byte each, read in place (a
    /// `Secret`'s or a `Pattern`'s bytes, lent for the drawing).
    func lines(of path: UnsafeRawBufferPointer, indent: String = "    ") -> [String] {
        var canvas = [[String]](repeating: [String](repeating: " ", count: width), count: height)
        if path.count > 1 {
            for index in 1..<path.count { drawSegment(Int(path[index - 1]), Int(path[index]), on: &canvas) }
        }
        for cell in 1...grid.cellCount {
            let (row, column) = position(of: cell)
            var dot = path.contains(UInt8(cell)) ? "●" : "○"
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

/// A path being drawn, with the core's gap rule applied as it grows
/// (`PatternGrid.appendCells`): taking b after a first takes the unvisited
/// cells between them, exactly as `Pattern` normalises typed cells.
///
/// Its cells, one byte each, are a `Secret` with room for every cell of the
/// grid: the path never moves, and what is undone is zeroed.
struct PatternPath: ~Copyable {
    let grid: PatternGrid
    private(set) var cells: Secret
    /// How many cells each take added, so Backspace undoes a whole take.
    private var takes: Secret
    /// False when typed text did not parse or named a cell it cannot take:
    /// the path then stops before it.
    private(set) var isValid = true

    init(grid: PatternGrid) {
        self.grid = grid
        cells = Secret(capacity: grid.cellCount)
        takes = Secret(capacity: grid.cellCount)
    }

    /// Takes `cell`; false (and no change) if it is outside or already used.
    mutating func take(_ cell: Int) -> Bool {
        let before = cells.count
        guard (try? grid.appendCells(taking: cell, to: &cells)) != nil else { return false }
        takes.append(UInt8(cells.count - before))
        return true
    }

    mutating func undo() {
        guard !takes.isEmpty else { return }
        for _ in 0..<takes[takes.count - 1] { cells.removeLast() }
        takes.removeLast()
    }

    mutating func wipe() {
        cells.removeAll()
        takes.removeAll()
    }

    /// The path of text being typed, read by the core's parser (`Pattern.typedCells`)
    /// with a trailing separator still to be followed by a cell.
    static func fromTyped(_ text: borrowing Secret, grid: PatternGrid) -> PatternPath {
        var path = PatternPath(grid: grid)
        var end = text.count
        while end > 0, [UInt8(ascii: "-"), UInt8(ascii: ",")].contains(text[end - 1]) { end -= 1 }
        guard end > 0 else { return path }
        let complete = text.extracting(0..<end)
        guard let cells = try? Pattern.typedCells(parsing: complete, expectedGrid: grid) else {
            path.isValid = false
            return path
        }
        for index in 0..<cells.count where !path.take(Int(cells[index])) {
            path.isValid = false
            return path
        }
        return path
    }
}
