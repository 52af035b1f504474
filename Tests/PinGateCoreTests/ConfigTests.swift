import CPinGateContract
import Testing
@testable import PinGateCore

@Suite("pingate.conf")
struct ConfigTests {
    @Test("an empty file gives the documented defaults (pingate.conf(5))")
    func defaults() throws {
        let policy = try ConfigParser.parse("")
        #expect(policy == Policy())
        #expect(policy.pinMinLength == 4 && policy.pinMaxLength == 4)
        #expect(policy.lockout.freeFailures == 4 && policy.lockout.maxFailures == 10)
        #expect(policy.lockout.timeouts == [60, 300, 900, 1_800, 5_400])
        #expect(policy.patternMinCells == 4 && policy.patternGrid == 3)
        #expect(policy.services.contains("sudo") && policy.services.contains("swaylock"))
    }

    @Test("keys, comments, units and blank lines")
    func values() throws {
        let text = """
        # PinGate policy
        pin_min_length = 4
        pin_max_length = 6   # allow 6-digit PINs

        lockout_timeouts = 30s 2m 1h
        max_failures=8
        kdf_memory = 32M
        kdf_operations = 3
        services = sudo, i3lock
        """
        let policy = try ConfigParser.parse(text)
        #expect(policy.pinMaxLength == 6)
        #expect(policy.lockout.timeouts == [30, 120, 3_600])
        #expect(policy.lockout.maxFailures == 8)
        #expect(policy.kdf == KDFParameters(operations: 3, memoryBytes: 32 << 20))
        #expect(policy.services == ["sudo", "i3lock"])
    }

    @Test("lines ending in CR LF read as the same lines; text beyond ASCII in a comment or an error is kept whole")
    func lineEndingsAndNonASCII() throws {
        let policy = try ConfigParser.parse("# café, 密碼\r\nmax_failures = 8\r\nservices = sudo # 鎖屏\r\n")
        #expect(policy.lockout.maxFailures == 8)
        #expect(policy.services == ["sudo"])
        #expect(throws: ConfigError(path: "/etc/pingate/pingate.conf", line: 2, problem: .notKeyValue(got: "pin_длина"))) {
            try ConfigParser.parse("\npin_длина\n")
        }
    }

    @Test("list values are cut at spaces, tabs and commas, at their bytes; the default services are pingate_protocol.h's list")
    func listValues() {
        #expect(listItems(" sudo,,login\ti3lock , ") == ["sudo", "login", "i3lock"])
        #expect(listItems("").isEmpty && listItems(" , \t").isEmpty)
        #expect(listItems("pingate-lock") == ["pingate-lock"])
        #expect(listItems("café,密碼 x") == ["café", "密碼", "x"])
        #expect(Policy.defaultServices.joined(separator: " ") == PINGATE_DEFAULT_SERVICES)
        #expect(Policy.defaultServices.count == 19 && Policy.defaultServices.last == "greetd")
    }

    @Test("an unknown key is an error naming the line, with a suggestion")
    func unknownKey() {
        #expect(throws: ConfigError(path: "/etc/pingate/pingate.conf", line: 3, problem: .unknownKey("max_failure", suggestions: ["max_failures"]))) {
            try ConfigParser.parse("# x\n\nmax_failure = 3\n")
        }
    }

    @Test("a key missing a word names the keys that have it: pin_length")
    func keyMissingAWord() {
        #expect(throws: ConfigError(path: "/etc/pingate/pingate.conf", line: 1,
                                    problem: .unknownKey("pin_length", suggestions: ["pin_min_length", "pin_max_length"]))) {
            try ConfigParser.parse("pin_length = 6\n")
        }
        #expect(ConfigProblem.unknownKey("pin_length", suggestions: ["pin_min_length", "pin_max_length"]).description
                == "unknown key 'pin_length' (did you mean 'pin_min_length' or 'pin_max_length'?)")
        #expect(ConfigProblem.unknownKey("max_failure", suggestions: ["max_failures"]).description
                == "unknown key 'max_failure' (did you mean 'max_failures'?)")
    }

    @Test("a key set twice names both lines")
    func keySetTwice() {
        #expect(throws: ConfigError(path: "/etc/pingate/pingate.conf", line: 4, problem: .setTwice(key: "max_failures", firstLine: 2))) {
            try ConfigParser.parse("# x\nmax_failures = 3\nfree_failures = 1\n  max_failures=4\n")
        }
    }

    @Test("a service is listed byte for byte, not by Unicode's equivalence")
    func servicesByBytes() throws {
        let policy = try ConfigParser.parse("services = Kde sudo\n")
        #expect(policy.allows(service: "Kde"))
        #expect(!policy.allows(service: "\u{212A}de"))  // KELVIN SIGN, canonically equal to "K"
        #expect(!policy.allows(service: "kde"))
        #expect(policy.allows(service: nil))
    }

    @Test("bad values are errors naming the line", arguments: [
        ("pin_min_length = 3", 1), ("pin_max_length = four", 1), ("\nlockout_timeouts = 5x", 2),
        ("kdf_memory = 1K", 1), ("pattern_grid = 7", 1), ("max_failures", 1), ("services = sudo;rm", 1),
        ("free_failures = 2\nfree_failures = 3", 2),
        // PAM service names are ASCII: a combining mark after a separator
        // (a list cut at its bytes starts an item with it) or any other
        // letter would name no service, or one Unicode calls equal to another.
        ("services = sudo \u{345}login", 1), ("services = sudo,\u{903}x", 1), ("services = sudo l\u{F6}gin", 1),
    ])
    func badValues(text: String, line: Int) {
        do {
            _ = try ConfigParser.parse(text)
            Issue.record("expected an error for \(text)")
        } catch let error as ConfigError {
            #expect(error.line == line, "\(error)")
            #expect(error.description.hasPrefix("/etc/pingate/pingate.conf:\(line): "))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("settings that contradict each other are an error")
    func contradictions() {
        #expect(throws: ConfigError.self) { try ConfigParser.parse("pin_min_length = 8\npin_max_length = 6") }
        #expect(throws: ConfigError.self) { try ConfigParser.parse("free_failures = 10\nmax_failures = 5") }
    }

    @Test("every key prints back as text that parses to the same policy")
    func roundTrip() throws {
        var policy = Policy()
        try policy.set("lockout_timeouts", to: "45s 5m 2h")
        try policy.set("kdf_memory", to: "96M")
        let text = Policy.keys.map { "\($0) = \(policy.value(of: $0))" }.joined(separator: "\n")
        #expect(try ConfigParser.parse(text) == policy)
    }

    @Test("a missing file means the defaults")
    func missingFile() throws {
        #expect(try ConfigParser.load(path: "/nonexistent/pingate.conf") == Policy())
    }
}
