/// One argument as a command declares it, once: its name(s), how it is
/// written, its help and whether only root may pass it. The usage line, the
/// help rows and the parsing are all derived from these declarations, in the
/// manner of swift-argument-parser (which this replaces by hand).
struct ArgumentDeclaration {
    enum Kind: Equatable {
        /// `--name`, on or off.
        case flag
        /// `--name VALUE` or `--name=VALUE`.
        case option(valueName: String)
        /// A word in its place, such as `USER`; a `repeating` one, always
        /// the last, takes every word left (`SERVICE…`).
        case positional(required: Bool, repeating: Bool = false)

        var isRequired: Bool { if case .positional(true, _) = self { true } else { false } }
        var isRepeating: Bool { if case .positional(_, true) = self { true } else { false } }
    }

    /// `["--grid"]`, `["-h", "--help"]`; a positional's is its value name, `["USER"]`.
    let names: [String]
    let kind: Kind
    /// The text of its help row, or nil for no row.
    let help: String?
    /// Only root may pass it: refused for anyone else (exit 3) before validate().
    let rootOnly: Bool
    /// A required positional's usage error when it is missing, if not "missing NAME".
    var missing: String? = nil

    /// The name errors use: the long one.
    var name: String { names[names.count - 1] }

    func matches(_ word: String) -> Bool { names.contains(word) }

    /// How it is written in a usage line: `USER`, `[USER]`, `[--grid R]`.
    var usage: String {
        switch kind {
        case let .positional(required, repeating):
            let words = repeating ? name + "…" : name
            return required ? words : "[\(words)]"
        default: return "[\(rowNames)]"
        }
    }

    /// The names column of its help row: `--grid R`, `-h, --help`.
    var rowNames: String {
        guard case let .option(valueName) = kind else { return names.joined(separator: ", ") }
        return names.joined(separator: ", ") + " " + valueName
    }
}

/// One row of a command's option table.
struct HelpRow: Equatable {
    let names: String
    let description: String
}

/// Something a command's argument list is made of: a declaration, a choice of
/// flags, or a group of them. The usage fragment and the help rows come from
/// the declarations.
protocol ArgumentMember {
    var declarations: [ArgumentDeclaration] { get }
    var usage: String { get }
    var helpRows: [HelpRow] { get }
}

/// A declared argument of one kind, read back from `ParsedArguments` by the
/// same value that declared it, so its name is written once.
protocol DeclaredArgument: ArgumentMember {
    var declaration: ArgumentDeclaration { get }
}

extension DeclaredArgument {
    var declarations: [ArgumentDeclaration] { [declaration] }
    var usage: String { declaration.usage }
    var helpRows: [HelpRow] {
        declaration.help.map { [HelpRow(names: declaration.rowNames, description: $0)] } ?? []
    }
}

/// `--force`: true when given.
struct Flag: DeclaredArgument {
    let declaration: ArgumentDeclaration

    init(_ names: String..., rootOnly: Bool = false, help: String? = nil) {
        declaration = ArgumentDeclaration(names: names, kind: .flag, help: help, rootOnly: rootOnly)
    }
}

/// `--grid R`: a value, converted by `convert`, which says what it expected
/// when the text does not fit.
struct Option<Value>: DeclaredArgument {
    let declaration: ArgumentDeclaration
    let convert: @Sendable (String) -> Value?
    /// The usage error for a value `convert` refused.
    let refusal: @Sendable (_ name: String, _ text: String) -> String

    init(_ name: String, value valueName: String, rootOnly: Bool = false, help: String? = nil,
         convert: @escaping @Sendable (String) -> Value?,
         refusal: @escaping @Sendable (_ name: String, _ text: String) -> String) {
        declaration = ArgumentDeclaration(names: [name], kind: .option(valueName: valueName), help: help, rootOnly: rootOnly)
        self.convert = convert
        self.refusal = refusal
    }
}

extension Option where Value == String {
    /// Any non-empty text.
    init(_ name: String, value valueName: String, rootOnly: Bool = false, help: String? = nil) {
        self.init(name, value: valueName, rootOnly: rootOnly, help: help, convert: { $0 }, refusal: { name, _ in name })
    }
}

extension Option where Value == Int {
    /// A whole number in `range`.
    init(_ name: String, value valueName: String, in range: ClosedRange<Int>, help: String? = nil) {
        self.init(name, value: valueName, help: help,
                  convert: { Int($0).flatMap { range.contains($0) ? $0 : nil } },
                  refusal: { name, text in
                      L("%s must be a whole number from %d to %d, got '%s'", name, range.lowerBound, range.upperBound, text.prefix(20))
                  })
    }
}

/// `USER`: a word in its place among the positionals, in declaration order.
struct Positional: DeclaredArgument {
    let declaration: ArgumentDeclaration

    init(_ valueName: String, required: Bool = false, repeating: Bool = false, help: String? = nil, missing: String? = nil) {
        declaration = ArgumentDeclaration(names: [valueName], kind: .positional(required: required, repeating: repeating), help: help,
                                          rootOnly: false, missing: missing)
    }

    /// `USER`: a user name or uid. Its "missing USER" says in other languages what USER means.
    static func user(required: Bool) -> Positional {
        Positional("USER", required: required, missing: L("missing USER"))
    }
}

/// `--pin | --pattern`: flags of which at most one may be given, each naming
/// a value. One help row for all (`help`), or one row per flag.
struct FlagChoice<Value>: ArgumentMember {
    let choices: [(flag: Flag, value: Value)]
    let help: String?

    init(_ choices: [(name: String, value: Value, help: String?)], help: String? = nil) {
        self.choices = choices.map { (Flag($0.name, help: $0.help), $0.value) }
        self.help = help
    }

    var declarations: [ArgumentDeclaration] { choices.map(\.flag.declaration) }
    /// Inside the brackets: `--pin | --pattern`.
    var alternatives: String { choices.map(\.flag.declaration.name).joined(separator: " | ") }
    var usage: String { "[\(alternatives)]" }
    var helpRows: [HelpRow] {
        if let help { return [HelpRow(names: choices.map(\.flag.declaration.name).joined(separator: ", "), description: help)] }
        return choices.flatMap(\.flag.helpRows)
    }
}

/// A struct whose stored properties are declarations or other groups, like
/// swift-argument-parser's `@OptionGroup`: its members are found by
/// reflection, in the order they are written, so nothing is listed twice.
protocol ArgumentGroup: ArgumentMember {}

extension ArgumentGroup {
    var members: [any ArgumentMember] {
        Mirror(reflecting: self).children.compactMap { $0.value as? any ArgumentMember }
    }

    var declarations: [ArgumentDeclaration] { members.flatMap(\.declarations) }
    var usage: String { members.map(\.usage).filter { !$0.isEmpty }.joined(separator: " ") }
    var helpRows: [HelpRow] { members.flatMap(\.helpRows) }
}

/// A command without arguments of its own.
struct NoArguments: ArgumentGroup {}

// Declarations are built once, as `static let` members of the commands.
extension Option: Sendable {}
extension FlagChoice: Sendable where Value: Sendable {}
