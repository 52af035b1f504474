/// `pingate help [COMMAND]`: the same text as `--help`.
struct HelpCommand: Command {
    static let name = "help"
    static var abstract: String { L("show help for pingate or one of its commands") }
    static var discussion: String {
        HelpText.paragraph(L("Prints the help of COMMAND (as 'pingate COMMAND --help' does), or the list of commands."))
    }

    struct Arguments: ArgumentGroup {
        let topic = Positional("COMMAND")
    }
    static let arguments = Arguments()

    let topic: String?

    init(_ arguments: ParsedArguments) throws {
        topic = arguments[Self.arguments.topic]
    }

    func validate(caller: Caller) throws {
        if let topic, RootCommand.command(named: topic) == nil {
            throw CLIError.usage(L("no such command '%s'", topic.prefix(40)), usageLine(Self.usage))
        }
    }

    func run(caller: Caller) throws -> ExitStatus {
        Output.line(topic.flatMap(RootCommand.command(named:))?.helpText ?? RootCommand.helpText)
        return .ok
    }
}
