/// A well-formed pattern: a path through distinct cells of an R×R grid,
/// already normalised by the gap rule, with at least the policy's minimum cells.
public struct Pattern: Sendable {
    public let grid: PatternGrid
    /// The cells in order, 1-based, each a byte; kept in `SecretBytes` so the
    /// path is wiped with the rest of the secret.
    public let cells: SecretBytes

    /// Normalises `typedCells` on `grid`: each step from a to b first adds the
    /// unvisited cells on the segment between them (visited ones are crossed),
    /// then b, which must not have been visited.
    public init(grid: PatternGrid, typedCells: [Int], minimumCells: Int) throws {
        var path: [Int] = []
        path.reserveCapacity(grid.cellCount)
        defer { for index in path.indices { path[index] = 0 } }
        for cell in typedCells {
            path += try grid.cellsAdded(taking: cell, after: path)
        }
        guard path.count >= minimumCells else {
            throw CredentialError.patternTooShort(minimum: minimumCells, got: path.count)
        }
        self.grid = grid
        self.cells = SecretBytes(path.map { UInt8($0) })
    }

    /// Parses typed text on a grid of `expectedGrid` cells per side:
    /// `1-5-9-6`, `1 5 9 6`, `1,5,9,6`, `1596` (only when R² ≤ 9), or the
    /// canonical `R:1-5-9-6` (whose R must match).
    public init(parsing input: SecretBytes, expectedGrid: PatternGrid, minimumCells: Int) throws {
        var cells = try Pattern.typedCells(parsing: input, expectedGrid: expectedGrid)
        defer { for index in cells.indices { cells[index] = 0 } }
        try self.init(grid: expectedGrid, typedCells: cells, minimumCells: minimumCells)
    }

    /// The cell numbers of typed text, as written (before the gap rule):
    /// the forms `init(parsing:)` takes. A terminal pad draws them as typed.
    public static func typedCells(parsing input: SecretBytes, expectedGrid: PatternGrid) throws -> [Int] {
        let text = input.trimmingWhitespace()
        guard !text.isEmpty else { throw CredentialError.empty }
        // Split into runs of digits; a run longer than 3 digits can only be the
        // one-digit-per-cell form, so keep the digits of each run.
        var runs: [[Int]] = []
        defer { for index in runs.indices { runs[index] = [] } }
        var current: [Int] = []
        var gridPrefix: Int? = nil
        // True after spaces closed a cell number: "1 - 5" then takes the "-"
        // as that cell's separator, not as a missing cell.
        var closedBySpace = false
        var index = 0
        while index < text.count {
            let byte = text[index]
            switch byte {
            case 0x30...0x39:
                guard current.count < 64 else { throw CredentialError.patternSyntax }
                closedBySpace = false
                current.append(Int(byte - 0x30))
            case UInt8(ascii: ":"):
                guard gridPrefix == nil, runs.isEmpty, !current.isEmpty, current.count <= 2 else {
                    throw CredentialError.patternSyntax
                }
                gridPrefix = current.reduce(0) { $0 * 10 + $1 }
                current = []
            case UInt8(ascii: "-"), UInt8(ascii: ","):
                if !current.isEmpty {
                    runs.append(current)
                } else if !closedBySpace {
                    throw CredentialError.patternSyntax
                }
                current = []
                closedBySpace = false
            case UInt8(ascii: " "):
                if !current.isEmpty {
                    runs.append(current)
                    closedBySpace = true
                }
                current = []
            default:
                throw CredentialError.patternSyntax
            }
            guard runs.count <= expectedGrid.cellCount else {
                throw CredentialError.patternTooLong(grid: expectedGrid.size)
            }
            index += 1
        }
        guard !current.isEmpty else { throw CredentialError.patternSyntax }
        runs.append(current)
        if let size = gridPrefix, size != expectedGrid.size {
            throw CredentialError.patternGridMismatch(expected: expectedGrid.size, got: size)
        }
        var cells: [Int]
        if runs.count == 1, runs[0].count > 1 {
            // "1596": one digit per cell, unambiguous only when every cell is one digit.
            guard expectedGrid.cellCount <= 9 else {
                throw CredentialError.patternDigitsNeedSeparators(grid: expectedGrid.size)
            }
            cells = runs[0]
        } else {
            cells = try runs.map { digits in
                // Three digits already name a cell outside any grid; more is noise.
                guard digits.count <= 3 else { throw CredentialError.patternSyntax }
                return digits.reduce(0) { $0 * 10 + $1 }
            }
        }
        guard cells.count <= expectedGrid.cellCount else { throw CredentialError.patternTooLong(grid: expectedGrid.size) }
        return cells
    }

    /// The canonical text `R:c1-c2-…`, the form that is hashed.
    public func canonicalText() -> SecretBytes {
        var text: [UInt8] = Array(String(grid.size).utf8) + [UInt8(ascii: ":")]
        defer { for index in text.indices { text[index] = 0 } }
        for index in 0..<cells.count {
            if index > 0 { text.append(UInt8(ascii: "-")) }
            text.append(contentsOf: String(cells[index]).utf8)
        }
        return SecretBytes(text)
    }

    /// The cells as plain integers (for drawing; callers must not keep them).
    public var cellNumbers: [Int] { (0..<cells.count).map { Int(cells[$0]) } }
}

