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
        HelpText.paragraph(L("Exit status: 0 done (also when there was nothing to do); 2 usage; 3 not root; 5 a file could not be written."))
    }

    struct Arguments: ArgumentGroup {
        let services = Positional("SERVICE", repeating: true)
        let all = Flag("--all", help: L("every service pingate enable changed"))
        let options = ServiceSwitchOptions(json: JSONOption(help: L("one JSON object, as pingate enable prints it")))
    }
    static let arguments = Arguments()

    let services: [String]
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
    }

    func validate(caller: Caller) throws {
        try options.validate(caller: caller, command: Self.name)
    }

    func run(caller: Caller) throws -> ExitStatus {
        try options.finish(services.map(options.switcher.disabling))
        return .ok
    }
}
