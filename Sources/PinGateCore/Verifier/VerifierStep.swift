/// The points of the verifier's order where a test may stop or kill it.
/// In production the hook is nil; the helper accepts one only in debug
/// builds and only from root (see pingate-verify's TestSeams.swift).
public enum VerifierStep: String, CaseIterable, Sendable {
    /// Record opened and checked, writer lock not yet taken.
    case opened
    /// Writer lock held, state read, not yet counted. (Not "locked": that
    /// word means a lockout everywhere else.)
    case lockHeld = "lock-held"
    /// The attempt is counted and on disk (fdatasync returned).
    case counted
    /// Writer lock released; the KDF is about to run.
    case released
    /// The KDF finished; its result is not yet acted on.
    case verified
    /// Success: the count is cleared and on disk; the answer is next.
    case cleared
}

public typealias VerifierFaultHook = @Sendable (VerifierStep) -> Void
