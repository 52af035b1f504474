/// `pingate`: parses the global options and dispatches to a subcommand.
enum RootCommand {
    static let version = "0.1.0"

    static let commands: [any Command.Type] = [
        EnrollCommand.self, ChangeCommand.self, RemoveCommand.self, StatusCommand.self,
        UnlockCommand.self, ListCommand.self, VerifyCommand.self, PolicyCommand.self,
        DoctorCommand.self, HelpCommand.self,
    ]

    static let usage = "usage: pingate COMMAND [ARGUMENTS] [--store DIR] [--config FILE]  (pingate --help for the commands)"

    static var helpText: String {
        let width = commands.map { $0.name.count }.max() ?? 0
        let list = commands.map { command in
            "  " + command.name + String(repeating: " ", count: width - command.name.count + 2) + command.abstract
        }.joined(separator: "\n")
        return """
        pingate — manage PinGate PINs and patterns (version \(version))

        usage: pingate COMMAND [ARGUMENTS]

        Commands:
        \(list)

        Global options:
        \(StoreOptions.helpText)
          -h, --help       show help (also: pingate help COMMAND, pingate COMMAND --help)
          --version        print the version

        Exit status: 0 ok; 1 verification failed, locked, disabled, or a new secret
        refused; 2 usage; 3 permission; 4 no such user or not enrolled; 5 store or
        configuration error; 130 cancelled at a prompt.
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
                guard let value = remaining.popFirst() else { return usageError("\(first) needs a value", usage) }
                leading += [first, value]
            case _ where first.hasPrefix("--store=") || first.hasPrefix("--config="):
                leading.append(first)
            default:
                return usageError("unknown option '\(first.prefix(60))'", usage)
            }
        }
        guard let name = remaining.popFirst() else { return usageError("a command is needed", usage) }
        guard let type = command(named: name) else {
            return usageError("unknown command '\(name.prefix(40))'", usage)
        }
        return run(type, arguments: Array(remaining) + leading)
    }

    static func run(_ type: any Command.Type, arguments: [String]) -> ExitStatus {
        let caller = Caller.current()
        do {
            let parsed = try ParsedArguments(arguments, spec: type.spec + StoreOptions.spec, usage: "usage: " + type.usage)
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
