import Testing
@testable import PinGateCore

/// Where Debian 13's libpam (Linux-PAM 1.7.0) reads a stack differently from
/// Debian 12's (1.5.2), and how the installed one is told.
@Suite("the two libpams the stack reader follows")
struct PAMDialectTests {
    static let lines = PAMLineAssemblyTests.lines
    static let line = PAMLineAssemblyTests.line

    @Test("the version dpkg has installed picks the dialect; 1.6 and later read the 1.7 way")
    func versions() {
        #expect(PAMDialect.forVersion("1.5.2-6+deb12u1") == .linuxPAM15)
        #expect(PAMDialect.forVersion("1.7.0-5") == .linuxPAM17)
        #expect(PAMDialect.forVersion("1.6.1-1") == .linuxPAM17)
        #expect(PAMDialect.forVersion("1:1.10.0-1") == .linuxPAM17)
        #expect(PAMDialect.forVersion("nonsense") == .linuxPAM15)
        let status = """
            Package: libpam0g
            Status: deinstall ok config-files
            Version: 1.4.0-9

            Package: libpam0g
            Status: install ok installed
            Priority: required
            Description: Pluggable Authentication Modules library
             Version: 9.9.9
            Version: 1.7.0-5

            """
        #expect(PAMDialect.installedVersion(of: "libpam0g", inStatus: Array(status.utf8)) == "1.7.0-5")
        #expect(PAMDialect.installed(root: "/nonexistent-root") == .linuxPAM15)
    }

    @Test("1.7.0 reads a line of any length whole; 1.5.2 cuts it at 1023 bytes")
    func longLines() {
        let long = "auth required pam_x.so " + String(repeating: "a", count: 2000) + "\n"
        #expect(Self.lines(long, .linuxPAM17) == [Self.line(long, 1), .end])
        #expect(Self.lines(long, .linuxPAM15).count == 3)   // 1023 bytes, the rest, then the end
    }

    @Test("in 1.7.0 a comment or blank line ends a continuation; 1.5.2 skips it and joins on")
    func commentsInsideAContinuation() {
        let text = "auth required \\\n# note\npam_x.so\n"
        #expect(Self.lines(text, .linuxPAM17) == [Self.line("auth required  ", 1), Self.line("pam_x.so\n", 3), .end])
        #expect(Self.lines(text, .linuxPAM15) == [Self.line("auth required  pam_x.so\n", 1), .end])
        #expect(Self.lines("auth required \\\n\npam_x.so\n", .linuxPAM17)
            == [Self.line("auth required  \n", 1), Self.line("pam_x.so\n", 3), .end])
    }

    @Test("1.7.0: continuations join with a space, a # ends the line, comments and blanks alone are no line")
    func likeBefore() {
        #expect(Self.lines("# c \\\n\n  auth required \\  \t\n pam_x.so a # b\n", .linuxPAM17)
            == [Self.line("auth required  pam_x.so a ", 3), .end])
        #expect(Self.lines("auth required \\\n", .linuxPAM17) == [.failure(.unfinished, lineNumber: 1)])
    }

    @Test("1.7.0 refuses a jump over INT_MAX (every value bad); 1.5.2 lets it wrap around")
    func bigJumps() throws {
        let modern = try #require(PAMActions.parsing(control: Array("success=2147483648 default=ignore".utf8), dialect: .linuxPAM17))
        #expect(modern[.success] == .bad && modern[.authErr] == .bad)
        let fits = try #require(PAMActions.parsing(control: Array("success=2147483647".utf8), dialect: .linuxPAM17))
        #expect(fits[.success].jump == Int(Int32.max))
        let old = try #require(PAMActions.parsing(control: Array("success=2147483648 default=ignore".utf8), dialect: .linuxPAM15))
        #expect(old[.success] == PAMAction(rawValue: Int32.min) && old[.authErr] == .ignore)
    }

    /// include-1 includes include-2 … include-N, which holds the module.
    static func chain(_ root: StagedPAMRoot, depth: Int, include: String) throws {
        for level in 1..<depth { try root.stack("chain-\(level)", include + "chain-\(level + 1)") }
        try root.stack("chain-\(depth)", "auth required pam_deep.so")
        try root.stack("sudo", include + "chain-1")
    }

    @Test("1.7.0 follows 15 nested includes; the 16th is a rule that always fails, a 16th @include abandons the service")
    func nesting() throws {
        let root = try StagedPAMRoot()
        try Self.chain(root, depth: 15, include: "auth include ")
        #expect(PAMStackReader(root: root.path, dialect: .linuxPAM17).authStack(service: "sudo").rules.map(\.kind)
            == [.module(PAMModulePath(written: "pam_deep.so", resolved: PAMDialect.linuxPAM17.securityDirectory + "pam_deep.so",
                                      installed: false), silent: false)])
        try Self.chain(root, depth: 16, include: "auth include ")
        #expect(PAMStackReader(root: root.path, dialect: .linuxPAM17).authStack(service: "sudo").rules.map(\.kind)
            == [.failing(.nestedTooDeep("/etc/pam.d/chain-16"))])
        #expect(PAMStackReader(root: root.path, dialect: .linuxPAM15).authStack(service: "sudo").rules.count == 1)
        try Self.chain(root, depth: 16, include: "@include ")
        let stack = PAMStackReader(root: root.path, dialect: .linuxPAM17).authStack(service: "sudo")
        #expect(stack.failure?.reason == .includedTooDeep("/etc/pam.d/chain-16") && stack.rules.isEmpty)
        // Inside an `auth include`, the 16th `@include` fails where it stands and the rest runs.
        for level in 1..<16 { try root.stack("chain-\(level)", "auth required pam_a\(level).so", "@include chain-\(level + 1)") }
        try root.stack("chain-16", "auth required pam_deep.so")
        try root.stack("sudo", "auth include chain-1", "auth required pam_after.so")
        let mixed = PAMStackReader(root: root.path, dialect: .linuxPAM17).authStack(service: "sudo")
        #expect(mixed.failure == nil)
        #expect(mixed.rules.count == 17 && mixed.rules[15].kind == .failing(.nestedTooDeep("/etc/pam.d/chain-16")))
        #expect(mixed.rules.last?.module?.written == "pam_after.so")
    }

    @Test("1.7.0's modules live in /usr/lib")
    func moduleDirectory() throws {
        let root = try StagedPAMRoot()
        try root.stack("sudo", "auth required pam_unix.so")
        try root.write(PAMDialect.linuxPAM17.securityDirectory + "pam_unix.so", "")
        #expect(PAMStackReader(root: root.path, dialect: .linuxPAM17).authStack(service: "sudo").rules.first?.module?.installed == true)
        #expect(PAMStackReader(root: root.path, dialect: .linuxPAM15).authStack(service: "sudo").rules.first?.module?.installed == false)
    }
}
