import PinGateCore

/// A pattern being drawn: the cells joined so far, in order, by pointer,
/// touch or keyboard. Each new cell first brings in the unvisited cells
/// between it and the last one, and a visited cell is crossed, never joined
/// twice: PinGateCore's gap rule (`PatternGrid.appendCells`), applied by the
/// core itself, so the path drawn is the one the verifier normalises to.
public struct PatternEntry: Sendable {
    public let grid: PatternGrid
    public private(set) var cells: [Int]
    /// True between a press on a dot and the release.
    public private(set) var isTracing = false
    /// The keyboard's cursor (a cell number), moved by the arrow keys.
    public private(set) var cursor: Int

    public init(grid: PatternGrid) {
        self.grid = grid
        // Room for every cell, once: a path that grows never moves.
        cells = [Int](secretScratchCapacity: grid.cellCount)
        // The middle dot; on an even grid the upper-left of the middle four.
        let middle = (grid.size - 1) / 2
        self.cursor = middle * grid.size + middle + 1
    }

    public var isEmpty: Bool { cells.isEmpty }

    /// A press landed on `cell`: a new path starts there.
    public mutating func begin(at cell: Int) {
        clear()
        isTracing = true
        join(cell)
    }

    /// The pointer reached `cell` while tracing (or a key named it): joins it
    /// and the cells the gap rule passes over. Returns true if the path grew;
    /// a cell outside the grid or already joined changes nothing.
    @discardableResult
    public mutating func join(_ cell: Int) -> Bool {
        do {
            try grid.appendCells(taking: cell, to: &cells)
        } catch {
            return false
        }
        cursor = cell
        return true
    }

    /// The release: tracing ends and the path is handed over (and cleared),
    /// unless it is a lone dot — a tap, not a pattern.
    public mutating func finish() -> [Int]? {
        isTracing = false
        guard cells.count >= 2 else {
            clear()
            return nil
        }
        return take()
    }

    /// Hands over the path typed on the keyboard (Enter); nil if empty.
    public mutating func take() -> [Int]? {
        guard !cells.isEmpty else { return nil }
        let path = cells.separateCopy()
        clear()
        return path
    }

    public mutating func removeLast() {
        guard !cells.isEmpty else { return }
        cells[cells.count - 1] = 0
        cells.removeLast()
    }

    public mutating func clear() {
        cells.wipe()
        cells.removeAll(keepingCapacity: true)
        isTracing = false
    }

    /// Moves the keyboard cursor by whole rows or columns, stopping at the edges.
    public mutating func moveCursor(rows: Int, columns: Int) {
        let row = min(max((cursor - 1) / grid.size + rows, 0), grid.size - 1)
        let column = min(max((cursor - 1) % grid.size + columns, 0), grid.size - 1)
        cursor = row * grid.size + column + 1
    }

    /// The cell a numeric keypad key stands for on a 3×3 grid, by its place on
    /// the keypad: 7 8 9 is the top row, 1 2 3 the bottom one.
    public static func cellForKeypadDigit(_ digit: Int) -> Int? {
        guard (1...9).contains(digit) else { return nil }
        let keypadRow = (digit - 1) / 3            // 0 = bottom row (1 2 3)
        return (2 - keypadRow) * 3 + (digit - 1) % 3 + 1
    }

    /// The text sent as the pattern: cells joined by "-", as the module
    /// expects. Written digit by digit into room reserved for it (at most two
    /// digits and a dash per cell): no String of the pattern, nothing moved.
    public static func text(of path: [Int]) -> [UInt8] {
        var text = [UInt8]()
        text.reserveCapacity(path.count * 3)
        for (index, cell) in path.enumerated() {
            if index > 0 { text.append(UInt8(ascii: "-")) }
            if cell >= 10 { text.append(UInt8(ascii: "0") + UInt8(cell / 10)) }
            text.append(UInt8(ascii: "0") + UInt8(cell % 10))
        }
        return text
    }
}
