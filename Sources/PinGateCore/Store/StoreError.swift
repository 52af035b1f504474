/// Why the store cannot be used. Each names the file and the problem and, where
/// there is one, the command that fixes it. The verifier fails closed on all.
public enum StoreError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The directory, the key or a record breaks its rule (`StoreRules.swift`).
    case unsafe(StoreProblem)
    case recordCorrupt(path: String)
    case recordForAnotherUser(path: String, uid: UInt32)
    case recordExists(path: String)
    /// Another process held the record's lock past `LockWait` (nil: unknown).
    case recordBusy(path: String, holder: LockHolder?)
    /// Root replaced the record under the verifier: again and again before the
    /// attempt was counted, or once while it was being verified.
    case recordReplaced(path: String, duringVerification: Bool)
    case systemError(path: String, operation: String, errno: Errno)
    case groupMissing(name: String)

    public var description: String {
        switch self {
        case let .unsafe(problem):
            return "\(problem); refusing to use it (fix: \(problem.fix))"
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
        case let .systemError(path, operation, errno):
            return "cannot \(operation) \(path): \(errno)"
        case let .groupMissing(name):
            return "group '\(name)' does not exist; create it with 'groupadd --system \(name)'"
        }
    }

    /// True when the error is about one record only: the rest of the store
    /// is usable (other users, a listing).
    public var concernsOneRecord: Bool {
        switch self {
        case let .unsafe(problem): if case .record = problem.object { return true } else { return false }
        case .recordCorrupt, .recordForAnotherUser: return true
        default: return false
        }
    }
}
