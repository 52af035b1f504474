/// An R×R grid of dots, cells numbered 1…R² row by row, and the geometry of
/// Android's gap rule generalised to any R.
public struct PatternGrid: Equatable, Sendable {
    public static let supportedSizes = 3...6

    public let size: Int

    public init(size: Int) throws {
        guard PatternGrid.supportedSizes.contains(size) else {
            throw CredentialError.patternGridUnsupported(grid: size)
        }
        self.size = size
    }

    public var cellCount: Int { size * size }

    /// The cells strictly between `from` and `to` on the straight segment
    /// joining them, in order from `from`: every grid point (r₁ + k·dr/g,
    /// c₁ + k·dc/g) for 0 < k < g, where g = gcd(|dr|, |dc|). For a 3×3 grid
    /// only the jumps over the middle of a row, column or diagonal have one.
    public func cellsBetween(_ from: Int, _ to: Int) -> [Int] {
        var cells = [Int](secretScratchCapacity: size - 2)
        forEachCellBetween(from, to) { cells.appendWithinCapacity($0) }
        return cells
    }

    /// `cellsBetween`, one cell at a time, with no array to leave behind.
    /// At most R − 2 cells: g ≤ R − 1.
    func forEachCellBetween(_ from: Int, _ to: Int, _ body: (Int) -> Void) {
        let (fromRow, fromColumn) = ((from - 1) / size, (from - 1) % size)
        let (toRow, toColumn) = ((to - 1) / size, (to - 1) % size)
        let rowStep = toRow - fromRow
        let columnStep = toColumn - fromColumn
        let steps = greatestCommonDivisor(abs(rowStep), abs(columnStep))
        guard steps > 1 else { return }
        for k in 1..<steps {
            body((fromRow + k * rowStep / steps) * size + (fromColumn + k * columnStep / steps) + 1)
        }
    }

    /// The gap rule for one step, in place: appends the cells taking `cell`
    /// adds to `path`, which are the unvisited cells between the path's last
    /// cell and `cell`, then `cell`; throws if `cell` is outside the grid or
    /// already in `path`. The path is a `Secret`, a cell number a byte, whose
    /// capacity is the grid's cell count (a path visits each cell at most
    /// once), so it never moves: `Pattern` normalises typed cells with it, and
    /// the lock screen's and the terminal's pads grow a drawn path with it.
    public func appendCells(taking cell: Int, to path: inout Secret) throws(CredentialError) {
        let last = path.isEmpty ? nil : Int(path[path.count - 1])
        try forEachCellAdded(taking: cell, last: last, isVisited: { visited in path.withUnsafeBytes { $0.contains(UInt8(visited)) } }) {
            precondition(path.append(UInt8($0)), "a drawn path outgrew its grid")
        }
    }

    /// The rule itself.
    private func forEachCellAdded(taking cell: Int, last: Int?, isVisited: (Int) -> Bool,
                                  _ add: (Int) -> Void) throws(CredentialError) {
        guard (1...cellCount).contains(cell) else { throw .patternCellOutsideGrid(cell: cell, grid: size) }
        guard !isVisited(cell) else { throw .patternCellRepeated(cell: cell) }
        if let last {
            forEachCellBetween(last, cell) { between in if !isVisited(between) { add(between) } }
        }
        add(cell)
    }

    /// The legend shown before a pattern prompt: the cell numbers laid out.
    public func legend() -> [String] {
        let width = String(cellCount).count
        return (0..<size).map { row in
            (0..<size).map { column in
                let text = String(row * size + column + 1)
                return String(repeating: " ", count: width - text.count) + text
            }.joined(separator: " ")
        }
    }
}

func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
    var (x, y) = (a, b)
    while y != 0 { (x, y) = (y, x % y) }
    return x
}
