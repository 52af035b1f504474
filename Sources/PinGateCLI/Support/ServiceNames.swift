import PinGateCore

/// `--dry-run`, `--root DIR` and `--json`, as `enable` and `disable` take them.
struct ServiceSwitchOptions: ArgumentGroup {
    let dryRun = Flag("--dry-run", help: L("print the changes as a diff; write nothing"))
    let root = Option<String>("--root", value: "DIR", rootOnly: true,
                              help: L("change the stacks of the staged root DIR (an absolute path) instead of this system's"))
    let json: JSONOption

    /// What the options say, read once.
    struct Values {
        let dryRun: Bool
        let json: Bool
        let switcher: PAMServiceSwitcher

        /// Writes the changes (unless a dry run), then says what was done.
        func finish(_ changes: [PAMServiceSwitch]) throws {
            if !dryRun { try ServiceSwitchWriter.write(changes, with: switcher) }
            if json {
                Output.line(ServiceSwitchReport.json(changes, refused: [], dryRun: dryRun).text)
            } else {
                for change in changes { ServiceSwitchReport.lines(change, dryRun: dryRun).forEach(Output.line) }
            }
            for change in changes { ServiceSwitchReport.warnings(change).forEach(Output.rawError) }
        }

        /// Only a dry run may be asked by anyone: it reads what anyone may read.
        func validate(caller: Caller, command: String) throws {
            if !dryRun { try caller.requireRoot(command) }
        }
    }

    func values(_ arguments: ParsedArguments) throws(CLIError) -> Values {
        Values(dryRun: arguments[dryRun], json: arguments[json.flag],
               switcher: PAMServiceSwitcher(root: try ServiceNames.root(arguments, root)))
    }
}

/// The service names `enable`, `disable` take, and the staged root they and
/// `stack` take.
enum ServiceNames {
    /// libpam looks a service up in lower case, without a directory:
    /// /etc/pam.d/Sudo is never read for "Sudo".
    static func validated(_ names: [String], usage: String) throws(CLIError) -> [String] {
        for name in names where !isServiceName(name) {
            throw CLIError.usage(L("'%s' is not a PAM service name (lower case letters, digits, '.', '_', '-': libpam looks it up so)", name.prefix(60)), usage)
        }
        var seen: Set<String> = []
        return names.filter { seen.insert($0).inserted }
    }

    static func isServiceName(_ name: String) -> Bool {
        guard let first = name.utf8.first, isLowerAlphanumeric(first) else { return false }
        return name.utf8.allSatisfy { isLowerAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }

    private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// `--root DIR`: an absolute path, or "" for this system.
    static func root(_ arguments: ParsedArguments, _ option: Option<String>) throws(CLIError) -> String {
        let root = try arguments.value(option) ?? ""
        guard root.isEmpty || root.hasPrefix("/") else {
            throw CLIError.usage(L("--root needs an absolute path, got '%s'", root.prefix(200)), arguments.usage)
        }
        return root
    }
}

/// Writes what `enable`/`disable` decided, service by service, each file as
/// `PAMServiceSwitcher.apply` does; the first failure stops with the file named.
enum ServiceSwitchWriter {
    static func write(_ changes: [PAMServiceSwitch], with switcher: PAMServiceSwitcher) throws {
        for file in changes.flatMap(\.changes) {
            do {
                try switcher.apply(file)
            } catch {
                throw CLIError(status: .storeOrConfig, message: L("cannot write %s: %s (files before it were written; run the command again once fixed)", file.path, "\(error)"))
            }
        }
    }
}
