/// Why the store cannot be used. Each names the file and the problem and, where
/// there is one, the command that fixes it. The verifier fails closed on all.
public enum StoreError: Error, Equatable, CustomStringConvertible, Sendable {
    case directoryMissing(path: String)
    case directoryUnsafe(path: String, problem: String)
    case recordUnsafe(path: String, problem: String)
    case recordCorrupt(path: String)
    case recordForAnotherUser(path: String, uid: UInt32)
    case recordExists(path: String)
    /// Another process held the record's lock past `LockWait` (nil: unknown).
    case recordBusy(path: String, holder: LockHolder?)
    /// Root replaced the record under the verifier: again and again before the
    /// attempt was counted, or once while it was being verified.
    case recordReplaced(path: String, duringVerification: Bool)
    case keyMissing(path: String)
    case keyUnsafe(path: String, problem: String)
    case systemError(path: String, operation: String, errno: Errno)
    case groupMissing(name: String)

    public var description: String {
        switch self {
        case let .directoryMissing(path):
            return "store \(path) does not exist; run 'pingate doctor' or reinstall PinGate"
        case let .directoryUnsafe(path, problem):
            return "store \(path) \(problem); fix it (run 'pingate doctor') before PINs can be used"
        case let .recordUnsafe(path, problem):
            return "record \(path) \(problem); refusing to use it (fix it, or re-enrol with 'pingate enroll --force')"
        case let .recordCorrupt(path):
            return "record \(path) has no valid slot; re-enrol the user with 'pingate enroll --force'"
        case let .recordForAnotherUser(path, uid):
            return "record \(path) belongs to uid \(uid); refusing to use it"
        case let .recordExists(path):
            return "record \(path) already exists"
        case let .recordBusy(path, holder):
            let what = holder?.isStopped == true ? "kill it or try again" : "try again"
            return "record \(path) is busy: held by \(holder?.description ?? "another process"); \(what)"
        case let .recordReplaced(path, duringVerification):
            return "record \(path) \(duringVerification ? "was replaced during verification" : "keeps being replaced"); try again"
        case let .keyMissing(path):
            return "machine key \(path) is missing; run 'pingate doctor' (re-enrolment is needed after a new key)"
        case let .keyUnsafe(path, problem):
            return "machine key \(path) \(problem); refusing to use it"
        case let .systemError(path, operation, errno):
            return "cannot \(operation) \(path): \(errno)"
        case let .groupMissing(name):
            return "group '\(name)' does not exist; create it with 'groupadd --system \(name)'"
        }
    }
}
