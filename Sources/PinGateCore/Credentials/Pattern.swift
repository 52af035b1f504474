/// A well-formed pattern: a path through distinct cells of an R×R grid,
/// already normalised by the gap rule, with at least the policy's minimum cells.
/// `~Copyable`, as the `Secret` that holds its cells.
public struct Pattern: ~Copyable, Sendable {
    public let grid: PatternGrid
    /// The cells in order, 1-based, each a byte; kept in a `Secret` so the
    /// path is wiped with the rest of the secret.
    public let cells: Secret

    /// Normalises `typedCells` on `grid`: each step from a to b first adds the
    /// unvisited cells on the segment between them (visited ones are crossed),
    /// then b, which must not have been visited.
    public init(grid: PatternGrid, typedCells: some Sequence<Int>, minimumCells: Int) throws {
        // The path grows in a Secret with room for every cell of the grid,
        // which no path exceeds, and becomes `cells` as it is: no copy.
        var path = Secret(capacity: grid.cellCount)
        for cell in typedCells {
            try grid.appendCells(taking: cell, to: &path)
        }
        guard path.count >= minimumCells else {
            throw CredentialError.patternTooShort(minimum: minimumCells, got: path.count)
        }
        self.grid = grid
        self.cells = path
    }

    /// The same from cells kept one byte each (a path drawn on a terminal
    /// pad), read in place.
    public init(grid: PatternGrid, drawnCells: borrowing Secret, minimumCells: Int) throws {
        self = try drawnCells.withUnsafeBytes { cells in
            try Pattern(grid: grid, typedCells: cells.lazy.map { Int($0) }, minimumCells: minimumCells)
        }
    }

    /// Parses typed text on a grid of `expectedGrid` cells per side:
    /// `1-5-9-6`, `1 5 9 6`, `1,5,9,6`, `1596` (only when R² ≤ 9), or the
    /// canonical `R:1-5-9-6` (whose R must match).
    public init(parsing input: borrowing Secret, expectedGrid: PatternGrid, minimumCells: Int) throws {
        let cells = try Pattern.typedCells(parsing: input, expectedGrid: expectedGrid)
        try self.init(grid: expectedGrid, drawnCells: cells, minimumCells: minimumCells)
    }

    /// The cell numbers of typed text, as written (before the gap rule), one
    /// byte each: the forms `init(parsing:)` takes. A terminal pad draws them
    /// as typed.
    public static func typedCells(parsing input: borrowing Secret, expectedGrid: PatternGrid) throws -> Secret {
        let text = input.trimmingWhitespace()
        guard !text.isEmpty else { throw CredentialError.empty }
        // Split into runs of digits; a run longer than 3 digits can only be the
        // one-digit-per-cell form, so keep the digits of each run. They are
        // kept in one Secret, each digit a byte of the text (so the text's
        // length is room enough), and each run ends where `runEnds` says: at
        // most one run per cell, plus the one that overflows. The ends are
        // positions, kept in scratch that never grows (SecretScratch.swift).
        var digits = Secret(capacity: text.count)
        var runEnds = [Int](secretScratchCapacity: expectedGrid.cellCount + 1)
        defer { runEnds.wipe() }
        var currentCount: Int { digits.count - (runEnds.last ?? 0) }
        var gridPrefix: Int? = nil
        // True after spaces closed a cell number: "1 - 5" then takes the "-"
        // as that cell's separator, not as a missing cell.
        var closedBySpace = false
        var index = 0
        while index < text.count {
            let byte = text[index]
            switch byte {
            case 0x30...0x39:
                guard currentCount < 64 else { throw CredentialError.patternSyntax }
                closedBySpace = false
                digits.append(byte - 0x30)
            case UInt8(ascii: ":"):
                guard gridPrefix == nil, runEnds.isEmpty, currentCount > 0, currentCount <= 2 else {
                    throw CredentialError.patternSyntax
                }
                // The grid size, not part of any run: dropped (and zeroed).
                gridPrefix = digits.withUnsafeBytes { $0.reduce(0) { $0 * 10 + Int($1) } }
                digits.removeAll()
            case UInt8(ascii: "-"), UInt8(ascii: ","):
                if currentCount > 0 {
                    runEnds.appendWithinCapacity(digits.count)
                } else if !closedBySpace {
                    throw CredentialError.patternSyntax
                }
                closedBySpace = false
            case UInt8(ascii: " "):
                if currentCount > 0 {
                    runEnds.appendWithinCapacity(digits.count)
                    closedBySpace = true
                }
            default:
                throw CredentialError.patternSyntax
            }
            guard runEnds.count <= expectedGrid.cellCount else {
                throw CredentialError.patternTooLong(grid: expectedGrid.size)
            }
            index += 1
        }
        guard currentCount > 0 else { throw CredentialError.patternSyntax }
        runEnds.appendWithinCapacity(digits.count)
        if let size = gridPrefix, size != expectedGrid.size {
            throw CredentialError.patternGridMismatch(expected: expectedGrid.size, got: size)
        }
        if runEnds.count == 1, digits.count > 1 {
            // "1596": one digit per cell, unambiguous only when every cell is one digit.
            guard expectedGrid.cellCount <= 9 else {
                throw CredentialError.patternDigitsNeedSeparators(grid: expectedGrid.size)
            }
            guard digits.count <= expectedGrid.cellCount else { throw CredentialError.patternTooLong(grid: expectedGrid.size) }
            return digits.extracting(0..<digits.count)  // a Secret too: `currentCount` keeps `digits` borrowed
        }
        // Three digits already name a cell outside any grid; more is noise.
        var start = 0
        for end in runEnds {
            guard end - start <= 3 else { throw CredentialError.patternSyntax }
            start = end
        }
        guard runEnds.count <= expectedGrid.cellCount else { throw CredentialError.patternTooLong(grid: expectedGrid.size) }
        var cells = Secret(capacity: runEnds.count)
        start = 0
        for end in runEnds {
            var cell = 0
            for index in start..<end { cell = cell * 10 + Int(digits[index]) }
            // Up to 999, past a byte: outside every grid, so refused here.
            guard cell <= Int(UInt8.max) else { throw CredentialError.patternCellOutsideGrid(cell: cell, grid: expectedGrid.size) }
            cells.append(UInt8(cell))
            cell = 0
            start = end
        }
        return cells
    }

    /// The canonical text `R:c1-c2-…`, the form that is hashed. Written
    /// straight into a `Secret` of its exact length (R is one digit, a
    /// cell one or two), so no growing buffer leaves a shorter copy behind.
    public func canonicalText() -> Secret {
        var length = 2 + max(cells.count - 1, 0)
        for index in 0..<cells.count { length += cells[index] < 10 ? 1 : 2 }
        return Secret(count: length) { text in
            text[0] = UInt8(ascii: "0") + UInt8(grid.size)
            text[1] = UInt8(ascii: ":")
            var offset = 2
            for index in 0..<cells.count {
                if index > 0 { text[offset] = UInt8(ascii: "-"); offset += 1 }
                let cell = cells[index]
                if cell >= 10 { text[offset] = UInt8(ascii: "0") + cell / 10; offset += 1 }
                text[offset] = UInt8(ascii: "0") + cell % 10
                offset += 1
            }
            precondition(offset == length, "canonical text length miscounted")
        }
    }
}

