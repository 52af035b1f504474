import PinGateCore

/// A pattern being drawn: the cells joined so far, in order, by pointer,
/// touch or keyboard. Each new cell first brings in the unvisited cells
/// between it and the last one, and a visited cell is crossed, never joined
/// twice: PinGateCore's gap rule (`PatternGrid.appendCells`), applied by the
/// core itself, so the path drawn is the one the verifier normalises to.
///
/// The path is a `Secret`, one byte per cell, with room for every cell of
/// the grid: it never moves, and what is undone is zeroed. A class, so that
/// the lock screen's state can be copied (to draw it) while the path stays.
public final class PatternEntry {
    public let grid: PatternGrid
    /// The cells joined, in order, one byte each (1-based cell numbers).
    public private(set) var cells: Secret
    /// True between a press on a dot and the release.
    public private(set) var isTracing = false
    /// The keyboard's cursor (a cell number), moved by the arrow keys.
    public private(set) var cursor: Int

    public init(grid: PatternGrid) {
        self.grid = grid
        cells = Secret(capacity: grid.cellCount)
        // The middle dot; on an even grid the upper-left of the middle four.
        let middle = (grid.size - 1) / 2
        self.cursor = middle * grid.size + middle + 1
    }

    public var isEmpty: Bool { cells.isEmpty }

    /// A press landed on `cell`: a new path starts there.
    public func begin(at cell: Int) {
        clear()
        isTracing = true
        join(cell)
    }

    /// The pointer reached `cell` while tracing (or a key named it): joins it
    /// and the cells the gap rule passes over. Returns true if the path grew;
    /// a cell outside the grid or already joined changes nothing.
    @discardableResult
    public func join(_ cell: Int) -> Bool {
        do {
            try grid.appendCells(taking: cell, to: &cells)
        } catch {
            return false
        }
        cursor = cell
        return true
    }

    /// The release: tracing ends and the path is handed over as its text
    /// (and cleared), unless it is a lone dot — a tap, not a pattern.
    public func finish() -> Secret? {
        isTracing = false
        guard cells.count >= 2 else {
            clear()
            return nil
        }
        return take()
    }

    /// Hands over the path typed on the keyboard (Enter) as its text; nil if empty.
    public func take() -> Secret? {
        guard !cells.isEmpty else { return nil }
        let text = PatternEntry.text(of: cells)
        clear()
        return text
    }

    public func removeLast() { cells.removeLast() }

    public func clear() {
        cells.removeAll()
        isTracing = false
    }

    /// Moves the keyboard cursor by whole rows or columns, stopping at the edges.
    public func moveCursor(rows: Int, columns: Int) {
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
    /// expects, written digit by digit into a `Secret` with room for it (at
    /// most two digits and a dash per cell).
    public static func text(of path: borrowing Secret) -> Secret {
        var text = Secret(capacity: path.count * 3)
        for index in 0..<path.count {
            let cell = path[index]
            if index > 0 { text.append(UInt8(ascii: "-")) }
            if cell >= 10 { text.append(UInt8(ascii: "0") + cell / 10) }
            text.append(UInt8(ascii: "0") + cell % 10)
        }
        return text
    }

    /// The cells of a pattern's text ("1-5-9-6"), one byte each, as `text(of:)`
    /// wrote them: the path a refused pattern is drawn with.
    public static func cells(ofText text: borrowing Secret, into path: inout Secret) {
        path.removeAll()
        var cell: UInt8 = 0
        for index in 0..<text.count {
            let byte = text[index]
            if byte == UInt8(ascii: "-") {
                path.append(cell)
                cell = 0
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                cell = cell &* 10 &+ (byte - UInt8(ascii: "0"))
            }
        }
        if text.count > 0 { path.append(cell) }
        cell = 0
    }
}
