/// Which flags, valued options and how many positional arguments a command takes.
struct ArgumentSpec {
    var flags: Set<String> = []
    var options: Set<String> = []
    var positionals = 0

    static func + (left: ArgumentSpec, right: ArgumentSpec) -> ArgumentSpec {
        ArgumentSpec(flags: left.flags.union(right.flags), options: left.options.union(right.options),
                     positionals: left.positionals + right.positionals)
    }
}

/// A command's arguments split by its `ArgumentSpec`: `--flag`, `--option VALUE`
/// or `--option=VALUE`, positionals, and `--` to end the options.
struct ParsedArguments {
    private(set) var flags: Set<String> = []
    private(set) var values: [String: String] = [:]
    private(set) var positionals: [String] = []
    private(set) var wantsHelp = false

    init(_ arguments: [String], spec: ArgumentSpec, usage: String) throws {
        var remaining = arguments[...]
        var optionsEnded = false
        while let argument = remaining.popFirst() {
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                guard positionals.count < spec.positionals else {
                    throw CLIError.usage(L("unexpected argument '%s'", argument.prefix(60)), usage)
                }
                positionals.append(argument)
                continue
            }
            if argument == "--" { optionsEnded = true; continue }
            if argument == "--help" || argument == "-h" { wantsHelp = true; continue }
            var name = argument
            var inlineValue: String? = nil
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if spec.flags.contains(name), inlineValue == nil {
                guard !flags.contains(name) else { throw CLIError.usage(L("%s is given twice", name), usage) }
                flags.insert(name)
            } else if spec.options.contains(name) {
                guard values[name] == nil else { throw CLIError.usage(L("%s is given twice", name), usage) }
                guard let value = inlineValue ?? remaining.popFirst(), !value.isEmpty else {
                    throw CLIError.usage(L("%s needs a value", name), usage)
                }
                values[name] = value
            } else {
                throw CLIError.usage(L("unknown option '%s'", name.prefix(60)), usage)
            }
        }
    }

    func has(_ flag: String) -> Bool { flags.contains(flag) }
    func value(_ option: String) -> String? { values[option] }
    func positional(_ index: Int) -> String? { index < positionals.count ? positionals[index] : nil }

    /// The value of `option` as a whole number in `range`, or nil if absent.
    func integer(_ option: String, in range: ClosedRange<Int>, usage: String) throws -> Int? {
        guard let text = values[option] else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw CLIError.usage(L("%s must be a whole number from %d to %d, got '%s'", option, range.lowerBound, range.upperBound, text.prefix(20)), usage)
        }
        return number
    }
}
