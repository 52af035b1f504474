import PinGateCore

/// `pingate disable SERVICE… | --all [--dry-run] [--json] [--root DIR]`:
/// undoes `pingate enable`. A file it made is removed (libpam reads the
/// distribution's file or `other` again); a file it changed is restored
/// from its backup when nothing else changed since, and otherwise loses
/// only the marked lines.
///
/// JSON (`--json`): the object `pingate enable` prints, with the outcomes
/// "disabled", "restored", "removed", "unchanged", "missing".
struct DisableCommand: Command {
    static let name = "disable"
    static var abstract: String { L("take the PIN out of PAM services' stacks again (root)") }
    static var discussion: String {
        HelpText.paragraph(L("Removes what pingate enable (or an older install.sh --enable) wrote into /etc/pam.d/SERVICE: the marked pam_pingate.so lines. When the rest is the file as it was, its backup is put back; a file enable made from /usr/lib/pam.d or other is deleted, so libpam reads that file again. --all does this for every service enable changed; the package's removal runs it."))
    }
    static var exitStatuses: String? {
        HelpText.paragraph(L("Exit status: 0 done (also when there was nothing to do); 2 usage; 3 not root; 4 a service has no stack file (the others are done); 5 a file could not be written."))
    }

    struct Arguments: ArgumentGroup {
        let services = Positional("SERVICE", repeating: true)
        let all = Flag("--all", help: L("every service pingate enable changed"))
        let options = ServiceSwitchOptions(json: JSONOption(help: L("one JSON object, as pingate enable prints it")))
    }
    static let arguments = Arguments()

    let services: [String]
    /// Named services (not --all), whose missing file is an error, as enable's is.
    let named: Bool
    let options: ServiceSwitchOptions.Values

    init(_ arguments: ParsedArguments) throws {
        let declared = Self.arguments
        let named = try ServiceNames.validated(arguments.all(declared.services), usage: arguments.usage)
        let all = arguments[declared.all]
        guard all != !named.isEmpty else {
            throw CLIError.usage(all ? L("--all takes no SERVICE") : L("missing SERVICE (or --all)"), arguments.usage)
        }
        options = try declared.options.values(arguments)
        services = all ? options.switcher.enabledServices() : named
        self.named = !all
    }

    func validate(caller: Caller) throws {
        try options.validate(caller: caller, command: Self.name)
    }

    func run(caller: Caller) throws -> ExitStatus {
        // sudo-i goes with sudo, as enable put it there.
        let companions = named ? PAMClient.companions(of: services).map(options.switcher.disabling)
            .filter { if case .missing = $0.outcome { false } else { true } } : []
        let changes = services.map(options.switcher.disabling)
        try options.finish(changes + companions)
        if !options.json { ServiceSwitchReport.companionLines(companions, enabled: false).forEach(Output.line) }
        // A service libpam reads from elsewhere (sudo-rs's, from other) was
        // never enabled: nothing to do. One with no file at all is unknown here.
        let missing = changes.filter { change in
            guard case .missing = change.outcome else { return false }
            let enabling = Result { () throws(PAMEnableRefusal) in try options.switcher.enabling(change.service, force: true) }
            if case .failure(.noStackFile) = enabling { return true }
            return false
        }
        guard !named || missing.isEmpty else {
            for change in missing {
                Output.error(L("%s does not exist, nor another file libpam would read for %s: is it installed? (nothing to disable)", change.file, change.service))
            }
            return .notFound
        }
        return .ok
    }
}
