import PinGateCore

/// What `pingate enable` and `pingate disable` say: one line per file
/// written (`  enabled    /etc/pam.d/sudo (…)`), warnings on stderr, the
/// diff with `--dry-run`, or one JSON object.
enum ServiceSwitchReport {
    /// The lines for one service's switch, on stdout.
    static func lines(_ change: PAMServiceSwitch, dryRun: Bool) -> [String] {
        if dryRun {
            // The backup is the file as it is now: its diff would only repeat it.
            return change.changes.filter { !$0.path.hasSuffix(PAMServiceSwitcher.backupSuffix) }
                .flatMap { TextDiff.unified(path: $0.path, before: $0.before, after: $0.after) }
        }
        var lines: [String] = []
        let file = change.file
        let backup = file + PAMServiceSwitcher.backupSuffix
        // A file made from another had nothing to back up: its backup only
        // keeps what was made, for `disable` to recognise.
        var madeFromAnother = false
        if case .created = change.outcome { madeFromAnother = true }
        if !madeFromAnother, change.changes.contains(where: { $0.path == backup && $0.before == nil }) {
            lines.append(row(L("backed up"), L("%s to %s", file, basename(backup))))
        }
        switch change.outcome {
        case let .created(source):
            lines.append(row(L("created"), L("%s (from %s, which libpam used for %s until now)", file, source, change.service)))
            lines.append(row(L("enabled"), L("%s (line: %s)", file, squeezed(change.line ?? ""))))
        case .enabled:
            lines.append(row(L("enabled"), L("%s (line: %s)", file, squeezed(change.line ?? ""))))
        case .alreadyOn(inCommonAuth: false):
            lines.append(row(L("unchanged"), L("%s (uses pam_pingate.so)", file)))
        case .alreadyOn(inCommonAuth: true):
            lines.append(row(L("unchanged"), L("%s (common-auth has pam_pingate.so: pam-auth-update enabled it everywhere)", file)))
        case .disabled:
            lines.append(row(L("disabled"), file))
        case .restored:
            lines.append(row(L("restored"), L("%s from %s", file, basename(backup))))
        case let .removed(source):
            lines.append(row(L("removed"), source.map { L("%s (made by pingate enable: libpam reads %s again)", file, $0) }
                                ?? L("%s (made by pingate enable)", file)))
        case .unchanged:
            lines.append(row(L("unchanged"), L("%s (no lines from pingate enable)", file)))
        case .missing:
            lines.append(row(L("unchanged"), L("%s (does not exist)", file)))
        }
        return lines
    }

    /// What `enable` and `disable` say of the services they switched along
    /// with the ones named (sudo-i with sudo), where that changed a file.
    static func companionLines(_ companions: [PAMServiceSwitch], enabled: Bool) -> [String] {
        companions.filter { !$0.changes.isEmpty }.map { change in
            let client = PAMClient.forService(change.service)
            let owner = PAMClient.known.first { $0.companions.contains(change.service) }?.service ?? change.service
            return enabled ? L("%s is the service of %s: enabled with %s, so that it offers the PIN too", change.service, client.name, owner)
                : L("%s is the service of %s: disabled with %s", change.service, client.name, owner)
        }
    }

    /// The warnings for one service's switch, each a line for stderr.
    static func warnings(_ change: PAMServiceSwitch) -> [String] {
        change.warnings.map { warning in
            let file = change.file, service = change.service
            switch warning {
            case .olderLockerUnixLine:
                return L("warning: %s has the pam_unix line an older install.sh added: a password there skips the rest of the stack, and nullok lets an empty password in. Run pingate disable %s, then pingate enable %s again.", file, service, service)
            case let .olderLine(wanted):
                return L("warning: %s has the PinGate line an older release wrote, not the one it needs now (%s). Run pingate disable %s, then pingate enable %s again.", file, wanted, service, service)
            case let .forcedPastGuards(guards):
                let named = guards.map { "\($0.name) (\($0.origin))" }.joined(separator: ", ")
                return L("warning: --force: a correct PIN in %s skips %s; a password still passes them all", file, named)
            case let .forcedPastJumps(origins):
                return L("warning: --force: the jumps of %s now count the PinGate line and land one rule earlier", origins.map(\.description).joined(separator: ", "))
            case let .changedSinceBackup(backup):
                return L("warning: %s changed since %s was made; kept both — compare them", file, backup)
            }
        }
    }

