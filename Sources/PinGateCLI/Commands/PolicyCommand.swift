import Glibc
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
    static let usage = "pingate policy [--json] | pingate policy check | pingate policy calibrate [--target-ms N]"
    static var discussion: String {
        HelpText.compose(
            HelpText.options([
                ("policy", L("prints the effective settings (the file over the defaults) as pingate.conf lines; --json as one object with typed values (durations in seconds, sizes in bytes)")),
                ("policy check", L("validates pingate.conf; an error names the line")),
                ("policy calibrate", L("measures Argon2id here, raising memory then passes, and prints kdf_operations and kdf_memory lines that take about --target-ms milliseconds (default %d) per attempt; paste them into pingate.conf", PolicyCalibration.defaultTargetMilliseconds)),
            ], heading: L("Commands:")),
            HelpText.paragraph(L("Exit status: 0 ok; 2 usage; 5 the configuration has an error.")))
    }
    static let spec = ArgumentSpec(options: ["--target-ms"], positionals: 1) + JSONOption.spec

    enum Action: String { case show, check, calibrate }

    let action: Action
    let json: JSONOption
    let targetMilliseconds: Int?
    let locations: StoreOptions

    init(_ arguments: ParsedArguments) throws {
        let usage = usageLine(Self.usage)
        guard let action = Action(rawValue: arguments.positional(0) ?? "show") else {
            throw CLIError.usage(L("unknown policy action '%s' (check or calibrate)", String(arguments.positional(0)?.prefix(40) ?? "")), usage)
        }
        self.action = action
        json = JSONOption(arguments)
        targetMilliseconds = try arguments.integer("--target-ms", in: 1...60_000, usage: usage)
        locations = StoreOptions(arguments)
        guard !json.enabled || action == .show else { throw CLIError.usage(L("--json is for 'pingate policy' only"), usage) }
        guard targetMilliseconds == nil || action == .calibrate else {
            throw CLIError.usage(L("--target-ms is for 'pingate policy calibrate' only"), usage)
        }
    }

    func validate(caller: Caller) throws {}

    func run(caller: Caller) throws -> ExitStatus {
        switch action {
        case .show:
            let policy = try locations.policy()
            if json.enabled {
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
        .object([
            ("config", .string(path)), ("config_exists", .bool(configExists(path))),
            ("pin_min_length", .int(policy.pinMinLength)), ("pin_max_length", .int(policy.pinMaxLength)),
            ("pattern_min_cells", .int(policy.patternMinCells)), ("pattern_grid", .int(policy.patternGrid)),
            ("free_failures", .int(policy.lockout.freeFailures)),
            ("lockout_timeouts", .array(policy.lockout.timeouts.map { .int($0) })),
            ("max_failures", .int(policy.lockout.maxFailures)),
            ("kdf_operations", .int(Int64(policy.kdf.operations))), ("kdf_memory", .int(policy.kdf.memoryBytes)),
            ("services", .array(policy.services.map { .string($0) })),
        ])
    }
}

func configExists(_ path: String) -> Bool { access(path, F_OK) == 0 }
