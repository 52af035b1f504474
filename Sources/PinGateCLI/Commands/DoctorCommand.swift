import CPinGateContract
import PinGateCore

/// `pingate doctor`: checks the installation and prints, for each problem,
/// the command that fixes it.
struct DoctorCommand: Command {
    static let name = "doctor"
    static var abstract: String { L("check the installation: group, store, key, records, config, helper, module (root)") }
    static var discussion: String {
        HelpText.paragraph(L("Checks that the group '%s' exists; the store is root:pingate 0750 and not a symbolic link; the machine key is root:pingate 0640 and 32 bytes; every record is root:pingate 0660 and readable; pingate.conf parses; the helper is root:pingate %s; the PAM module is installed root 0644. It also lists the services whose auth stack runs pam_pingate.so, read as libpam reads it (pingate stack), and reports a module after it that a correct PIN now skips: a second factor, a lockout or anything else more than the password, added after PinGate was enabled. Each problem is printed with the command that fixes it.", StoreLocation.groupName, String(PINGATE_HELPER_MODE, radix: 8)))
    }
    static var exitStatuses: String? {
        HelpText.paragraph(L("Exit status: 0 no problem found; 3 not root; 5 problems found."))
    }
    static let requiresRoot = true
    static let arguments = NoArguments()

    let locations: Locations

    init(_ arguments: ParsedArguments) throws {
        locations = Locations(arguments)
    }

    func run(caller: Caller) throws -> ExitStatus {
        var doctor = Doctor(storeDirectory: locations.storeDirectory, configPath: locations.configPath)
        doctor.checkAll()
        for finding in doctor.findings { finding.lines.forEach(Output.line) }
        let problems = doctor.findings.filter { $0.level == .problem }.count
        Output.line(problems == 0 ? L("no problems found") : LP("%d problem found", "%d problems found", problems))
        return problems == 0 ? .ok : .storeOrConfig
    }
}
