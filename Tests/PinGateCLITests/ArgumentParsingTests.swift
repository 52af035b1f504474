@testable import PinGateCLI
import PinGateCore
import Testing

/// Parsing from the declarations: every command's options, good and bad
/// input, usage errors that name the argument and carry the usage line,
/// help, and the checks shared before validate().
@Suite struct ArgumentParsingTests {
    func command<C: Command>(_ words: [String], as type: C.Type) throws -> C {
        guard case let .command(command, _) = try RootCommand.invocation(words) else {
            Issue.record("\(words) did not give a command")
            throw CLIError.cancelled
        }
        return try #require(command as? C)
    }

    func usageError(_ words: [String]) -> CLIError? {
        do { _ = try RootCommand.invocation(words) } catch let error as CLIError { return error } catch { return nil }
        return nil
    }

    func helpText(_ words: [String]) throws -> String? {
        guard case let .output(text) = try RootCommand.invocation(words) else { return nil }
        return text
    }

    // MARK: usage lines and help come from the declarations

    @Test func usageLinesAreDerived() {
        #expect(EnrollCommand.usage == "pingate enroll USER [--pin | --pattern [--grid R]] [--stdin] [--force] [--allow-weak]")
        #expect(ChangeCommand.usage == "pingate change [USER] [--pin | --pattern [--grid R]] [--stdin] [--allow-weak]")
        #expect(RemoveCommand.usage == "pingate remove USER")
        #expect(UnlockCommand.usage == "pingate unlock USER")
        #expect(StatusCommand.usage == "pingate status [USER] [--json]")
        #expect(ListCommand.usage == "pingate list [--json]")
        #expect(VerifyCommand.usage == "pingate verify USER [--stdin]")
        #expect(PolicyCommand.usage == "pingate policy [--json] | pingate policy check | pingate policy calibrate [--target-ms N]")
        #expect(DoctorCommand.usage == "pingate doctor")
        #expect(HelpCommand.usage == "pingate help [COMMAND]")
    }

    @Test(arguments: ["enroll", "change", "remove", "status", "unlock", "list", "verify", "policy", "doctor", "help"])
    func helpOfEveryCommandIsOutputWithItsUsage(name: String) throws {
        let viaFlag = try #require(try helpText([name, "--help"]))
        #expect(viaFlag.contains("usage: pingate \(name)"))
        #expect(viaFlag.contains("Global options:"))
    }

    @Test func helpRowsFollowTheDeclarations() throws {
        let help = try #require(try helpText(["enroll", "--help"]))
        #expect(help.contains("  --pin          enrol a PIN (the default)"))
        #expect(help.contains("  --grid R       pattern grid size, 3 to 6 (default: pattern_grid)"))
        #expect(help.contains("  --allow-weak   accept a PIN that is easy to guess"))
        let change = try #require(try helpText(["change", "--help"]))
        #expect(change.contains("  --pin, --pattern   switch to a PIN or a pattern"))
    }

    @Test func helpWinsOverAMissingUser() throws {
        #expect(try helpText(["remove", "--help"])?.contains("usage: pingate remove USER") == true)
    }

    @Test func rootHelpAndVersion() throws {
        #expect(try helpText(["--help"])?.contains("Commands:") == true)
        #expect(try helpText(["-h"])?.contains("--version") == true)
        #expect(try helpText(["--version"]) == "pingate 0.3.0")
    }

    // MARK: enroll

    @Test func enrollDefaultsToAPIN() throws {
        let enroll = try command(["enroll", "alice"], as: EnrollCommand.self)
        #expect(enroll.userName == "alice")
        #expect(enroll.kind == .pin)
        #expect(enroll.gridSize == nil)
        #expect(!enroll.force && !enroll.allowWeak && !enroll.stdin)
    }

    @Test func enrollTakesEveryOption() throws {
        let enroll = try command(["enroll", "--pattern", "--grid=4", "alice", "--stdin", "--force", "--allow-weak",
                                  "--store", "/s", "--config=/c"], as: EnrollCommand.self)
        #expect(enroll.kind == .pattern)
        #expect(enroll.gridSize == 4)
        #expect(enroll.force && enroll.allowWeak && enroll.stdin)
        #expect(enroll.locations.storeDirectory == "/s")
        #expect(enroll.locations.configPath == "/c")
    }

    @Test func globalOptionsBeforeTheCommandAreHandedOn() throws {
        let enroll = try command(["--store", "/s", "enroll", "alice"], as: EnrollCommand.self)
        #expect(enroll.locations.storeDirectory == "/s")
    }

    @Test func enrollRefusesBadInputNamingTheArgument() {
        let cases: [([String], String)] = [
            (["enroll"], "missing USER"),
            (["enroll", "alice", "--bogus"], "unknown option '--bogus'"),
            (["enroll", "alice", "bob"], "unexpected argument 'bob'"),
            (["enroll", "alice", "--pin", "--pattern"], "--pin and --pattern cannot be used together"),
            (["enroll", "alice", "--grid", "4"], "--grid needs --pattern"),
            (["enroll", "alice", "--pattern", "--grid", "9"], "--grid must be a whole number from 3 to 6, got '9'"),
            (["enroll", "alice", "--pattern", "--grid"], "--grid needs a value"),
            (["enroll", "alice", "--grid="], "--grid needs a value"),
            (["enroll", "alice", "--force", "--force"], "--force is given twice"),
            (["enroll", "alice", "--force=yes"], "unknown option '--force'"),
        ]
        for (words, message) in cases {
            let error = usageError(words)
            #expect(error?.status == .usage, "\(words)")
            #expect(error?.message == message, "\(words)")
            #expect(error?.usageLine == "usage: " + EnrollCommand.usage, "\(words)")
        }
    }