    /// Why a service was refused, as lines for stderr.
    static func refusal(_ refusal: PAMEnableRefusal, service: String) -> [String] {
        let file = PAMServiceSwitcher.file(of: service)
        switch refusal {
        case .unseenConversation:
            return [L("refusing to enable %s: no person ever sees its questions (it runs beside the conversation that has the field), so a PIN asked there would wait unseen", service)]
        case .noStackFile:
            return [L("%s does not exist, nor another file libpam would read for %s: is it installed? (nothing changed)", file, service)]
        case .noAuthLine:
            return [L("%s has no auth line: nothing to put the PIN in front of (nothing changed)", file)]
        case let .guards(guards):
            return [L("refusing to enable %s: a correct PIN would skip these auth modules of %s, which do more than check the password:", service, file)]
                + guards.map { "    " + Localization.padded($0.name, to: 28) + " " + $0.origin.description }
                + ["  " + L("A PIN may stand in for the password, never for a second factor, a lockout, a directory or an access check."),
                   "  " + L("Nothing was changed. To enable it anyway, so that a correct PIN skips them: pingate enable --force %s", service),
                   "  " + L("Or put pam_pingate.so by hand where it skips only the password (/usr/share/doc/pingate/README.md.gz, \"Wire a stack by hand\"; examples in /usr/share/doc/pingate/examples/pam.d).")]
        case let .crossingJumps(origins):
            return [L("refusing to enable %s: the jump of the rule at %s passes over the place the PinGate line would go, so that line would change where it lands", service, origins.map(\.description).joined(separator: ", ")),
                    "  " + L("Nothing was changed. Put pam_pingate.so by hand where no jump crosses it, or enable it anyway: pingate enable --force %s", service)]
        }
    }

    static func json(_ changes: [PAMServiceSwitch], refused: [(String, PAMEnableRefusal)], dryRun: Bool) -> JSON {
        .object([
            ("dry_run", .bool(dryRun)),
            ("services", .array(changes.map(json))),
            ("refused", .array(refused.map { service, refusal in json(refusal, service: service) })),
        ])
    }

    private static func json(_ change: PAMServiceSwitch) -> JSON {
        var source: String? = nil
        let outcome: String
        switch change.outcome {
        case let .created(from): outcome = "created"; source = from
        case .enabled: outcome = "enabled"
        case .alreadyOn(inCommonAuth: false): outcome = "already-enabled"
        case .alreadyOn(inCommonAuth: true): outcome = "enabled-in-common-auth"
        case .disabled: outcome = "disabled"
        case .restored: outcome = "restored"
        case let .removed(from): outcome = "removed"; source = from
        case .unchanged: outcome = "unchanged"
        case .missing: outcome = "missing"
        }
        return .object([
            ("service", .string(change.service)),
            ("file", .string(change.file)),
            ("outcome", .string(outcome)),
            ("source", .optional(source)),
            ("line", .optional(change.line)),
            ("files", .array(change.changes.map { file in
                .object([("path", .string(file.path)),
                         ("action", .string(file.after == nil ? "remove" : file.before == nil ? "create" : "write"))])
            })),
            ("warnings", .array(warnings(change).map(JSON.string))),
        ])
    }

    private static func json(_ refusal: PAMEnableRefusal, service: String) -> JSON {
        let reason: String
        var guards: [PAMGuard] = [], jumps: [PAMOrigin] = []
        switch refusal {
        case .unseenConversation: reason = "unseen-conversation"
        case .noStackFile: reason = "no-stack-file"
        case .noAuthLine: reason = "no-auth-line"
        case let .guards(found): reason = "guards"; guards = found
        case let .crossingJumps(found): reason = "crossing-jumps"; jumps = found
        }
        return .object([
            ("service", .string(service)),
            ("reason", .string(reason)),
            ("guards", .array(guards.map { .object([("module", .string($0.name)), ("where", .string($0.origin.description))]) })),
            ("jumps", .array(jumps.map { .string($0.description) })),
        ])
    }

    private static func row(_ label: String, _ text: String) -> String {
        "  " + Localization.padded(label, to: 10) + " " + text
    }

    private static func basename(_ path: String) -> String { String(path.split(separator: "/").last ?? "") }

    /// A stack line with its runs of spaces made one, as a sentence shows it.
    private static func squeezed(_ line: String) -> String {
        line.split(separator: " ").joined(separator: " ")
    }
}
