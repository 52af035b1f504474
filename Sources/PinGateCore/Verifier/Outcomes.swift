/// What a status request learns about a user.
public enum StatusOutcome: Equatable, Sendable {
    /// `pinLength` is 0 for a pattern, and for a PIN enrolled before lengths were recorded.
    case enrolled(kind: CredentialKind, gridSize: Int, pinLength: Int, failures: Int)
    case locked(seconds: Int64, failures: Int)
    case disabled(failures: Int)
    case notEnrolled
    /// The caller is not a person at this machine (LocalityRule): no PIN, nothing counted.
    case notLocal(String)
    /// The request's PAM service is not in pingate.conf's `services`: no PIN there.
    case notOffered(service: String)
    /// A display manager's login with no session of the user yet
    /// (`FirstSignInRule`): the first sign-in takes the password.
    case passwordFirst(String)
    case storeError(FailClosedError)
}

/// The answer to a verification (or a change, which verifies first).
/// Only `.ok` is success; every other case is a refusal.
public enum VerifyOutcome: Equatable, Sendable {
    case ok
    /// The attempt was counted; `attemptsLeft` before the next timeout,
    /// `lockedSeconds` if this failure started one, `disabled` if it disabled.
    case wrong(failures: Int, attemptsLeft: Int, lockedSeconds: Int64, disabled: Bool)
    /// The credential verified wrong last time, again: wrong, and not counted
    /// a second time (on the wire `wrong … repeated`, the count unchanged).
    case repeatedWrong(failures: Int, attemptsLeft: Int)
    /// Refused without verifying or counting: a timeout is in force.
    case locked(seconds: Int64, failures: Int)
    /// Refused without verifying or counting: disabled until `pingate unlock`.
    case disabled(failures: Int)
    case notEnrolled
    /// The caller is not a person at this machine: nothing verified or counted.
    case notLocal(String)
    /// Not offered to the request's PAM service: nothing verified or counted.
    case notOffered(service: String)
    /// The first sign-in of a boot takes the password: nothing verified or counted.
    case passwordFirst(String)
    /// Not a well-formed credential: refused without verifying or counting.
    case malformed(CredentialError)
    /// The store, the key, the KDF or the configuration is unusable: fail closed.
    case storeError(FailClosedError)
}

/// Failed attempts the owner has not been told of: cleared by a success (or
/// an admin) since the owner last saw them. Shown once, where messages are
/// shown, then gone: "2 failed PIN attempts since your last PIN sign-in,
/// the first at 14:02".
public struct FailureNotice: Equatable, Sendable {
    public let failures: Int
    /// Wall-clock time (Unix seconds) of the first of them; 0 if unknown.
    public let firstAt: Int64

    public init(failures: Int, firstAt: Int64) {
        self.failures = failures
        self.firstAt = firstAt
    }
}

/// Why a status or an attempt failed closed. The verifier keeps the error's
/// type (a store problem, a KDF that could not run); an answer decoded from
/// the helper has only its text. Either way the wire carries the description
/// (`error MESSAGE`, exit 6).
public enum FailClosedError: Error, Equatable, Sendable, CustomStringConvertible {
    case store(StoreError)
    case hashing(HashingError)
    /// Text only: decoded from a helper's answer, or an error of no known type.
    case message(String)

    /// Keeps the type of the errors the store and the hasher throw.
    public init(_ error: any Error) {
        switch error {
        case let error as FailClosedError: self = error
        case let error as StoreError: self = .store(error)
        case let error as HashingError: self = .hashing(error)
        default: self = .message(String(describing: error))
        }
    }

    public var description: String {
        switch self {
        case let .store(error): return error.description
        case let .hashing(error): return error.description
        case let .message(text): return text
        }
    }
}
