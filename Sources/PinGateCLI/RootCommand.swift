/// `pingate`: parses the global options and dispatches to a subcommand.
public enum RootCommand {
    static let version = "0.3.0"

    static var commands: [any Command.Type] { [
        EnrollCommand.self, ChangeCommand.self, RemoveCommand.self, StatusCommand.self,
        UnlockCommand.self, ListCommand.self, VerifyCommand.self, PolicyCommand.self,
        DoctorCommand.self, StackCommand.self, EnableCommand.self, DisableCommand.self, KeyCommand.self, InitCommand.self, HelpCommand.self,
    ] }

    /// What `pingate` alone takes before a command.
    struct Arguments: ArgumentGroup {
        let locations = StoreOptions()
        let help = Flag("-h", "--help", help: L("show help (also: pingate help COMMAND, pingate COMMAND --help)"))
        let version = Flag("--version", help: L("print the version"))
    }

    static let arguments = Arguments()

    static var usage: String {
        usageLine("pingate COMMAND [ARGUMENTS] \(arguments.locations.usage)  " + L("(pingate --help for the commands)"))
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

        \(HelpText.globalOptions(arguments.helpRows))

        \(L("Exit status: 0 ok; 1 verification failed, locked, disabled, or a new secret\nrefused; 2 usage; 3 permission; 4 no such user or not enrolled; 5 store or\nconfiguration error; 130 cancelled at a prompt."))
        """
    }

    /// Other spellings a command answers to: the prose says "enrol"
    /// (British), the command is `enroll`.
    static let synonyms = ["enrol": EnrollCommand.name]

    static func command(named name: String) -> (any Command.Type)? {
        let name = synonyms[name] ?? name
        return commands.first { $0.name == name }
    }

    /// What the arguments ask for: text for stdout (help, the version), or a
    /// command with its parsed arguments. Usage errors are thrown.
    enum Invocation {
        case output(String)
        case command(any Command, ParsedArguments)
    }

    static func invocation(_ arguments: [String]) throws -> Invocation {
        // Global options may come before the subcommand; they are handed on to it.
        var leading: [String] = []
        var remaining = arguments[...]
        while let first = remaining.first, first.hasPrefix("-") {
            remaining.removeFirst()
            let name = String(first.prefix { $0 != "=" })
            if self.arguments.help.declaration.matches(first) { return .output(helpText) }
            if self.arguments.version.declaration.matches(first) { return .output("pingate \(version)") }
            guard self.arguments.locations.declarations.contains(where: { $0.matches(name) }) else {
                throw CLIError.usage(L("unknown option '%s'", first.prefix(60)), usage)
            }
            leading.append(first)
            if name == first {
                guard let value = remaining.popFirst() else { throw CLIError.usage(L("%s needs a value", first), usage) }
                leading.append(value)
            }
        }
        guard let name = remaining.popFirst() else { throw CLIError.usage(L("a command is needed"), usage) }
        guard let type = command(named: name) else {
            throw CLIError.usage(L("unknown command '%s'", name.prefix(40)), usage)
        }
        let parsed = try type.parse(Array(remaining) + leading)
        if parsed.wantsHelp { return .output(type.helpText) }
        return .command(try type.init(parsed), parsed)
    }

    /// The checks every command shares, before its own validate(): a root-only
    /// command, then root-only options.
    static func authorize(_ command: any Command, _ parsed: ParsedArguments, caller: Caller) throws {
        let type = type(of: command)
        if type.requiresRoot { try caller.requireRoot(type.name) }
        try parsed.refuseRootOnly(caller: caller,
                                  except: type.locationsForAnyone ? GlobalOptions.arguments.locations.declarations : [])
        try command.validate(caller: caller)
    }

    public static func main(_ arguments: [String]) -> ExitStatus {
        do {
            switch try invocation(arguments) {
            case let .output(text):
                Output.line(text)
                return .ok
            case let .command(command, parsed):
                let caller = Caller.current()
                try authorize(command, parsed, caller: caller)
                return try command.run(caller: caller)
            }
        } catch let error as CLIError {
            Output.error(error.message)
            if let usageLine = error.usageLine { Output.rawError(usageLine) }
            return error.status
        } catch {
            Output.error(String(describing: error))
            return .storeOrConfig
        }
    }
}
