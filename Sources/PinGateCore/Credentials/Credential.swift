/// The two kinds of secret a user may enrol; the raw value is stored in records
/// and mixed into the pre-hash so a PIN can never verify as a pattern.
public enum CredentialKind: UInt8, Sendable, CustomStringConvertible {
    case pin = 1
    case pattern = 2

    public var description: String { self == .pin ? "pin" : "pattern" }

    public init?(name: String) {
        switch name {
        case "pin": self = .pin
        case "pattern": self = .pattern
        default: return nil
        }
    }
}

/// A user's secret, parsed and normalised: exactly one of a PIN or a pattern.
public enum Credential: Sendable {
    case pin(PIN)
    case pattern(Pattern)

    public var kind: CredentialKind {
        switch self {
        case .pin: return .pin
        case .pattern: return .pattern
        }
    }

    /// The grid size of a pattern, 0 for a PIN (as stored in records).
    public var gridSize: Int {
        if case let .pattern(pattern) = self { return pattern.grid.size }
        return 0
    }

    /// The number of digits of a PIN, 0 for a pattern (as stored in records,
    /// so a PIN pad can show one empty dot per digit).
    public var pinLength: Int {
        if case let .pin(pin) = self { return pin.length }
        return 0
    }

    /// Why this is too easy to guess as a new credential (a PIN's weakness;
    /// patterns have none), or nil. Enrolment and change refuse it unless
    /// root allows weak ones; verification never asks.
    public func weakness() -> WeakPINReason? {
        if case let .pin(pin) = self { return pin.weakness() }
        return nil
    }

    /// The bytes that are hashed: the PIN's digits, or the pattern's `R:c1-c2-…`.
    public func canonicalBytes() -> Secret {
        switch self {
        case let .pin(pin): return Secret(copying: (0..<pin.digits.count).lazy.map { pin.digits[$0] })
        case let .pattern(pattern): return pattern.canonicalText()
        }
    }

    /// Parses typed input as a credential of `kind` (on a grid of `gridSize` for
    /// a pattern) under `policy`. Throws `CredentialError` for malformed input.
    public init(parsing input: borrowing Secret, kind: CredentialKind, gridSize: Int, policy: Policy) throws {
        switch kind {
        case .pin:
            self = .pin(try PIN(parsing: input, policy: policy))
        case .pattern:
            let grid = try PatternGrid(size: gridSize)
            self = .pattern(try Pattern(parsing: input, expectedGrid: grid, minimumCells: policy.patternMinCells))
        }
    }
}
