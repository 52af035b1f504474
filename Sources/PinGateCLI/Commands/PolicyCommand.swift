import PinGateCore

/// `pingate policy [--json] | check | calibrate [--target-ms N]`.
///
/// JSON (`policy --json`), one object keyed by the pingate.conf keys, values typed:
///
///     {"config": "/etc/pingate/pingate.conf", "config_exists": true,
///      "pin_min_length": 4, "pin_max_length": 4, "pattern_min_cells": 4,
///      "pattern_grid": 3, "free_failures": 4,
///      "lockout_timeouts": [60, 300, 900, 1800, 5400], "max_failures": 10,
///      "kdf_operations": 2, "kdf_memory": 16777216, "services": ["sudo", …]}
struct PolicyCommand: Command {
    static let name = "policy"
    static var abstract: String { L("show, check or calibrate the policy in pingate.conf") }
    static var discussion: String {
        HelpText.options(Action.allCases.map { HelpRow(names: $0.words, description: $0.help) }, heading: L("Commands:"))
    }
    static var exitStatuses: String? {
        HelpText.paragraph(L("Exit status: 0 ok; 2 usage; 5 the configuration has an error."))
    }
    /// Each action's line, with the options it takes.
    static var usage: String {
        Action.allCases.map { action in
            ([action.invocation] + action.options.map(\.usage)).joined(separator: " ")
        }.joined(separator: " | ")
    }

    struct Arguments: ArgumentGroup {
        let action = Positional("ACTION")
        let json = JSONOption()
        let targetMilliseconds = Option("--target-ms", value: "N", in: 1...60_000)
    }
    static let arguments = Arguments()
    /// Anyone may show or check a configuration file of their choosing.
    static let locationsForAnyone = true

    enum Action: String, CaseIterable {
        case show, check, calibrate

        /// "policy", "policy check", …
        var words: String { self == .show ? PolicyCommand.name : "\(PolicyCommand.name) \(rawValue)" }
        var invocation: String { "pingate " + words }

        /// The options this action takes; the others are refused with it.
        var options: [ArgumentDeclaration] {
            switch self {
            case .show: return PolicyCommand.arguments.json.declarations
            case .check: return []
            case .calibrate: return PolicyCommand.arguments.targetMilliseconds.declarations
            }
        }

        var help: String {
            switch self {
            case .show: return L("prints the effective settings (the file over the defaults) as pingate.conf lines; --json as one object with typed values (durations in seconds, sizes in bytes)")
            case .check: return L("validates pingate.conf; an error names the line")
            case .calibrate: return L("measures Argon2id here, raising memory then passes, and prints kdf_operations and kdf_memory lines that take about --target-ms milliseconds (default %d) per attempt; paste them into pingate.conf", PolicyCalibration.defaultTargetMilliseconds)
            }
        }
    }

    let action: Action
    let json: Bool
    let targetMilliseconds: Int?
    let locations: Locations

    init(_ arguments: ParsedArguments) throws {
        let declared = Self.arguments
        let word = arguments[declared.action]
        guard let action = Action(rawValue: word ?? "show") else {
            throw CLIError.usage(L("unknown policy action '%s' (check or calibrate)", String(word?.prefix(40) ?? "")), arguments.usage)
        }
        self.action = action
        json = arguments[declared.json.flag]
        targetMilliseconds = try arguments.value(declared.targetMilliseconds)
        let ownOptions = declared.json.declarations + declared.targetMilliseconds.declarations
        if let misplaced = ownOptions.first(where: { arguments.isGiven($0) && !action.options.map(\.name).contains($0.name) }) {
            let takers = Action.allCases.filter { $0.options.map(\.name).contains(misplaced.name) }.map(\.invocation)
            throw CLIError.usage(L("%s is for '%s' only", misplaced.name, takers.joined(separator: "', '")), arguments.usage)
        }
        locations = Locations(arguments)
    }

    func run(caller: Caller) throws -> ExitStatus {
        switch action {
        case .show:
            let policy = try locations.policy()
            if json {
                Output.line(PolicyCommand.json(policy, path: locations.configPath).text)
            } else {
                Output.line(configExists(locations.configPath)
                    ? L("# effective policy from %s", locations.configPath)
                    : L("# effective policy from %s (missing: defaults)", locations.configPath))
                for key in Policy.keys { Output.line("\(key) = \(policy.value(of: key))") }
            }
        case .check:
            _ = try locations.policy()
            Output.line(configExists(locations.configPath)
                ? L("%s: ok", locations.configPath)
                : L("%s: does not exist; the defaults apply", locations.configPath))
        case .calibrate:
            try PolicyCalibration(targetMilliseconds: targetMilliseconds ?? PolicyCalibration.defaultTargetMilliseconds).run()
        }
        return .ok
    }

    static func json(_ policy: Policy, path: String) -> JSON {
        let settings = Policy.settings.map { setting -> (String, JSON) in
            switch setting.typed(policy) {
            case let .number(value): (setting.key, .int(value))
            case let .numbers(values): (setting.key, .array(values.map { .int($0) }))
            case let .names(names): (setting.key, .array(names.map { .string($0) }))
            case let .text(text): (setting.key, .string(text))
            }
        }
        return .object([("config", .string(path)), ("config_exists", .bool(configExists(path)))] + settings)
    }
}

func configExists(_ path: String) -> Bool { pathExists(path) }
