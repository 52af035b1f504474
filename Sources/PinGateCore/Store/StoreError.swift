/// Why the store cannot be used. Each names the file and the problem and, where
/// there is one, the command that fixes it. The verifier fails closed on all.
public enum StoreError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The directory, the key or a record breaks its rule (`StoreRules.swift`).
    case unsafe(StoreProblem)
    case recordCorrupt(path: String)
    case recordForAnotherUser(path: String, uid: UInt32)
    case recordExists(path: String)
    /// The record was made for another account than the one its uid has now
    /// (nil: none; `enrolledFor` nil: migrated while its uid had none).
    case recordAccountChanged(path: String, uid: UInt32, enrolledFor: String?, now: String?)
    /// A record of format 1, which names no account: root's migration binds it.
    case recordNotMigrated(path: String, uid: UInt32)
    /// The user database could not say who `uid` is (nil path: at enrolment).
    case accountUnknown(uid: UInt32, path: String?)
    case accountNameTooLong(name: String, limit: Int)
    /// Another process held the record's lock past `LockWait` (nil: unknown).
    case recordBusy(path: String, holder: LockHolder?)
    /// Root replaced the record under the verifier: again and again before the
    /// attempt was counted, or once while it was being verified.
    case recordReplaced(path: String, duringVerification: Bool)
    case systemError(path: String, operation: String, errno: Errno)
    case groupMissing(name: String)
    /// The key is sealed by the TPM and not loaded this boot (`pingate key
    /// load`): `reason` is what the last load recorded, nil if none ran.
    case keyNotLoaded(sealedPath: String, reason: String?)
    case sealedKeyDamaged(path: String)
    /// RLIMIT_MEMLOCK (a user running the setgid helper sets it) refused the
    /// page the machine key would be read onto (`MachineKeyPage`).
    case keyNotLockedInRAM(path: String)

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
        case let .recordAccountChanged(path, uid, enrolledFor, now):
            let was = enrolledFor.map { "was enrolled for \($0)" } ?? "had no account when it was migrated"
            guard let now else {
                return "record \(path) \(was), and no account has uid \(uid) now: refusing it, or an account given uid \(uid) later would take its PIN or pattern (fix: pingate remove \(uid))"
            }
            return "record \(path) \(was), but uid \(uid) is \(now) now: refusing it, its PIN or pattern is not \(now)'s (fix: pingate remove \(now), then enrol \(now) anew)"
        case let .recordNotMigrated(path, uid):
            return "record \(path) is of format 1 and names no account: refusing it until root runs 'pingate init --upgrade', which binds it to the account uid \(uid) has"
        case let .accountUnknown(uid, path):
            let record = path.map { "record \($0) is refused until it answers" } ?? "nothing is enrolled"
            return "cannot tell which account has uid \(uid): the user database did not answer; \(record)"
        case let .accountNameTooLong(name, limit):
            return "the account name '\(name)' is longer than the \(limit) bytes a record holds; a PIN or pattern cannot be enrolled for it"
        case let .recordBusy(path, holder):
            let what = holder?.isStopped == true ? "kill it or try again" : "try again"
            return "record \(path) is busy: held by \(holder?.description ?? "another process"); \(what)"
        case let .recordReplaced(path, duringVerification):
            return "record \(path) \(duringVerification ? "was replaced during verification" : "keeps being replaced"); try again"
        case let .systemError(path, operation, errno):
            return "cannot \(operation) \(path): \(errno)"
        case let .groupMissing(name):
            return "group '\(name)' does not exist; create it with 'groupadd --system \(name)'"
        case let .sealedKeyDamaged(path):
            return "sealed machine key \(path) is damaged; restore it from a backup, or move it away and re-enrol every user"
        case let .keyNotLockedInRAM(path):
            return "the machine key \(path) is not read: RLIMIT_MEMLOCK leaves no room to lock its page in RAM, and it must never reach swap; no PIN here, the password works (raise the limit: ulimit -l)"
        case let .keyNotLoaded(sealedPath, reason):
            let why = reason.map { "the last load failed (\($0))" } ?? "no load has run since boot"
            return "the machine key is sealed by the TPM (\(sealedPath)) and not loaded: \(why); run 'pingate key load' ('pingate doctor' names the cause)"
        }
    }

    /// True when the error is about one record only: the rest of the store
    /// is usable (other users, a listing).
    public var concernsOneRecord: Bool {
        switch self {
        case let .unsafe(problem): if case .record = problem.object { return true } else { return false }
        case .recordCorrupt, .recordForAnotherUser, .recordAccountChanged, .recordNotMigrated: return true
        case .accountUnknown(_, let path): return path != nil
        default: return false
        }
    }
}
