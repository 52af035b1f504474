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
/// `~Copyable`, as the `Secret` each holds: lent to the hasher, never copied.
public enum Credential: ~Copyable, Sendable {
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
        switch self {
        case let .pattern(pattern): return pattern.grid.size
        case .pin: return 0
        }
    }

    /// The number of digits of a PIN, 0 for a pattern (as stored in records,
    /// so a PIN pad can show one empty dot per digit).
    public var pinLength: Int {
        switch self {
        case let .pin(pin): return pin.length
        case .pattern: return 0
        }
    }

    /// What a record keeps of it besides the hash, read in one look (three
    /// reads in a row crashed swift-frontend 6.3's -O jump threading).
    public var recordShape: (kind: CredentialKind, gridSize: Int, pinLength: Int) {
        switch self {
        case let .pin(pin): return (.pin, 0, pin.length)
        case let .pattern(pattern): return (.pattern, pattern.grid.size, 0)
        }
    }

    /// Why this is too easy to guess as a new credential (a PIN's weakness;
    /// patterns have none), or nil. Enrolment and change refuse it unless
    /// root allows weak ones; verification never asks.
    public func weakness() -> WeakPINReason? {
        switch self {
        case let .pin(pin): return pin.weakness()
        case .pattern: return nil
        }
    }

    /// Lends `body` the bytes that are hashed: the PIN's digits where they
    /// are, or the pattern's `R:c1-c2-…`, written for the loan and wiped after.
    public func withCanonicalBytes<Result: ~Copyable>(_ body: (borrowing Secret) throws -> Result) rethrows -> Result {
        switch self {
        case let .pin(pin): return try body(pin.digits)
        case let .pattern(pattern): return try body(pattern.canonicalText())
        }
    }

    /// Whether `other` is the same credential (kind and canonical bytes), in
    /// constant time for equal lengths.
    public func constantTimeEquals(_ other: borrowing Credential) -> Bool {
        guard kind == other.kind else { return false }
        return withCanonicalBytes { mine in other.withCanonicalBytes { mine.constantTimeEquals($0) } }
    }

    /// The bytes that are hashed, handed on: a PIN gives its digits up (no
    /// copy), a pattern its canonical text. For a request that carries them.
    public consuming func canonicalSecret() -> Secret {
        switch consume self {
        case let .pin(pin): return pin.digits
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
