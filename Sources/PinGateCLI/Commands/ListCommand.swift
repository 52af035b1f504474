import PinGateCore

/// `pingate list [--json]`: every enrolled user, one line each.
///
/// JSON: an array of the objects `status --json` prints (see `StatusReport`),
/// in ascending uid order; a record that cannot be read has "error" set.
struct ListCommand: Command {
    static let name = "list"
    static var abstract: String { L("list enrolled users (root)") }
    static var discussion: String {
        HelpText.paragraph(L("Lists every user with a record in the store: name, uid, kind, failures and state (active, locked, disabled, or error for a record that cannot be read — 'pingate doctor' says how to fix it)."))
    }
    static var exitStatuses: String? {
        HelpText.paragraph(L("Exit status: 0 listed (even if empty); 3 not root; 5 store or configuration error, or an unreadable record."))
    }
    static let requiresRoot = true

    struct Arguments: ArgumentGroup {
        let json = JSONOption(help: L("an array of the objects 'pingate status --json' prints"))
    }
    static let arguments = Arguments()

    let json: Bool
    let locations: Locations

    init(_ arguments: ParsedArguments) throws {
        json = arguments[Self.arguments.json.flag]
        locations = Locations(arguments)
    }

    func run(caller: Caller) throws -> ExitStatus {
        let store = try locations.store()
        let policy = try locations.policy()
        let uids = try storeCall { try store.enrolledUIDs() }
        let names = SystemUser.names(forUIDs: uids)
        let records = try storeCall { try store.readRecords(uids: uids) }
        let reports = try records.map { uid, result in
            try StatusCommand.report(uid: uid, user: names[uid], reading: result, store: store, policy: policy)
        }
        if json {
            Output.line(JSON.array(reports.map(\.json)).text)
        } else if reports.isEmpty {
            Output.line(L("no users are enrolled"))
        } else {
            let header = [L("USER"), L("UID"), L("KIND"), L("FAILURES"), L("STATE")]
            let rows = [header] + reports.map { report in
                [report.user ?? "-", String(report.uid), report.kindText, String(report.failures), report.stateText]
            }
            // Columns by display width: a translated header may be CJK, two columns a character.
            let widths = (0..<5).map { column in rows.map { Localization.displayWidth($0[column]) }.max() ?? 0 }
            for row in rows {
                Output.line(zip(row, widths).map { Localization.padded($0, to: $1) }
                    .joined(separator: "  ").trimmingTrailingSpaces())
            }
        }
        for report in reports where report.error != nil {
            Output.error(report.error ?? "")
        }
        return reports.contains { $0.error != nil } ? .storeOrConfig : .ok
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
