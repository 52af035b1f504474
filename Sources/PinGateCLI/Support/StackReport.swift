import PinGateCore

/// `pingate stack`'s output for one service: the rules as libpam reads them
/// and `PAMEnableFacts`, as `key = value` lines or one JSON object.
struct StackReport {
    let stack: PAMStack
    let facts: PAMEnableFacts
    let client: PAMClient

    init(_ stack: PAMStack) {
        self.stack = stack
        facts = PAMEnableFacts(stack)
        client = PAMClient.forService(stack.service)
    }

    /// A service Debian ships no file for, which pingate enable may
    /// create from other's stack.
    private var createFromOther: Bool { client.createdFromOther && stack.file == nil }

    /// A comment, then `failure`, `rule`, `pingate_rule`, `insert_before`,
    /// `guard`, `enable_line` and `create_from_other` lines. The keys and values are the same in every language
    /// (scripts read them); the comment and the notes in parentheses are
    /// translated.
    var lines: [String] {
        var lines = ["# " + heading]
        if let failure = stack.failure { lines.append("failure = " + Self.describe(failure)) }
        for rule in stack.rules { lines.append("rule = \(rule.origin) " + String(repeating: "  ", count: rule.level) + Self.text(of: rule)) }
        for origin in facts.pinGateRules { lines.append("pingate_rule = \(origin)") }
        if let line = facts.insertionLine { lines.append("insert_before = \(line)") }
        for guardRule in facts.guards { lines.append("guard = \(guardRule.name) \(guardRule.origin)") }
        lines.append("enable_line = " + client.enableLine)
        if createFromOther { lines.append("create_from_other = yes") }
        return lines
    }

    private var heading: String {
        let libpam = stack.dialect.name
        guard let file = stack.file else {
            return L("the auth stack of %s as libpam (%s) reads it: no file of its own, so \"other\"'s", stack.service, libpam)
        }
        if stack.fromOther, stack.failure == nil {
            return L("the auth stack of %s as libpam (%s) reads it: %s has no auth rule, so \"other\"'s", stack.service, libpam, file)
        }
        return L("the auth stack of %s as libpam (%s) reads it: %s", stack.service, libpam, file)
    }

    /// `[success=1 default=ignore] pam_unix.so nullok`, as written, with a note
    /// for a module that is not there or a rule that always fails.
    static func text(of rule: PAMRule) -> String {
        let words: [String]
        switch rule.kind {
        case let .module(path, silent):
            words = [(silent ? "-" : "") + rule.writtenControl, path.written] + rule.arguments
                + (path.installed ? [] : [L("(not installed: %s)", path.resolved)])
        case let .substack(name):
            words = [rule.writtenControl, name]
        case let .failing(failure):
            words = [rule.writtenControl, L("(always fails: %s)", describe(failure))]
        }
        return words.filter { !$0.isEmpty }.joined(separator: " ")
    }

    static func describe(_ failure: PAMRuleFailure) -> String {
        switch failure {
        case let .unknownType(type): return L("unknown type '%s'", type)
        case .missingControl: return L("no control")
        case .missingModule: return L("no module")
        case let .unreadableStack(path): return L("%s cannot be read", path)
        case let .nestedTooDeep(path): return L("%s is nested too deep", path)
        }
    }

    static func describe(_ failure: PAMStackFailure) -> String {
        let place = failure.origin.map { " (\($0))" } ?? ""
        switch failure.reason {
        case .noStack: return L("libpam finds no stack: neither the service's file nor \"other\" exists")
        case .unreadableLine(.unfinished): return L("libpam gives up: the file ends in a continuation (a last line ending in a backslash)") + place
        case .unreadableLine(.endless): return L("libpam 1.5.2 loops forever: a continuation fills its line buffer to the last byte") + place
        case let .unreadableInclude(path): return L("libpam gives up: @include of %s, which it cannot read", path) + place
        case let .badModuleName(path): return L("libpam gives up: a module path without a name, '%s'", path) + place
        case .includeWithoutName: return L("libpam crashes: an include without a stack name") + place
        case let .includedTooDeep(path): return L("libpam gives up: @include of %s is nested deeper than it follows", path) + place
        }
    }

    /// One object; the actions of a rule for each return value name, as
    /// pam.d(5) writes them ("ok", "done", a jump's number).
    var json: JSON {
        .object([
            ("service", .string(stack.service)),
            ("file", .optional(stack.file)),
            ("from_other", .bool(stack.fromOther)),
            ("failure", .optional(stack.failure.map(\.description))),
            ("rules", .array(stack.rules.map(Self.json))),
            ("pingate_rules", .array(facts.pinGateRules.map { .string($0.description) })),
            ("insert_before", facts.insertionLine.map { .int($0) } ?? .null),
            ("guards", .array(facts.guards.map { .object([("module", .string($0.name)), ("where", .string($0.origin.description))]) })),
            ("enable_line", .string(client.enableLine)),
            ("create_from_other", .bool(createFromOther)),
            ("libpam", .string(stack.dialect.name)),
        ])
    }

    static func json(_ rule: PAMRule) -> JSON {
        var fields: [(String, JSON)] = [
            ("where", .string(rule.origin.description)),
            ("level", .int(rule.level)),
            ("control", .optional(rule.control)),
            ("actions", .object(PAMReturn.allCases.map { ($0.name, action(rule.actions[$0])) })),
        ]
        switch rule.kind {
        case let .module(path, silent):
            fields += [("kind", .string("module")), ("path", .string(path.written)), ("module", .string(path.resolved)),
                       ("installed", .bool(path.installed)), ("silent", .bool(silent))]
        case let .substack(name):
            fields += [("kind", .string("substack")), ("path", .string(name))]
        case let .failing(failure):
            fields += [("kind", .string("failing")), ("failure", .string(failure.description))]
        }
        fields.append(("arguments", .array(rule.arguments.map(JSON.string))))
        return .object(fields)
    }

    private static func action(_ action: PAMAction) -> JSON {
        action.jump != nil || !(-5...0).contains(action.rawValue) ? .int(Int(action.rawValue)) : .string(action.description)
    }
}