    @Test func doubleDashEndsTheOptions() throws {
        let remove = try command(["remove", "--", "--odd-name"], as: RemoveCommand.self)
        #expect(remove.userName == "--odd-name")
    }

    // MARK: change, status, verify, list

    @Test func changeKeepsTheKindUnlessAsked() throws {
        #expect(try command(["change"], as: ChangeCommand.self).kind == nil)
        #expect(try command(["change", "bob", "--pattern"], as: ChangeCommand.self).kind == .pattern)
        #expect(try command(["change", "--grid", "5"], as: ChangeCommand.self).gridSize == 5)
        #expect(usageError(["change", "--pin", "--grid", "4"])?.message == "--grid is for patterns, not with --pin")
    }

    @Test func statusListAndVerify() throws {
        let status = try command(["status", "--json"], as: StatusCommand.self)
        #expect(status.userName == nil && status.json)
        #expect(try command(["list"], as: ListCommand.self).json == false)
        let verify = try command(["verify", "alice", "--stdin"], as: VerifyCommand.self)
        #expect(verify.userName == "alice" && verify.stdin)
        #expect(usageError(["verify"])?.message == "missing USER")
        #expect(usageError(["list", "alice"])?.message == "unexpected argument 'alice'")
        #expect(usageError(["status", "--stdin"])?.message == "unknown option '--stdin'")
    }

    // MARK: policy

    @Test func policyActionsAndTheirOptions() throws {
        #expect(try command(["policy"], as: PolicyCommand.self).action == .show)
        #expect(try command(["policy", "--json"], as: PolicyCommand.self).json)
        #expect(try command(["policy", "check"], as: PolicyCommand.self).action == .check)
        let calibrate = try command(["policy", "calibrate", "--target-ms", "250"], as: PolicyCommand.self)
        #expect(calibrate.action == .calibrate && calibrate.targetMilliseconds == 250)
        #expect(usageError(["policy", "frob"])?.message == "unknown policy action 'frob' (check or calibrate)")
        #expect(usageError(["policy", "check", "--json"])?.message == "--json is for 'pingate policy' only")
        #expect(usageError(["policy", "--target-ms", "5"])?.message == "--target-ms is for 'pingate policy calibrate' only")
        #expect(usageError(["policy", "calibrate", "--target-ms", "0"])?.message == "--target-ms must be a whole number from 1 to 60000, got '0'")
    }

    // MARK: key

    @Test func keyActionsAndTheirOptions() throws {
        #expect(try command(["key", "seal"], as: KeyCommand.self).pcrs == [])
        #expect(try command(["key", "seal", "--pcr", "7,0, 7"], as: KeyCommand.self).pcrs == [0, 7])
        #expect(try command(["key", "status", "--json"], as: KeyCommand.self).json)
        #expect(try command(["key", "unseal"], as: KeyCommand.self).action == .unseal)
        #expect(usageError(["key"])?.message == "key needs an action: seal, load, status or unseal")
        #expect(usageError(["key", "seal", "--pcr", "24"])?.message == "--pcr takes PCR numbers from 0 to 23 separated by commas, like 7 or 0,2,7; got '24'")
        #expect(usageError(["key", "seal", "--pcr", "7,x"]) != nil)
        #expect(usageError(["key", "load", "--pcr", "7"])?.message == "--pcr is for 'pingate key seal' only")
        #expect(usageError(["key", "seal", "--json"])?.message == "--json is for 'pingate key status' only")
    }

    // MARK: the root command

    @Test func rootUsageErrors() {
        #expect(usageError([])?.message == "a command is needed")
        #expect(usageError(["frobnicate"])?.message == "unknown command 'frobnicate'")
        #expect(usageError(["--bogus"])?.message == "unknown option '--bogus'")
        #expect(usageError(["--store"])?.message == "--store needs a value")
        #expect(usageError(["frobnicate"])?.usageLine?.hasPrefix("usage: pingate COMMAND [ARGUMENTS] [--store DIR] [--config FILE]") == true)
    }

    @Test func helpCommandChecksItsTopic() throws {
        let help = try command(["help", "bogus"], as: HelpCommand.self)
        #expect(throws: CLIError.self) { try help.validate(caller: Caller(uid: 0)) }
    }

    // MARK: checks before validate()

    func authorizationError(_ words: [String], uid: UInt32) throws -> CLIError? {
        guard case let .command(command, parsed) = try RootCommand.invocation(words) else { return nil }
        do { try RootCommand.authorize(command, parsed, caller: Caller(uid: uid)) } catch let error as CLIError { return error }
        return nil
    }

    @Test(arguments: ["enroll alice", "remove alice", "unlock alice", "list", "doctor"])
    func rootOnlyCommandsRefuseOthers(words: String) throws {
        let error = try authorizationError(words.split(separator: " ").map(String.init), uid: 1000)
        #expect(error?.status == .permission)
        #expect(error?.message.contains("must be run as root") == true)
    }

    @Test func rootOnlyOptionsAreNamedForOthers() throws {
        #expect(try authorizationError(["change", "--allow-weak"], uid: 1000)?.message == "--allow-weak is for root only")
        #expect(try authorizationError(["status", "--config", "/c"], uid: 1000)?.message == "--config is for root only")
        #expect(try authorizationError(["--store", "/s", "status"], uid: 1000)?.status == .permission)
        #expect(try authorizationError(["policy", "check", "--config", "/c"], uid: 1000) == nil)
        #expect(try authorizationError(["policy", "--store", "/s"], uid: 0) == nil)
    }

    @Test func everyCommandParsesWithOnlyTheGlobalOptions() throws {
        for type in RootCommand.commands {
            let names = type.declarations.map(\.name)
            #expect(Set(names).count == names.count, "\(type.name) declares a name twice")
        }
    }
}
