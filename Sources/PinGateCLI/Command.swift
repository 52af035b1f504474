/// One subcommand of `pingate`: its help at the top of the type, its argument
/// spec, then `init` (parse), `validate()` (usage and permission), `run()`.
protocol Command {
    static var name: String { get }
    /// One line, shown in `pingate --help`.
    static var abstract: String { get }
    /// The usage line, printed on stderr with every usage error.
    static var usage: String { get }
    /// Longer help: what it does, its options, its output and exit statuses.
    static var discussion: String { get }
    static var spec: ArgumentSpec { get }

    init(_ arguments: ParsedArguments) throws
    /// Checks arguments and permission before anything is read or asked.
    func validate(caller: Caller) throws
    func run(caller: Caller) throws -> ExitStatus
}

extension Command {
    static var helpText: String {
        """
        pingate \(name) — \(abstract)

        \(usageLine(usage))

        \(discussion)

        \(L("Global options:"))
        \(StoreOptions.helpText)
          -h, --help       \(L("show this help"))
        """
    }
}
