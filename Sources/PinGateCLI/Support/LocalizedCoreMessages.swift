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

extension ConfigError {
    /// `description`, in the user's language.
    var localized: String {
        line > 0 ? "\(path):\(line): \(problem.localized)" : "\(path): \(problem.localized)"
    }
}

extension ConfigProblem {
    /// `description`, in the user's language.
    var localized: String {
        switch self {
        case let .notKeyValue(got): return L("expected 'key = value', got '%s'", got)
        case let .setTwice(key, firstLine): return L("'%s' is already set on line %d", key, firstLine)
        case let .unknownKey(key, suggestions):
            switch suggestions.count {
            case 0: return L("unknown key '%s'", key)
            case 1: return L("unknown key '%s' (did you mean '%s'?)", key, suggestions[0])
            case 2: return L("unknown key '%s' (did you mean '%s' or '%s'?)", key, suggestions[0], suggestions[1])
            default: return L("unknown key '%s' (did you mean one of: %s?)", key, suggestions.joined(separator: ", "))
            }
        case .lockoutTimeouts: return L("lockout_timeouts needs 1 to 32 durations, e.g. '1m 5m 15m 30m 90m'")
        case let .yesOrNo(key): return L("%s is yes or no", key)
        case .tpmTCTI: return L("tpm_tcti is a TCTI like 'device:/dev/tpmrm0' or 'swtpm:host=127.0.0.1,port=2321'")
        case let .pinLengths(minimum, maximum): return L("pin_min_length (%d) is larger than pin_max_length (%d)", minimum, maximum)
        case let .failureCounts(maximum, free): return L("max_failures (%d) must be larger than free_failures (%d)", maximum, free)
        case let .patternCells(minimum, grid): return L("pattern_min_cells (%d) exceeds the cells of a %d×%d grid", minimum, grid, grid)
        case let .wholeNumber(key, lowest, highest, got): return L("%s must be a whole number from %d to %d, got '%s'", key, lowest, highest, got)
        case let .serviceNames(key): return L("%s is a list of PAM service names (ASCII letters, digits, '-', '_' and '.') separated by spaces", key)
        case let .duration(key, got): return L("%s: '%s' is not a duration like 30s, 5m or 2h", key, got)
        case let .size(key, got): return L("%s must be a size from 8K to 4G, like 64M, got '%s'", key, got)
        case let .unreadable(reason): return L("cannot read: %s", reason)
        }
    }
}
