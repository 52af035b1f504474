import Foundation
import Testing
@testable import PinGateCore

/// A staged root in a temporary directory: stacks under etc/pam.d (or any
/// path) and empty files for modules, removed when it goes.
final class StagedPAMRoot {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("pingate-pam-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path + "/etc/pam.d", withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// /etc/pam.d/NAME (or the absolute NAME), one line each.
    func stack(_ name: String, _ lines: String...) throws {
        try write(name.hasPrefix("/") ? name : "/etc/pam.d/" + name, lines.map { $0 + "\n" }.joined())
    }

    func write(_ file: String, _ text: String) throws {
        let url = URL(fileURLWithPath: path + file)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// An (empty) module file under the security directory.
    func module(_ name: String) throws { try write(PAMStackReader.securityDirectory + name, "") }

    func read(_ service: String) -> PAMStack { PAMStackReader(root: path).authStack(service: service) }
}

extension PAMStack {
    /// "pam_x.so a b@/etc/pam.d/sudo:3" for each rule; a failing rule by its
    /// failure, a substack by its name.
    var summary: [String] {
        rules.map { rule in
            let what: String
            switch rule.kind {
            case let .module(path, _): what = ([path.written] + rule.arguments).joined(separator: " ")
            case let .substack(name): what = "substack " + name
            case let .failing(failure): what = "fails: \(failure)"
            }
            return String(repeating: ">", count: rule.level) + what + "@" + rule.origin.description
        }
    }
}

@Suite("the auth stack as libpam reads it")
struct PAMStackReaderTests {
    @Test("include, substack and @include are read where they stand; other types are skipped")
    func includes() throws {
        let root = try StagedPAMRoot()
        try root.stack("svc", "auth required pam_a.so", "@include common", "auth substack sub", "account required pam_z.so",
                       "auth include /opt/abs", "session optional pam_s.so")
        try root.stack("common", "auth required pam_b.so", "password required pam_p.so")
        try root.stack("sub", "auth required pam_c.so x")
        try root.stack("/opt/abs", "auth sufficient pam_d.so")
        #expect(root.read("svc").summary == [
            "pam_a.so@/etc/pam.d/svc:1", "pam_b.so@/etc/pam.d/common:1", "substack sub@/etc/pam.d/svc:3",
            ">pam_c.so x@/etc/pam.d/sub:1", "pam_d.so@/opt/abs:1",
        ])
    }

