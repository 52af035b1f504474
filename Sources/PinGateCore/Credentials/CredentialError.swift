/// Why typed input is not a well-formed credential. The messages say what is
/// expected and never repeat the secret itself.
public enum CredentialError: Error, Equatable, CustomStringConvertible, Sendable {
    case pinHasNonDigit
    case pinLength(minimum: Int, maximum: Int, got: Int)
    case patternSyntax
    case patternCellOutsideGrid(cell: Int, grid: Int)
    case patternCellRepeated(cell: Int)
    case patternTooShort(minimum: Int, got: Int)
    case patternTooLong(grid: Int)
    case patternGridUnsupported(grid: Int)
    case patternGridMismatch(expected: Int, got: Int)
    case patternDigitsNeedSeparators(grid: Int)
    case empty
    /// A reason the helper gave in its `malformed` answer, read back as text.
    case reported(String)

    /// Whether no pingate.conf could make the input the user's credential:
    /// a cell outside the grid or used twice, more cells than the grid has,
    /// another grid, text no pattern is written as, not digits, nothing.
    /// Not so for a rule of pingate.conf as it is now (a PIN's length, a
    /// pattern's fewest cells), which the enrolled credential may predate,
    /// nor for a pattern's cells run together on a grid above 3×3 (1596
    /// for 1-5-9-6): such input may be the credential. (The helper's
    /// `malformed never`: a field that also takes the password hands it on.)
    public var rulesOutEveryCredential: Bool {
        switch self {
        case .pinHasNonDigit, .empty, .patternSyntax, .patternCellOutsideGrid, .patternCellRepeated, .patternTooLong,
             .patternGridMismatch, .patternGridUnsupported:
            return true
        case .pinLength, .patternTooShort, .patternDigitsNeedSeparators, .reported:
            return false
        }
    }

    public var description: String {
        switch self {
        case .pinHasNonDigit:
            return "a PIN has only the digits 0-9"
        case let .pinLength(minimum, maximum, got):
            let expected = minimum == maximum ? "\(minimum)" : "\(minimum) to \(maximum)"
            return "a PIN has \(expected) digits; got \(got)"
        case .patternSyntax:
            return "a pattern is a list of cell numbers such as 1-5-9-6"
        case let .patternCellOutsideGrid(cell, grid):
            return "cell \(cell) is outside a \(grid)×\(grid) grid (cells 1-\(grid * grid))"
        case let .patternCellRepeated(cell):
            return "cell \(cell) is used twice (a pattern passes through each cell once)"
        case let .patternTooShort(minimum, got):
            return "a pattern needs at least \(minimum) cells; got \(got)"
        case let .patternTooLong(grid):
            return "a pattern on a \(grid)×\(grid) grid has at most \(grid * grid) cells"
        case let .patternGridUnsupported(grid):
            return "a \(grid)×\(grid) grid is not supported (3 to 6)"
        case let .patternGridMismatch(expected, got):
            return "this pattern is for a \(got)×\(got) grid, but the credential uses \(expected)×\(expected)"
        case let .patternDigitsNeedSeparators(grid):
            return "on a \(grid)×\(grid) grid, separate the cells, e.g. 1-5-12-16"
        case .empty:
            return "nothing was entered"
        case let .reported(reason):
            return reason
        }
    }
}
