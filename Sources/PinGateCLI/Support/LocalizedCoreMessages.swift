import PinGateCore

// PinGateCore speaks English (its messages also go to syslog and to the PAM
// module through the helper); the CLI shows people these translations.

extension CredentialError {
    /// `description`, in the user's language.
    var localized: String {
        switch self {
        case .pinHasNonDigit:
            return L("a PIN has only the digits 0-9")
        case let .pinLength(minimum, maximum, got):
            return minimum == maximum
                ? L("a PIN has %d digits; got %d", minimum, got)
                : L("a PIN has %d to %d digits; got %d", minimum, maximum, got)
        case .patternSyntax:
            return L("a pattern is a list of cell numbers such as 1-5-9-6")
        case let .patternCellOutsideGrid(cell, grid):
            return L("cell %d is outside a %d×%d grid (cells 1-%d)", cell, grid, grid, grid * grid)
        case let .patternCellRepeated(cell):
            return L("cell %d is used twice (a pattern passes through each cell once)", cell)
        case let .patternTooShort(minimum, got):
            return L("a pattern needs at least %d cells; got %d", minimum, got)
        case let .patternTooLong(grid):
            return L("a pattern on a %d×%d grid has at most %d cells", grid, grid, grid * grid)
        case let .patternGridUnsupported(grid):
            return L("a %d×%d grid is not supported (3 to 6)", grid, grid)
        case let .patternGridMismatch(expected, got):
            return L("this pattern is for a %d×%d grid, but the credential uses %d×%d", got, got, expected, expected)
        case let .patternDigitsNeedSeparators(grid):
            return L("on a %d×%d grid, separate the cells, e.g. 1-5-12-16", grid, grid)
        case .empty:
            return L("nothing was entered")
        case let .reported(reason):
            return reason  // the helper's words, as it sent them
        }
    }
}

extension WeakPINReason {
    /// `description`, in the user's language.
    var localized: String {
        switch self {
        case .repeatedDigit: return L("it repeats one digit")
        case .constantStep: return L("its digits go up or down by a constant step (like 1234 or 1357)")
        case .common: return L("it is one of the most common PINs")
        }
    }
}

extension StoreError {
    /// `description`, in the user's language where the CLI has a translation:
    /// a busy record, which an admin meets and must act on. The rest stay as
    /// PinGateCore wrote them.
    var localized: String {
        guard case let .recordBusy(path, holder) = self else { return description }
        guard let holder, let processID = holder.processID else {
            return L("record %s is busy: held by another process; try again", path)
        }
        let command = holder.command ?? "?"
        return holder.isStopped
            ? L("record %s is busy: held by process %d (%s), stopped; kill it or try again", path, processID, command)
            : L("record %s is busy: held by process %d (%s); try again", path, processID, command)
    }
}
