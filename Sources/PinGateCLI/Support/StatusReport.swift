import PinGateCore

/// What `status` and `list` say about one user. Never holds the hash.
///
/// JSON (one object; `list --json` prints an array of them):
///
///     {"user": "alice" | null, "uid": 1000, "enrolled": true,
///      "kind": "pin" | "pattern" | null, "grid": 3 | null,
///      "failures": 0, "attempts_left": 4 | null,
///      "locked_seconds": 0, "locked_until": 1700000000 | null,
///      "disabled": false,
///      "created": 1700000000 | null, "changed": ... | null,
///      "last_failure": ... | null, "last_success": ... | null,
///      "unseen_failures": 0, "unseen_since": ... | null,
///      "error": "message" | null}
///
/// Times are Unix seconds, null for "never" or "not known": a non-root caller
/// asks the helper, which answers kind, grid, failures, the lock and the
/// unseen failures only. `unseen_failures`: failed attempts cleared by a
/// success or an admin that the owner has not been told of (the notice).
struct StatusReport {
    var user: String?
    var uid: UInt32
    var enrolled = false
    var kind: CredentialKind? = nil
    var grid: Int? = nil
    var failures = 0
    var attemptsLeft: Int? = nil
    var lockedSeconds: Int64 = 0
    var disabled = false
    var created: Int64 = 0
    var changed: Int64 = 0
    var lastFailure: Int64 = 0
    var lastSuccess: Int64 = 0
    var notice: FailureNotice? = nil
    var error: String? = nil
    let now: Int64

    init(user: String?, uid: UInt32, now: Int64 = SystemClock().now()) {
        self.user = user
        self.uid = uid
        self.now = now
    }

    /// Root's view: the record itself plus the verifier's reading of the lockout.
    init(user: String?, uid: UInt32, record: UserRecord?, lock: StatusOutcome, policy: Policy, now: Int64 = SystemClock().now()) {
        self.init(user: user, uid: uid, now: now)
        guard let record else { return }
        enrolled = true
        kind = record.kind
        grid = record.kind == .pattern ? record.gridSize : nil
        failures = record.failures
        created = record.createdAt
        changed = record.changedAt
        lastFailure = record.lastFailure
        lastSuccess = record.lastSuccess
        notice = record.noticeBeforeAttempt
        apply(lock, policy: policy)
    }

    /// The helper's view (a non-root caller's own status).
    init(user: String, uid: UInt32, helperAnswer answer: DecodedAnswer) throws {
        self.init(user: user, uid: uid)
        let status = answer.statusOutcome
        switch status {
        case .notEnrolled:
            return
        case let .storeError(message):
            throw CLIError(status: .storeOrConfig, message: message.description)
        case .notLocal, .notOffered, .passwordFirst:
            throw status.refusal(kind: nil, user: user)!
        case let .enrolled(_, _, _, count), let .locked(_, count), let .disabled(count):
            enrolled = true
            kind = answer.kind
            grid = answer.kind == .pattern ? answer.gridSize : nil
            failures = count
            notice = answer.notice
            if case let .locked(seconds, _) = status { lockedSeconds = seconds }
            if case .disabled = status { disabled = true }
        }
    }

    mutating func apply(_ lock: StatusOutcome, policy: Policy) {
        switch lock {
        case let .locked(seconds, _): lockedSeconds = seconds
        case .disabled: disabled = true
        case let .storeError(message): error = message.description
        case .enrolled, .notEnrolled, .notLocal, .notOffered, .passwordFirst: break
        }
        if !disabled, lockedSeconds == 0 { attemptsLeft = policy.lockout.attemptsLeft(afterFailures: failures) }
    }

    var name: String { user ?? L("uid %d", uid) }

    var json: JSON {
        .object([
            ("user", .optional(user)), ("uid", .int(Int64(uid))), ("enrolled", .bool(enrolled)),
            ("kind", .optional(kind?.description)), ("grid", grid.map { .int($0) } ?? .null),
            ("failures", .int(failures)), ("attempts_left", attemptsLeft.map { .int($0) } ?? .null),
            ("locked_seconds", .int(lockedSeconds)),
            ("locked_until", lockedSeconds > 0 ? .int(now + lockedSeconds) : .null),
            ("disabled", .bool(disabled)),
            ("created", .time(created)), ("changed", .time(changed)),
            ("last_failure", .time(lastFailure)), ("last_success", .time(lastSuccess)),
            ("unseen_failures", .int(notice?.failures ?? 0)), ("unseen_since", .time(notice?.firstAt ?? 0)),
            ("error", .optional(error)),
        ])
    }

    var kindText: String {
        guard let kind else { return enrolled ? L("enrolled") : "-" }
        return kind == .pattern ? L("pattern %d×%d", grid ?? 3, grid ?? 3) : L("PIN")
    }

    var stateText: String {
        if error != nil { return L("error") }
        if !enrolled { return L("not enrolled") }
        if disabled { return L("disabled") }
        if lockedSeconds > 0 { return L("locked %s", Output.duration(lockedSeconds)) }
        return L("active")
    }

    /// The human-readable form of `status`: labels padded by display width,
    /// so the values line up in every language.
    var lines: [String] {
        guard enrolled else { return [L("%s (uid %d): no PIN or pattern enrolled; an administrator can enrol one: sudo pingate enroll %s", name, uid, name)] }
        var lines = [L("%s (uid %d): %s, %s", name, uid, kindText, stateText)]
        var fields: [(String, String)] = []
        if let error {
            fields.append((L("error:"), error))
        } else {
            let failureText = attemptsLeft.map { L("%d (%d left before a timeout)", failures, $0) } ?? String(failures)
            fields.append((L("failures:"), failureText))
            if lockedSeconds > 0 {
                fields.append((L("locked until:"), L("%s (%s from now)", Output.time(now + lockedSeconds), Output.duration(lockedSeconds))))
            }
            if disabled { fields.append((L("disabled:"), L("yes — root can run 'pingate unlock %s'", name))) }
            if let notice, let kind { fields.append((L("not yet told:"), notice.text(kind: kind))) }
            if created > 0 || changed > 0 || lastFailure > 0 || lastSuccess > 0 {
                fields.append((L("created:"), Output.time(created)))
                fields.append((L("changed:"), Output.time(changed)))
                fields.append((L("last failure:"), Output.time(lastFailure)))
                fields.append((L("last success:"), Output.time(lastSuccess)))
            }
        }
        let width = fields.map { Localization.displayWidth($0.0) }.max() ?? 0
        for (label, value) in fields {
            lines.append("  " + Localization.padded(label, to: width) + " " + value)
        }
        return lines
    }
}