    @Test("the two stacks the awk reader got wrong: a comment ending in a backslash, a control against its path")
    func reproducedCases() throws {
        let root = try StagedPAMRoot()
        try root.stack("sudo", "# second factor for admins \\", "auth required pam_google_authenticator.so",
                       "auth [success=ok default=die]pam_u2f.so", "@include common-auth")
        try root.stack("common-auth", "auth required pam_unix.so")
        let stack = root.read("sudo")
        #expect(stack.summary == ["pam_google_authenticator.so@/etc/pam.d/sudo:2", "pam_u2f.so@/etc/pam.d/sudo:3",
                                  "pam_unix.so@/etc/pam.d/common-auth:1"])
        #expect(stack.rules[1].actions[.success] == .ok && stack.rules[1].actions[.authErr] == .die)
    }

    @Test("Debian's libpam reads includes from /etc/pam.d only, never /usr/lib/pam.d")
    func includesOnlyFromEtc() throws {
        let root = try StagedPAMRoot()
        try root.stack("svc", "auth include vendor")
        try root.stack("/usr/lib/pam.d/vendor", "auth required pam_v.so")
        #expect(root.read("svc").summary == ["fails: /etc/pam.d/vendor cannot be read@/etc/pam.d/svc:1"])
    }

    @Test("the service itself is looked for in /etc/pam.d, then /usr/lib/pam.d; its name in lower case")
    func serviceInUsrLib() throws {
        let root = try StagedPAMRoot()
        try root.stack("/usr/lib/pam.d/svc", "auth required pam_v.so")
        let stack = root.read("SVC")
        #expect(stack.file == "/usr/lib/pam.d/svc" && stack.summary == ["pam_v.so@/usr/lib/pam.d/svc:1"])
    }

    @Test("a service without auth rules of its own, or without a file, runs \"other\"'s")
    func other() throws {
        let root = try StagedPAMRoot()
        try root.stack("other", "auth required pam_deny.so")
        try root.stack("svc", "account required pam_a.so")
        #expect(root.read("svc").fromOther && root.read("svc").summary == ["pam_deny.so@/etc/pam.d/other:1"])
        #expect(root.read("nosuch").file == nil && root.read("nosuch").summary == ["pam_deny.so@/etc/pam.d/other:1"])
    }

    @Test("an include libpam cannot read is a rule that always fails, in the place of its line")
    func missingInclude() throws {
        let root = try StagedPAMRoot()
        try root.stack("svc", "auth required pam_a.so", "auth include missing", "auth substack missing", "auth required pam_b.so")
        let stack = root.read("svc")
        #expect(stack.summary == ["pam_a.so@/etc/pam.d/svc:1", "fails: /etc/pam.d/missing cannot be read@/etc/pam.d/svc:2",
                                  "substack missing@/etc/pam.d/svc:3", "fails: /etc/pam.d/missing cannot be read@/etc/pam.d/svc:3",
                                  "pam_b.so@/etc/pam.d/svc:4"])
        #expect(PAMReturn.allCases.allSatisfy { stack.rules[1].actions[$0] == .bad })
    }

    @Test("an @include libpam cannot read in the service's own file makes it give up on the service")
    func missingAtInclude() throws {
        let root = try StagedPAMRoot()
        try root.stack("svc", "auth required pam_a.so", "@include missing")
        let stack = root.read("svc")
        #expect(stack.rules.isEmpty && stack.failure == PAMStackFailure(reason: .unreadableInclude("/etc/pam.d/missing"),
                                                                          origin: PAMOrigin(file: "/etc/pam.d/svc", line: 2)))
    }

    @Test("... but inside an auth include it is only a rule that always fails")
    func missingAtIncludeInsideAnInclude() throws {
        let root = try StagedPAMRoot()
        try root.stack("svc", "auth include inner")
        try root.stack("inner", "auth required pam_a.so", "@include missing", "auth required pam_b.so")
        #expect(root.read("svc").summary == ["pam_a.so@/etc/pam.d/inner:1", "fails: /etc/pam.d/missing cannot be read@/etc/pam.d/inner:2",
                                             "pam_b.so@/etc/pam.d/inner:3"])
    }

    @Test("a file libpam stops reading keeps the rules read before; its include becomes a failing rule")
    func partialFile() throws {
        let root = try StagedPAMRoot()
        try root.stack("svc", "auth include inner", "auth required pam_c.so")
        try root.write("/etc/pam.d/inner", "auth required pam_a.so\nauth required pam_b.so \\\n")
        #expect(root.read("svc").summary == ["pam_a.so@/etc/pam.d/inner:1", "fails: /etc/pam.d/inner cannot be read@/etc/pam.d/svc:1",
                                             "pam_c.so@/etc/pam.d/svc:2"])
    }

    @Test("substacks nest at most 15 deep; the 16th is a failing rule")
    func substackLimit() throws {
        let root = try StagedPAMRoot()
        try root.stack("svc", "auth substack s1")
        for level in 1...20 { try root.stack("s\(level)", "auth required pam_\(level).so", "auth substack s\(level + 1)") }
        let summary = root.read("svc").summary
        #expect(summary.contains(String(repeating: ">", count: 15) + "pam_15.so@/etc/pam.d/s15:1"))
        #expect(summary.last == String(repeating: ">", count: 15) + "fails: /etc/pam.d/s16 is nested too deep@/etc/pam.d/s15:2")
    }

    @Test("includes nest without libpam's limit; an include loop is cut at 32 files")
    func includeLoop() throws {
        let root = try StagedPAMRoot()
        try root.stack("svc", "auth include loop")
        try root.stack("loop", "auth required pam_a.so", "auth include loop")
        let summary = root.read("svc").summary
        #expect(summary.count == 32 && summary.last == "fails: /etc/pam.d/loop is nested too deep@/etc/pam.d/loop:2")
    }

    @Test("types are case-insensitive, a - only silences a missing module, an unknown type is a failing auth rule")
    func types() throws {
        let root = try StagedPAMRoot()
        try root.module("pam_a.so")
        try root.stack("svc", "AUTH required pam_a.so", "-auth optional pam_gone.so", "auht required pam_c.so", "[auth] required pam_d.so")
        let stack = root.read("svc")
        #expect(stack.summary == ["pam_a.so@/etc/pam.d/svc:1", "pam_gone.so@/etc/pam.d/svc:2",
                                  "fails: unknown type 'auht'@/etc/pam.d/svc:3", "pam_d.so@/etc/pam.d/svc:4"])
        #expect(stack.rules[0].module?.installed == true && stack.rules[1].module?.installed == false)
        #expect(stack.rules[1].kind == .module(PAMModulePath(written: "pam_gone.so", resolved: PAMStackReader.securityDirectory + "pam_gone.so",
                                                             installed: false), silent: true))
    }

    @Test("a rule without a control or a module always fails; a misspelt control makes every result bad")
    func incompleteRules() throws {
        let root = try StagedPAMRoot()
        try root.stack("svc", "auth", "auth required", "auth sufficent pam_a.so")
        let stack = root.read("svc")
        #expect(stack.summary == ["fails: no control@/etc/pam.d/svc:1", "fails: no module@/etc/pam.d/svc:2", "pam_a.so@/etc/pam.d/svc:3"])
        #expect(stack.rules[2].actions[.success] == .bad)
    }

    @Test("an include without a name crashes Debian's libpam: the stack is unusable")
    func includeWithoutName() throws {
        let root = try StagedPAMRoot()
        try root.stack("svc", "auth required pam_a.so", "auth include")
        #expect(root.read("svc").failure?.reason == .includeWithoutName)
    }

    @Test("a module path without a name makes libpam give up on the file")
    func emptyModuleName() throws {
        let root = try StagedPAMRoot()
        try root.stack("svc", "auth required pam_a.so", "account required /lib/.so")
        #expect(root.read("svc").failure?.reason == .badModuleName("/lib/.so"))
    }

    @Test("an include of a directory reads as empty, as fopen and fgets do")
    func directoryInclude() throws {
        let root = try StagedPAMRoot()
        try FileManager.default.createDirectory(atPath: root.path + "/etc/pam.d/dir", withIntermediateDirectories: true)
        try root.stack("svc", "auth include dir", "auth required pam_a.so")
        #expect(root.read("svc").summary == ["pam_a.so@/etc/pam.d/svc:2"])
    }

    @Test("a service named other fills \"other\"'s list, so libpam runs it twice")
    func serviceNamedOther() throws {
        let root = try StagedPAMRoot()
        try root.stack("other", "auth required pam_a.so")
        #expect(root.read("other").summary == ["pam_a.so@/etc/pam.d/other:1", "pam_a.so@/etc/pam.d/other:1"])
    }
}
