/// `pingate`: parses the global options and dispatches to a subcommand.
enum RootCommand {
    static let version = "0.1.0"

    static let commands: [any Command.Type] = [
        EnrollCommand.self, ChangeCommand.self, RemoveCommand.self, StatusCommand.self,
        UnlockCommand.self, ListCommand.self, VerifyCommand.self, PolicyCommand.self,
        DoctorCommand.self, InitCommand.self, HelpCommand.self,
    ]

    static var usage: String {
        usageLine("pingate COMMAND [ARGUMENTS] [--store DIR] [--config FILE]  " + L("(pingate --help for the commands)"))
    }

    static var helpText: String {
        let width = commands.map { Localization.displayWidth($0.name) }.max() ?? 0
        let list = commands.map { command in
            "  " + Localization.padded(command.name, to: width + 2) + command.abstract
        }.joined(separator: "\n")
        return """
        \(L("pingate — manage PinGate PINs and patterns (version %s)", version))

        \(usageLine("pingate COMMAND [ARGUMENTS]"))

        \(L("Commands:"))
        \(list)

        \(L("Global options:"))
        \(StoreOptions.helpText)
          -h, --help       \(L("show help (also: pingate help COMMAND, pingate COMMAND --help)"))
          --version        \(L("print the version"))

        \(L("Exit status: 0 ok; 1 verification failed, locked, disabled, or a new secret\nrefused; 2 usage; 3 permission; 4 no such user or not enrolled; 5 store or\nconfiguration error; 130 cancelled at a prompt."))
        """
    }

    static func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.name == name }
    }

    static func main(_ arguments: [String]) -> ExitStatus {
        // Global options may come before the subcommand; they are handed on to it.
        var leading: [String] = []
        var remaining = arguments[...]
        while let first = remaining.first, first.hasPrefix("-") {
            remaining.removeFirst()
            switch first {
            case "--help", "-h":
                Output.line(helpText)
                return .ok
            case "--version":
                Output.line("pingate \(version)")
                return .ok
            case "--store", "--config":
                guard let value = remaining.popFirst() else { return usageError(L("%s needs a value", first), usage) }
                leading += [first, value]
            case _ where first.hasPrefix("--store=") || first.hasPrefix("--config="):
                leading.append(first)
            default:
                return usageError(L("unknown option '%s'", first.prefix(60)), usage)
            }
        }
        guard let name = remaining.popFirst() else { return usageError(L("a command is needed"), usage) }
        guard let type = command(named: name) else {
            return usageError(L("unknown command '%s'", name.prefix(40)), usage)
        }
        return run(type, arguments: Array(remaining) + leading)
    }

    static func run(_ type: any Command.Type, arguments: [String]) -> ExitStatus {
        let caller = Caller.current()
        do {
            let parsed = try ParsedArguments(arguments, spec: type.spec + StoreOptions.spec, usage: usageLine(type.usage))
            if parsed.wantsHelp {
                Output.line(type.helpText)
                return .ok
            }
            let command = try type.init(parsed)
            try command.validate(caller: caller)
            return try command.run(caller: caller)
        } catch let error as CLIError {
            Output.error(error.message)
            if let usageLine = error.usageLine { Output.rawError(usageLine) }
            return error.status
        } catch {
            Output.error(String(describing: error))
            return .storeOrConfig
        }
    }

    private static func usageError(_ message: String, _ usageLine: String) -> ExitStatus {
        Output.error(message)
        Output.rawError(usageLine)
        return .usage
    }
}
