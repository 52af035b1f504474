/// One subcommand of `pingate`: its help at the top of the type, its
/// arguments declared once in `Arguments`, then `init` (read the parsed
/// arguments), `validate()` (usage and permission), `run()`.
protocol Command {
    /// A struct of `Flag`, `Option`, `Positional` and option groups: the usage
    /// line, the help rows and the parsing all come from it.
    associatedtype Arguments: ArgumentGroup

    static var name: String { get }
    /// One line, shown in `pingate --help`.
    static var abstract: String { get }
    /// Longer help before the options table: what it does, its output.
    static var discussion: String { get }
    /// The help's last paragraph: the exit statuses.
    static var exitStatuses: String? { get }
    static var arguments: Arguments { get }
    /// Refused for anyone but root (exit 3), before validate().
    static var requiresRoot: Bool { get }
    /// True for a command that anyone may point at other locations: it reads
    /// the files as the caller. The others refuse `--store` and `--config`
    /// from anyone but root, as the setgid helper ignores them.
    static var locationsForAnyone: Bool { get }
    /// The usage line without "usage: ", printed on stderr with every usage error.
    static var usage: String { get }

    init(_ arguments: ParsedArguments) throws
    /// Checks arguments and permission before anything is read or asked.
    func validate(caller: Caller) throws
    func run(caller: Caller) throws -> ExitStatus
}

extension Command {
    static var exitStatuses: String? { nil }
    static var requiresRoot: Bool { false }
    static var locationsForAnyone: Bool { false }
    static var usage: String { ["pingate", name, arguments.usage].filter { !$0.isEmpty }.joined(separator: " ") }

    func validate(caller: Caller) throws {}

    /// The command's own arguments, then the global ones.
    static var declarations: [ArgumentDeclaration] {
        arguments.declarations + GlobalOptions.arguments.declarations
    }

    static func parse(_ words: [String]) throws(CLIError) -> ParsedArguments {
        try ParsedArguments(words, declarations: declarations, usage: usageLine(usage))
    }

    static var helpText: String {
        let rows = arguments.helpRows
        let blocks = [discussion, rows.isEmpty ? nil : HelpText.options(rows), exitStatuses]
        return """
        pingate \(name) — \(abstract)

        \(usageLine(usage))

        \(blocks.compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "\n\n"))

        \(HelpText.globalOptions(GlobalOptions.arguments.helpRows))
        """
    }
}
