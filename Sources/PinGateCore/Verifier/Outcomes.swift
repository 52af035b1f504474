/// What a status request learns about a user.
public enum StatusOutcome: Equatable, Sendable {
    /// `pinLength` is 0 for a pattern, and for a PIN enrolled before lengths were recorded.
    case enrolled(kind: CredentialKind, gridSize: Int, pinLength: Int, failures: Int)
    case locked(seconds: Int64, failures: Int)
    case disabled(failures: Int)
    case notEnrolled
    case storeError(String)
}

/// The answer to a verification (or a change, which verifies first).
/// Only `.ok` is success; every other case is a refusal.
public enum VerifyOutcome: Equatable, Sendable {
    case ok
    /// The attempt was counted; `attemptsLeft` before the next timeout,
    /// `lockedSeconds` if this failure started one, `disabled` if it disabled.
    case wrong(failures: Int, attemptsLeft: Int, lockedSeconds: Int64, disabled: Bool)
    /// Refused without verifying or counting: a timeout is in force.
    case locked(seconds: Int64, failures: Int)
    /// Refused without verifying or counting: disabled until `pingate unlock`.
    case disabled(failures: Int)
    case notEnrolled
    /// Not a well-formed credential: refused without verifying or counting.
    case malformed(CredentialError)
    /// The store or configuration is unusable: fail closed.
    case storeError(String)
}
