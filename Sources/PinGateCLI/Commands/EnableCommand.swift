import PinGateCore

/// `pingate enable SERVICE… [--force] [--dry-run] [--json] [--root DIR]`:
/// puts the PIN in front of the password in each service's auth stack, with
/// the line the client table (`PAMClient`) names for it. Every service is
/// checked before any file is written: one refusal changes nothing.
///
/// JSON (`--json`), one object:
///
///     {"dry_run": false,
///      "services": [{"service", "file", "outcome": "enabled"|"created"|"already-enabled"|
///                    "enabled-in-common-auth", "source", "line",
///                    "files": [{"path", "action": "create"|"write"|"remove"}], "warnings": [...]}],
///      "refused": [{"service", "reason": "guards"|"crossing-jumps"|"no-stack-file"|"no-auth-line"|
///                   "unseen-conversation", "guards": [{"module", "where"}], "jumps": ["FILE:LINE"]}]}
struct EnableCommand: Command {
    static let name = "enable"
    static var abstract: String { L("offer the PIN in front of the password for PAM services (root)") }
    static var discussion: String {
        HelpText.paragraph(L("Puts one pam_pingate.so line into /etc/pam.d/SERVICE, before the password (the first include of the auth rules, or the first auth rule), under a comment that marks it, and keeps the file as it was in SERVICE.pingate-backup. The line's options fit how the program shows PAM's questions (see pingate stack SERVICE, enable_line). Where libpam reads the service from another file — the distribution's /usr/lib/pam.d/SERVICE, or /etc/pam.d/other for a lock screen no package ships a file for — /etc/pam.d/SERVICE is made from that file with the line, and pingate disable removes it again.")) + "\n\n"
            + HelpText.paragraph(L("A service is refused, and nothing is written for any of them, when a correct PIN there would skip more than the password (a second factor, a lockout, a directory, an access check, a line libpam cannot read), when a jump above the line would pass over it, or when no person sees its questions (kde-fingerprint, kde-smartcard, gdm-fingerprint, gdm-smartcard). --force enables the first two anyway and names what it changes."))
    }
    static var exitStatuses: String? {
        HelpText.paragraph(L("Exit status: 0 enabled (or already on); 2 usage, or a service refused (nothing changed); 3 not root; 4 a service has no stack file; 5 a file could not be written."))
    }

    struct Arguments: ArgumentGroup {
        let services = Positional("SERVICE", required: true, repeating: true,
                                  missing: L("missing SERVICE (a PAM service name, such as sudo or kde)"))
        let force = Flag("--force", help: L("enable even where a correct PIN skips more than the password, or a jump crosses the line"))
        let options = ServiceSwitchOptions(json: JSONOption(help: L("one JSON object: dry_run, services (service, file, outcome, source, line, files, warnings), refused (service, reason, guards, jumps)")))
    }
    static let arguments = Arguments()

    let services: [String]
    let force: Bool
    let options: ServiceSwitchOptions.Values
    let configPath: String

    init(_ arguments: ParsedArguments) throws {
        let declared = Self.arguments
        services = try ServiceNames.validated(arguments.all(declared.services), usage: arguments.usage)
        force = arguments[declared.force]
        options = try declared.options.values(arguments)
        let config = GlobalOptions.arguments.locations.config
        configPath = arguments.isGiven(config.declaration) ? Locations(arguments).configPath : options.switcher.root + Policy.defaultPath
    }

    func validate(caller: Caller) throws {
        try options.validate(caller: caller, command: Self.name)
    }

    func run(caller: Caller) throws -> ExitStatus {
        var changes: [PAMServiceSwitch] = []
        var refused: [(String, PAMEnableRefusal)] = []
        for service in services {
            do { changes.append(try options.switcher.enabling(service, force: force)) } catch { refused.append((service, error)) }
        }
        // sudo-i with sudo, where it has a stack: one not installed is no refusal.
        var companions: [PAMServiceSwitch] = []
        for service in PAMClient.companions(of: services) {
            do {
                companions.append(try options.switcher.enabling(service, force: force))
            } catch .noStackFile {
                continue
            } catch {
                refused.append((service, error))
            }
        }
        changes += companions
        if !refused.isEmpty {
            if options.json { Output.line(ServiceSwitchReport.json([], refused: refused, dryRun: options.dryRun).text) }
            for (service, refusal) in refused {
                let lines = ServiceSwitchReport.refusal(refusal, service: service)
                Output.error(lines[0])
                lines.dropFirst().forEach(Output.rawError)
            }
            let missing = refused.contains { if case .noStackFile = $0.1 { true } else { false } }
            return missing && refused.count == 1 ? .notFound : .usage
        }
        try options.finish(changes)
        if !options.json { ServiceSwitchReport.companionLines(companions, enabled: true).forEach(Output.line) }
        notOfferedWarnings(changes).forEach(Output.rawError)
        return .ok
    }

    /// pingate.conf has one reader, the helper's: a service it does not
    /// list gets no PIN, line or no line.
    private func notOfferedWarnings(_ changes: [PAMServiceSwitch]) -> [String] {
        let enabled = changes.filter { if case .alreadyOn = $0.outcome { false } else { true } }.map(\.service)
        guard !enabled.isEmpty else { return [] }
        guard let policy = try? ConfigParser.load(path: configPath) else {
            return [L("warning: cannot read the services of %s (see: pingate policy check)", configPath)]
        }
        return enabled.filter { !policy.allows(service: $0) }.map { service in
            L("warning: %s is not in the services of %s (services = %s): no PIN is offered there until you add it",
              service, configPath, policy.services.joined(separator: " "))
        }
    }
}
