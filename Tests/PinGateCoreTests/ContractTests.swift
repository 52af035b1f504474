import CPinGateContract
import Foundation
import Testing
@testable import PinGateCore

/// The facts the C module and the Swift side share have one owner each:
/// pam/pingate_protocol.h (the helper protocol, the module's prompts, the
/// default services) and pam/pingate_install.h (paths, modes, multiarch),
/// which the module compiles with and Swift imports; pingate.conf's reader
/// (PolicySettings); the answer grammar, written in C and in Swift and
/// compared here line by line. These tests fail when a second copy appears
/// or a reader drifts, and each shows that it can fail.
@Suite("one contract between C and Swift")
struct ContractTests {
    static let repository = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")

    static func read(_ file: String) throws -> String {
        try String(contentsOfFile: repository + "/" + file, encoding: .utf8)
    }

    // MARK: the protocol header

    /// The `PINGATE_WORD_*` names the header defines.
    static func wordMacros(in header: String) -> Set<String> {
        Set(header.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("#define PINGATE_WORD_") else { return nil }
            return line.dropFirst("#define ".count).split(separator: " ").first.map(String.init)
        })
    }

    @Test("every answer word of the header is one the Swift side and the C answer table know")
    func everyWordOnBothSides() throws {
        let words = Self.wordMacros(in: try Self.read("pam/pingate_protocol.h"))
        #expect(words.count == AnswerWord.allCases.count, "header words: \(words.sorted())")
        let swiftNames = Set(AnswerWord.allCases.map { "PINGATE_WORD_" + $0.rawValue.uppercased().replacingOccurrences(of: "-", with: "_") })
        #expect(words == swiftNames)
        let table = try Self.read("pam/pingate_answer.c")
        for word in words { #expect(table.contains("{ \(word),"), "pam/pingate_answer.c has no row for \(word)") }
    }

    @Test("words and exit statuses are distinct, and only the two successes share exit 0")
    func wordsAndStatuses() {
        #expect(Set(AnswerWord.allCases.map(\.rawValue)).count == AnswerWord.allCases.count)
        let statuses = Dictionary(grouping: AnswerWord.allCases, by: \.exitCode)
        for (status, words) in statuses where words.count > 1 {
            #expect(status == .ok && Set(words) == [.enrolled, .ok], "\(words) share exit \(status.rawValue)")
        }
    }

    @Test("an answer longer than the module reads is cut to fit")
    func longAnswersAreCut() {
        let answer = HelperAnswer(.error, String(repeating: "/very/deep/store", count: 100))
        #expect(answer.line.utf8.count < HelperAnswer.maximumSize)
        #expect(answer.line.hasPrefix("error /very/deep/store"))
    }

    // MARK: one copy of each fact

    /// A fact and the one file allowed to spell it in code.
    struct Fact: CustomStringConvertible {
        let text: String
        let owner: String
        var description: String { text }
    }

    static let facts = [
        Fact(text: "pingate-verify/1", owner: "pam/pingate_protocol.h"),
        Fact(text: "\"PIN: \"", owner: "pam/pingate_protocol.h"),
        Fact(text: "\"Pattern: \"", owner: "pam/pingate_protocol.h"),
        Fact(text: "\"PIN or password: \"", owner: "pam/pingate_protocol.h"),
        Fact(text: "\"Pattern or password\"", owner: "pam/pingate_protocol.h"),
        Fact(text: "\"Type your PIN, or your password\"", owner: "pam/pingate_protocol.h"),
        Fact(text: "\"PINGATE_PASSWORD_ONLY", owner: "pam/pingate_protocol.h"),
        Fact(text: "cinnamon-screensaver gnome-screensaver", owner: "pam/pingate_protocol.h"),
        Fact(text: "/usr/libexec/pingate/pingate-verify", owner: "pam/pingate_install.h"),
        Fact(text: "-linux-gnu", owner: "pam/pingate_install.h"),
        Fact(text: "2755", owner: "pam/pingate_install.h"),
        Fact(text: "\"not-local\"", owner: "pam/pingate_protocol.h"),
        Fact(text: "\"not-enrolled\"", owner: "pam/pingate_protocol.h"),
    ]

    /// The code of the repository (documentation, man pages and tests may
    /// spell the facts: they describe or check them from outside).
    static func codeFiles(under root: String) -> [String] {
        let manager = FileManager.default
        var files: [String] = []
        for directory in ["Sources", "pam", "packaging"] {
            guard let walker = manager.enumerator(atPath: root + "/" + directory) else { continue }
            while let path = walker.nextObject() as? String {
                let file = directory + "/" + path
                let code = file.hasSuffix(".swift") || file.hasSuffix(".c") || file.hasSuffix(".h")
                    || file.hasSuffix(".sh") || file.hasSuffix("Makefile") || file.contains("/debian/")
                guard code, !file.hasPrefix("pam/build/"), !file.hasPrefix("packaging/benchmarks/") else { continue }
                files.append(file)
            }
        }
        return files + ["po/Makefile"]
    }

    /// "file:line" of every code line (comments aside) that spells a fact outside its owner.
    static func copies(of facts: [Fact], under root: String) -> [String] {
        var found: [String] = []
        for file in codeFiles(under: root) {
            guard let text = try? String(contentsOfFile: root + "/" + file, encoding: .utf8) else { continue }
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.drop { $0 == " " || $0 == "\t" }
                if ["//", "/*", "* ", "#"].contains(where: code.hasPrefix) || code == "*" { continue }
                for fact in facts where file != fact.owner && line.contains(fact.text) {
                    found.append("\(file):\(number + 1) spells \(fact.text) (owner: \(fact.owner))")
                }
            }
        }
        return found
    }

    @Test("each shared fact is spelt once, in its owner")
    func oneCopy() throws {
        for fact in Self.facts {
            #expect(try Self.read(fact.owner).contains(fact.text), "\(fact.owner) no longer holds \(fact.text)")
        }
        #expect(Self.codeFiles(under: Self.repository).count > 50)
        #expect(Self.copies(of: Self.facts, under: Self.repository) == [])
    }

    @Test("a second copy is found")
    func secondCopyIsFound() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/Sources/X", withIntermediateDirectories: true)
        try "let prompt = \"PIN: \"\n// \"PIN: \" in a comment is prose\n".write(toFile: root + "/Sources/X/Copy.swift", atomically: true, encoding: .utf8)
        try "HELPER=/usr/libexec/pingate/pingate-verify\n".write(toFile: root + "/Sources/X/layout.sh", atomically: true, encoding: .utf8)
        #expect(Set(Self.copies(of: Self.facts, under: root)) == [
            "Sources/X/Copy.swift:1 spells \"PIN: \" (owner: pam/pingate_protocol.h)",
            "Sources/X/layout.sh:1 spells /usr/libexec/pingate/pingate-verify (owner: pam/pingate_install.h)",
        ])
    }

    @Test("the install scripts read the install facts from the header")
    func installScriptsReadTheHeader() throws {
        let script = "REPO_ROOT='\(Self.repository)'; . \"$REPO_ROOT/packaging/layout.sh\"; echo \"$PINGATE_HELPER $PINGATE_HELPER_MODE $PINGATE_GROUP $PINGATE_MODULE\""
        let output = try Self.run("/bin/bash", ["-c", script])
        #expect(output == "\(PINGATE_HELPER_PATH) \(String(PINGATE_HELPER_MODE, radix: 8)) \(PINGATE_GROUP) /usr/lib/\(PINGATE_MULTIARCH)/security/pam_pingate.so\n")
        let make = try Self.run("/usr/bin/make", ["-s", "-C", Self.repository + "/pam", "-p", "-n", "all"])
        #expect(make.contains("\nMULTIARCH := \(PINGATE_MULTIARCH)\n"))
        // And the header's triplet is the compiler's own idea of this machine.
        #expect(try Self.run("/usr/bin/cc", ["-print-multiarch"]) == PINGATE_MULTIARCH + "\n")
    }

    // MARK: pingate.conf

    @Test("the shipped pingate.conf shows every key, each with its default")
    func shippedConfigShowsTheDefaults() throws {
        let lines = try Self.read("packaging/pingate.conf").split(separator: "\n")
            .filter { $0.wholeMatch(of: /#[a-z_]+ = .*/) != nil }.map { String($0.dropFirst()) }
        let keys = lines.compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(keys == Policy.keys)
        #expect(try ConfigParser.parse(lines.joined(separator: "\n")) == Policy())
    }

    @Test("the policy's keys are listed once: text and JSON come from the same settings")
    func settingsAreOneTable() throws {
        var policy = Policy()
        for setting in Policy.settings { try policy.set(setting.key, to: Policy().value(of: setting.key)) }
        #expect(policy == Policy())
        #expect(Set(Policy.keys).count == Policy.keys.count)
    }

    @Test("a request from a service outside the list is not offered; the admin CLI names none")
    func servicesList() throws {
        var policy = Policy()
        try policy.set("services", to: "sudo, i3lock")
        #expect(policy.allows(service: "sudo"))
        #expect(!policy.allows(service: "sshd"))
        #expect(!policy.allows(service: "(none)"))
        #expect(policy.allows(service: nil))
        #expect(Policy().services.contains("pingate-lock") && !Policy().services.contains("su"))
    }

    // MARK: the answer grammar, C against Swift

    /// Status lines and their exit statuses, well formed and not.
    static let answers: [(Int32, String)] = [
        (0, "enrolled kind=pin length=4 failures=0"), (0, "enrolled kind=pattern grid=4 failures=2"),
        (0, "enrolled kind=pattern failures=2"), (0, "enrolled failures=0"), (0, "enrolled kind=pin"),
        (0, "enrolled kind=pin failures=1 failures=2"), (0, "enrolled kind=pin kind=pin"),
        (0, "enrolled kind=PIN failures=0"), (0, "enrolled kind=pattern grid=2"), (0, "enrolled kind=pattern grid=7"),
        (0, "enrolled kind=pattern grid=03"), (0, "enrolled kind=pin failures=-1"), (0, "enrolled kind=pin failures=+1"),
        (0, "enrolled kind=pin failures= 1"), (0, "enrolled kind=pin failures="), (0, "enrolled kind=pin failures=1000001"),
        (0, "enrolled kind=pin failures=99999999999999999999999"), (0, "enrolled kind=pin future=whatever extra"),
        (0, "enrolled  kind=pin   failures=3 "), (0, " enrolled kind=pin"), (0, "enrolled kind=pin =5 a=b=c"),
        (0, "enrolled kind=pin length=banana failures=0"), (0, "enrolled kind=pin length=0"),
        (0, "enrolled kind=pin length=65"), (0, "enrolled kind=pin length=4 length=4"), (0, "enrolled kind=pin length=12"), (0, "ok"), (0, "ok extra words"), (1, "ok"),
        (1, "wrong failures=3 left=1"), (1, "wrong failures=5 left=0 locked=60"), (1, "wrong failures=10 left=0 disabled"),
        (1, "wrong failures=5 left=0 locked=60 seconds=60"), (1, "wrong failures=5 left=0 locked=100000001"),
        (1, "wrong failures=5 left=0 locked=1e3"), (1, "wrong left=1 left=2"), (1, "wrong disabled=1"),
        (2, "locked seconds=59 failures=5"), (2, "locked seconds=59 failures=5 kind=pattern grid=3"),
        (2, "locked seconds=59 failures=5 kind=pattern"), (2, "locked seconds=x failures=5"), (0, "locked seconds=5"),
        (3, "disabled failures=10"), (3, "disabled failures=10 kind=pin"), (4, "not-enrolled"), (4, "not-enrolled x=y"),
        (5, "malformed a PIN is 4 digits, got 3"), (5, "malformed"), (6, "error /var/lib/pingate: mode 0777 kind=bogus"),
        (7, "refused a user may only ask about their own PIN"), (8, "not-local an ssh session (REMOTE=1)"),
        (9, "not-offered sshd"), (8, "not-offered sshd"), (10, "password-first uid 1000 has no session yet"),
        (10, "password-first"), (9, "password-first x"), (0, ""), (0, "enrolled"), (6, "Error x"), (0, "okay"),
        (0, "enrolled=1 kind=pin"), (2, "locked seconds=100000000 failures=1000000"),
        (0, "ok unseen=2 since=1796000000"), (0, "ok unseen=2 since=1796000000 unseen=3"), (0, "ok unseen=x since=1"),
        (0, "ok unseen=1000001 since=1"), (0, "ok unseen=1 since=100000000001"), (0, "ok unseen=1 since=100000000000"),
        (0, "enrolled kind=pin failures=0 unseen=4 since=1"), (0, "ok since=5"),
        (1, "wrong failures=1 left=4 repeated"), (1, "wrong repeated failures=1 left=4"), (1, "wrong failures=1 left=4 repeated=1"),
        (1, "wrong failures=1 left=4 Repeated"), (0, "ok repeated"), (5, "malformed never cell 0 is outside a 3×3 grid"),
        (5, "malformed never"), (5, "malformed  never  cell 5 is used twice"), (5, "malformed neverland"),
        (5, "malformed a PIN has 6 digits; got 4 never"), (5, "malformed never=1 x"), (6, "error never"),
    ]

    /// What the Swift decoder reads, in the driver's words.
    static func swiftReading(_ status: Int32, _ line: String) -> String {
        do {
            let answer = try DecodedAnswer(line: line, exitCode: status)
            let fields = answer.fields
            let seconds = fields["seconds"] ?? fields["locked"] ?? "0"
            return "accepted \(answer.word.rawValue) kind=\(fields["kind"] ?? "none") grid=\(Int(fields["grid"] ?? "0")!)"
                + " length=\(Int(fields["length"] ?? "0")!)"
                + " failures=\(Int(fields["failures"] ?? "0")!) left=\(Int(fields["left"] ?? "0")!)"
                + " seconds=\(Int(seconds)!) disabled=\(answer.disabled ? 1 : 0)"
                + " unseen=\(Int(fields["unseen"] ?? "0")!) since=\(Int(fields["since"] ?? "0")!)"
                + " repeated=\(answer.repeated ? 1 : 0) never=\(answer.rulesOutEveryCredential ? 1 : 0)"
        } catch .refused {
            return "accepted refused kind=none grid=0 length=0 failures=0 left=0 seconds=0 disabled=0 unseen=0 since=0 repeated=0 never=0"
        } catch {
            return "rejected"
        }
    }

    /// What the module's parser (pam/pingate_answer.c as `source`) reads.
    static func cReadings(source: String, _ answers: [(Int32, String)]) throws -> [String] {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("answer-\(getpid())-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        try source.write(toFile: work + "/pingate_answer.c", atomically: true, encoding: .utf8)
        _ = try run("/usr/bin/cc", ["-Wall", "-Werror", "-D_GNU_SOURCE", "-I", repository + "/pam", work + "/pingate_answer.c",
                                    repository + "/pam/tests/answer_driver.c", "-o", work + "/driver"])
        let input = answers.map { "\($0.0)\t\($0.1)\n" }.joined()
        return try run(work + "/driver", [], input: input).split(separator: "\n").map(String.init)
    }

    @Test("the module and the Swift side read every answer alike")
    func answerGrammarAgrees() throws {
        let c = try Self.cReadings(source: try Self.read("pam/pingate_answer.c"), Self.answers)
        try #require(c.count == Self.answers.count)
        for (index, (status, line)) in Self.answers.enumerated() {
            #expect(Self.swiftReading(status, line) == c[index], "exit \(status): \"\(line)\"")
        }
        #expect(c.filter { $0 == "rejected" }.count > 20 && c.filter { $0 != "rejected" }.count > 20)
    }

    @Test("a change to one side's grammar is caught")
    func grammarDriftIsCaught() throws {
        let drifted = try Self.read("pam/pingate_answer.c").replacingOccurrences(of: "n < 3", with: "n < 2")
        let c = try Self.cReadings(source: drifted, Self.answers)
        let disagreements = Self.answers.indices.filter { Self.swiftReading(Self.answers[$0].0, Self.answers[$0].1) != c[$0] }
        #expect(disagreements.map { Self.answers[$0].1 } == ["enrolled kind=pattern grid=2"])
    }

    // MARK: helpers

    /// Runs a program; its stdout, or an error naming its stderr.
    static func run(_ program: String, _ arguments: [String], input: String = "") throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let (stdin, stdout, stderr) = (Pipe(), Pipe(), Pipe())
        (process.standardInput, process.standardOutput, process.standardError) = (stdin, stdout, stderr)
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw RunError(description: "\(program) exited \(process.terminationStatus): \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: output, as: UTF8.self)
    }

    struct RunError: Error, CustomStringConvertible { let description: String }
}
