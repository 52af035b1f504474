import PinGateCore

/// `pingate status [USER] [--json]`: a user's credential kind and lockout state.
///
/// JSON: one object, as documented on `StatusReport`:
///
///     {"user","uid","enrolled","kind","grid","failures","attempts_left",
///      "locked_seconds","locked_until","disabled","created","changed",
///      "last_failure","last_success","unseen_failures","unseen_since","error"}
struct StatusCommand: Command {
    static let name = "status"
    static var abstract: String { L("show a user's credential and lockout state") }
    static var discussion: String {
        HelpText.paragraph(L("Shows whether USER (default: yourself) has a PIN or a pattern, the failure count, any timeout or disable, and when the credential was created, changed, last failed and last succeeded. Never the hash. Root reads the store; other users may ask only about themselves, through %s, which does not report the times (null in JSON).", HelperClient.installedPath))
    }
    static var exitStatuses: String? {
        HelpText.paragraph(L("Exit status: 0 enrolled (locked or not); 3 another user's status; 4 no such user or not enrolled; 5 store or configuration error."))
    }

    struct Arguments: ArgumentGroup {
        let user = Positional.user(required: false)
        let json = JSONOption(help: L("one JSON object: user, uid, enrolled, kind (\"pin\", \"pattern\" or null), grid (null for a PIN), failures, attempts_left, locked_seconds, locked_until, disabled, created, changed, last_failure, last_success (Unix seconds or null), error"))
    }
    static let arguments = Arguments()

    let userName: String?
    let json: Bool
    let locations: Locations

    init(_ arguments: ParsedArguments) throws {
        userName = arguments[Self.arguments.user]
        json = arguments[Self.arguments.json.flag]
        locations = Locations(arguments)
    }

    func validate(caller: Caller) throws {
        try caller.requireSelfOrRoot(userName) { L("only root can see another user's status (try: sudo pingate status %s)", $0) }
    }

    func run(caller: Caller) throws -> ExitStatus {
        let user = try userName.map(lookUpUser) ?? caller.user()
        let report: StatusReport
        if caller.isRoot {
            report = try StatusCommand.report(uid: UInt32(user.uid), user: user.name,
                                              store: try locations.store(), policy: try locations.policy())
            if let error = report.error {
                // --json keeps its promise of one object, "error" set as in
                // `list --json`; the message and exit 5 follow either way.
                if json { Output.line(report.json.text) }
                throw CLIError(status: .storeOrConfig, message: error)
            }
        } else {
            // It tells of the failed attempts but never marks them seen: a job
            // of the user's could run it to hide them from the owner.
            let answer = try helperCall { () throws(HelperClientError) in try HelperClient().status(of: user.name) }
            report = try StatusReport(user: user.name, uid: UInt32(user.uid), helperAnswer: answer)
        }
        if json {
            Output.line(report.json.text)
        } else {
            report.lines.forEach(Output.line)
        }
        return report.enrolled ? .ok : .notFound
    }

    /// Root's reading of one record: its fields, and the lock as the verifier
    /// sees it. A store error is thrown; a record that cannot be read is
    /// reported in `error` (so `list` can go on with the others).
    static func report(uid: UInt32, user: String?, store: Store, policy: Policy) throws -> StatusReport {
        let record: UserRecord?
        do {
            record = try store.readRecord(uid: uid)
        } catch let error as StoreError {
            return try unreadableReport(uid: uid, user: user, error: error)
        }
        let lock = Verifier(store: store, policy: policy).status(uid: uid)
        return StatusReport(user: user, uid: uid, record: record, lock: lock, policy: policy)
    }

    /// The report of a record already read (by `Store.readRecords`, for
    /// `list`): the lock state comes from the record alone, with no more I/O.
    static func report(uid: UInt32, user: String?, reading result: Result<UserRecord?, StoreError>,
                       store: Store, policy: Policy) throws -> StatusReport {
        switch result {
        case let .failure(error):
            return try unreadableReport(uid: uid, user: user, error: error)
        case let .success(record):
            let lock = record.map { Verifier(store: store, policy: policy).status(of: $0) } ?? .notEnrolled
            return StatusReport(user: user, uid: uid, record: record, lock: lock, policy: policy)
        }
    }

    /// A record that exists but cannot be used is reported, not fatal;
    /// any other store problem is.
    private static func unreadableReport(uid: UInt32, user: String?, error: StoreError) throws -> StatusReport {
        guard error.concernsOneRecord else { throw CLIError.store(error) }
        var report = StatusReport(user: user, uid: uid)
        report.enrolled = true
        report.error = error.description
        return report
    }
}
