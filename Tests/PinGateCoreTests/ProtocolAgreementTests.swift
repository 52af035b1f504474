import Foundation
import Testing
@testable import PinGateCore

/// The module (C) and the helper (Swift) share one contract, written down
/// in pam/pingate_protocol.h. These tests read that header and fail when a
/// constant on the Swift side says something else.
@Suite("the C and Swift sides of the helper protocol agree")
struct ProtocolAgreementTests {
    /// `#define NAME value` of pam/pingate_protocol.h, with continued lines
    /// joined and adjacent string literals concatenated.
    static let definitions: [String: String] = {
        let header = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        let path = "/" + header + "/pam/pingate_protocol.h"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
        var result: [String: String] = [:]
        let logicalLines = text.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
        for line in logicalLines where line.hasPrefix("#define ") {
            let parts = line.dropFirst("#define ".count).split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { continue }
            result[String(parts[0])] = literal(String(parts[1]))
        }
        return result
    }()

    /// `"a " "b"` → `a b`; `42` → `42`.
    static func literal(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("\"") else { return trimmed }
        return trimmed.split(separator: "\"", omittingEmptySubsequences: false)
            .enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }.joined()
    }

    func defined(_ name: String) throws -> String {
        try #require(Self.definitions[name], "pam/pingate_protocol.h defines \(name)")
    }

    @Test("the version line and the size limits")
    func versionAndLimits() throws {
        #expect(try defined("PINGATE_PROTOCOL_VERSION_LINE") == HelperRequest.versionLine)
        #expect(try defined("PINGATE_REQUEST_MAX") == String(HelperRequest.maximumSize))
        #expect(try defined("PINGATE_ANSWER_MAX") == String(HelperAnswer.maximumSize))
    }

    @Test("every answer word, spelt alike, with the same exit status", arguments: AnswerWord.allCases)
    func answerWords(word: AnswerWord) throws {
        let name = macroName(word)
        #expect(try defined("PINGATE_WORD_\(name)") == word.rawValue)
        let exitName = word == .enrolled ? "OK" : name
        #expect(try defined("PINGATE_EXIT_\(exitName)") == String(word.exitCode.rawValue))
    }

    @Test("the C side has no answer word or exit status the Swift side lacks")
    func nothingExtraInC() {
        let words = Set(AnswerWord.allCases.map { "PINGATE_WORD_" + macroName($0) })
        let exits = Set(AnswerWord.allCases.map { "PINGATE_EXIT_" + ($0 == .enrolled ? "OK" : macroName($0)) })
        for name in Self.definitions.keys where name.hasPrefix("PINGATE_WORD_") { #expect(words.contains(name), "\(name)") }
        for name in Self.definitions.keys where name.hasPrefix("PINGATE_EXIT_") { #expect(exits.contains(name), "\(name)") }
    }

    @Test("the default services are the same list")
    func defaultServices() throws {
        let services = try defined("PINGATE_DEFAULT_SERVICES").split(separator: " ").map(String.init)
        #expect(services == Policy.defaultServices)
        #expect(!services.contains("su"))
        // install.sh writes the list into pingate.conf's comment, from its own copy.
        #expect(Self.setting("PINGATE_DEFAULT_SERVICES=", in: "packaging/install.sh") == "\"" + services.joined(separator: " ") + "\"")
    }

    /// The one line of `file` (relative to the repository) that starts with `prefix`, after it.
    static func setting(_ prefix: String, in file: String) -> String? {
        let root = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        guard let text = try? String(contentsOfFile: "/" + root + "/" + file, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    @Test("the helper's installed path is the same for the module's build, the installers and the Swift client")
    func helperPath() {
        #expect(Self.setting("HELPER_PATH ?= ", in: "pam/Makefile") == HelperClient.installedPath)
        #expect(Self.setting("PINGATE_HELPER=", in: "packaging/layout.sh") == HelperClient.installedPath)
        #expect(Self.setting("#define PINGATE_HELPER_PATH ", in: "pam/pingate_module.h") == "\"\(HelperClient.installedPath)\"")
    }

    @Test("an answer longer than the module reads is cut to fit")
    func longAnswersAreCut() {
        let answer = HelperAnswer(.error, String(repeating: "/very/deep/store", count: 100))
        #expect(answer.line.utf8.count < HelperAnswer.maximumSize)
        #expect(answer.line.hasPrefix("error /very/deep/store"))
    }

    private func macroName(_ word: AnswerWord) -> String {
        word.rawValue.uppercased().replacingOccurrences(of: "-", with: "_")
    }
}
