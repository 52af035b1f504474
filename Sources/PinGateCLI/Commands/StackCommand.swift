import PinGateCore

/// `pingate stack SERVICE [--root DIR] [--json]`: a PAM service's auth stack
/// as the installed libpam reads it (`PAMStackReader`), and what
/// `pingate enable` needs from it (`PAMEnableFacts`): and `pingate enable` acts on.
///
/// Text, `key = value` lines under a comment; the keys and values are the
/// same in every language:
///
///     # the auth stack of sudo as libpam reads it: /etc/pam.d/sudo
///     rule = /etc/pam.d/sudo:11 sufficient pam_pingate.so
///     rule = /etc/pam.d/common-auth:17 [success=1 default=ignore] pam_unix.so nullok
///     pingate_rule = /etc/pam.d/sudo:11
///     insert_before = 11
///     guard = pam_u2f /etc/pam.d/sudo:14
///     enable_line = auth       sufficient pam_pingate.so
///     create_from_other = yes          (only for a client such as kde)
///
/// JSON (`--json`), one object:
///
///     {"service","file","from_other","failure","rules":[{"where","level",
///      "control","actions":{"success":"done",…},"kind":"module"|"substack"|
///      "failing","path","module","installed","silent","failure","arguments"}],
///      "pingate_rules","insert_before","guards":[{"module","where"}],
///      "enable_line","create_from_other"}
struct StackCommand: Command {
    static let name = "stack"
    static var abstract: String { L("show a PAM service's auth stack as libpam reads it, and what a PIN there would skip") }
    static var discussion: String {
        HelpText.paragraph(L("Reads /etc/pam.d/SERVICE the way the installed libpam does — Debian 12's Linux-PAM 1.5.2 or Debian 13's 1.7.0, told apart by dpkg's record of libpam0g: comments, continuations, [value=action] controls, include, substack and @include, a missing module, a line libpam cannot use — and prints its auth rules in the order libpam runs them, each with the file and line it comes from. Then what pingate enable needs: 'pingate_rule' for each rule that already runs pam_pingate.so, 'insert_before' the line the PinGate line would go before, one 'guard' for each rule a correct PIN there would skip that is more than the password (a second factor, a lockout, a directory, an access check, a line libpam cannot read), 'enable_line' the line pingate enable writes for this service (its options fit how the program shows PAM's questions), and 'create_from_other = yes' for a lock screen Debian ships no file for.")) + "\n\n"
            + HelpText.paragraph(L("Anyone may read this system's stacks; only root may read a staged root (--root)."))
    }
    static var exitStatuses: String? {
        HelpText.paragraph(L("Exit status: 0 the stack was read, whatever it holds; 2 usage; 3 --root without root."))
    }

    struct Arguments: ArgumentGroup {
        let service = Positional("SERVICE", required: true, missing: L("missing SERVICE (a file name in /etc/pam.d, such as sudo)"))
        let root = Option<String>("--root", value: "DIR", rootOnly: true,
                                  help: L("read the stacks and modules of the staged root DIR (an absolute path) instead of this system's"))
        let json = JSONOption(help: L("one JSON object: service, file, from_other, failure, rules (where, level, control, actions, kind, path, module, installed, silent, failure, arguments), pingate_rules, insert_before, guards (module, where), enable_line, create_from_other"))
    }
    static let arguments = Arguments()

    let service: String
    let root: String
    let json: Bool

    init(_ arguments: ParsedArguments) throws {
        let declared = Self.arguments
        service = arguments[declared.service] ?? ""
        root = try ServiceNames.root(arguments, declared.root)
        json = arguments[declared.json.flag]
        guard !service.isEmpty, !service.contains("/") else {
            throw CLIError.usage(L("'%s' is not a PAM service name", service.prefix(60)), arguments.usage)
        }
    }

    func run(caller: Caller) throws -> ExitStatus {
        let report = StackReport(PAMStackReader(root: root).authStack(service: service))
        if json {
            Output.line(report.json.text)
        } else {
            report.lines.forEach(Output.line)
        }
        return .ok
    }
}
