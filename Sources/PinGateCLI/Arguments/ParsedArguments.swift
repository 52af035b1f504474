/// A command's arguments split by its declarations: `--flag`, `--option VALUE`
/// or `--option=VALUE`, positionals in declaration order, `--` to end the
/// options, and `-h`/`--help` anywhere. Every usage error names the argument
/// and carries the usage line.
struct ParsedArguments {
    /// The usage line ("usage: pingate …") for the errors a command throws itself.
    let usage: String
    private(set) var wantsHelp = false
    private let declarations: [ArgumentDeclaration]
    private var flags: Set<String> = []
    private var values: [String: String] = [:]
    private var positionals: [String: [String]] = [:]

    init(_ arguments: [String], declarations: [ArgumentDeclaration], usage: String) throws(CLIError) {
        self.usage = usage
        self.declarations = declarations
        let positionalSlots = declarations.filter { if case .positional = $0.kind { true } else { false } }
        var remaining = arguments[...]
        var optionsEnded = false
        while let argument = remaining.popFirst() {
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                let slot = positionalSlots.first { positionals[$0.name] == nil || $0.kind.isRepeating }
                guard let slot else {
                    throw CLIError.usage(L("unexpected argument '%s'", argument.prefix(60)), usage)
                }
                positionals[slot.name, default: []].append(argument)
                continue
            }
            if argument == "--" { optionsEnded = true; continue }
            if GlobalOptions.arguments.help.declaration.matches(argument) { wantsHelp = true; continue }
            var name = argument
            var inlineValue: String? = nil
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let declaration = declarations.first(where: { $0.matches(name) }),
                  declaration.kind == .flag ? inlineValue == nil : true else {
                throw CLIError.usage(L("unknown option '%s'", name.prefix(60)), usage)
            }
            let key = declaration.name
            guard !flags.contains(key), values[key] == nil else { throw CLIError.usage(L("%s is given twice", key), usage) }
            if declaration.kind == .flag {
                flags.insert(key)
            } else {
                guard let value = inlineValue ?? remaining.popFirst(), !value.isEmpty else {
                    throw CLIError.usage(L("%s needs a value", key), usage)
                }
                values[key] = value
            }
        }
        if !wantsHelp, let missing = positionalSlots.first(where: { $0.kind.isRequired && positionals[$0.name] == nil }) {
            throw CLIError.usage(missing.missing ?? L("missing %s", missing.name), usage)
        }
    }

    subscript(flag: Flag) -> Bool { flags.contains(declared(flag.declaration)) }

    subscript(positional: Positional) -> String? { positionals[declared(positional.declaration)]?.first }

    /// Every word a repeating positional took, in order.
    func all(_ positional: Positional) -> [String] { positionals[declared(positional.declaration)] ?? [] }

    /// The flag's value of the choice given, or nil; two of them are a usage error.
    func choice<Value>(_ choice: FlagChoice<Value>) throws(CLIError) -> Value? {
        let given = choice.choices.filter { self[$0.flag] }
        guard given.count <= 1 else {
            throw CLIError.usage(L("%s and %s cannot be used together", given[0].flag.declaration.name, given[1].flag.declaration.name), usage)
        }
        return given.first?.value
    }

    /// The option's value converted, nil if absent; a value that does not convert is a usage error.
    func value<Value>(_ option: Option<Value>) throws(CLIError) -> Value? {
        guard let text = values[declared(option.declaration)] else { return nil }
        guard let value = option.convert(text) else {
            throw CLIError.usage(option.refusal(option.declaration.name, text), usage)
        }
        return value
    }

    /// Whether the argument was given at all (a flag, an option or a positional).
    func isGiven(_ declaration: ArgumentDeclaration) -> Bool {
        let key = declared(declaration)
        return flags.contains(key) || values[key] != nil || positionals[key] != nil
    }

    /// The arguments given, in declaration order.
    var given: [ArgumentDeclaration] { declarations.filter(isGiven) }

    /// The root-only arguments (but those in `exceptions`) refused for anyone
    /// else: exit 3, naming the first.
    func refuseRootOnly(caller: Caller, except exceptions: [ArgumentDeclaration] = []) throws(CLIError) {
        let refused = given.first { declaration in
            declaration.rootOnly && !exceptions.contains { $0.name == declaration.name }
        }
        guard !caller.isRoot, let refused else { return }
        throw CLIError(status: .permission, message: L("%s is for root only", refused.name))
    }

    /// Reading an argument the command did not declare is a programmer error.
    private func declared(_ declaration: ArgumentDeclaration) -> String {
        precondition(declarations.contains { $0.name == declaration.name }, "\(declaration.name) is not declared")
        return declaration.name
    }
}
