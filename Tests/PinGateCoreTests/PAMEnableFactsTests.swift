import Testing
@testable import PinGateCore

/// What `install.sh --enable` and `pingate doctor` learn from a stack.
@Suite("what a PIN would skip")
struct PAMEnableFactsTests {
    static let debianCommonAuth = [
        "auth [success=1 default=ignore] pam_unix.so nullok", "auth requisite pam_deny.so",
        "auth required pam_permit.so", "auth optional pam_cap.so",
    ]

    static func root(commonAuth: [String] = debianCommonAuth) throws -> StagedPAMRoot {
        let root = try StagedPAMRoot()
        try root.write("/etc/pam.d/common-auth", commonAuth.map { $0 + "\n" }.joined())
        return root
    }

    static func guards(_ facts: PAMEnableFacts) -> [String] { facts.guards.map { "\($0.name) \($0.origin)" } }

    @Test("the line goes before the first include that brings auth rules, after pam_nologin and an account include")
    func insertionBeforeTheInclude() throws {
        let root = try Self.root()
        try root.stack("common-account", "account required pam_unix.so")
        try root.stack("login", "# login", "@include common-account", "auth requisite pam_nologin.so", "", "@include common-auth")
        let facts = PAMEnableFacts(root.read("login"))
        #expect(facts.insertionLine == 5 && facts.guards.isEmpty && facts.pinGateRules.isEmpty)
    }

    @Test("without an include, the line goes before the first auth rule; without auth rules there is none")
    func insertionBeforeTheFirstRule() throws {
        let root = try Self.root()
        try root.stack("plain", "account required pam_unix.so", "auth \\", "  required pam_unix.so")
        #expect(PAMEnableFacts(root.read("plain")).insertionLine == 2)
        try root.stack("other", "auth required pam_deny.so")
        try root.stack("none", "account required pam_unix.so")
        #expect(PAMEnableFacts(root.read("none")).insertionLine == nil)
    }

    @Test("a second factor hidden from the awk reader behind a comment ending in a backslash is a guard")
    func commentBackslash() throws {
        let root = try Self.root()
        try root.stack("sudo", "@include common-auth", "# second factor \\", "auth required pam_google_authenticator.so")
        #expect(Self.guards(PAMEnableFacts(root.read("sudo"))) == ["pam_google_authenticator /etc/pam.d/sudo:3"])
    }

    @Test("a second factor whose control is written against its path is a guard")
    func controlAgainstPath() throws {
        let root = try Self.root()
        try root.stack("sudo", "@include common-auth", "auth [success=ok default=die]pam_u2f.so")
        #expect(Self.guards(PAMEnableFacts(root.read("sudo"))) == ["pam_u2f /etc/pam.d/sudo:2"])
    }

    @Test("common-auth's pam_deny is jumped over by the password; one the password reaches is the admin closing the service")
    func pamDeny() throws {
        let root = try Self.root()
        try root.stack("login", "auth requisite pam_nologin.so", "@include common-auth")
        try root.stack("i3lock", "auth include login", "auth required pam_deny.so")
        #expect(Self.guards(PAMEnableFacts(root.read("i3lock"))) == ["pam_deny(unconditional) /etc/pam.d/i3lock:2"])
    }

    @Test("a pam_pingate.so success that jumps over a pam_deny does not make it structure")
    func pinGateJumpIsNoPasswordSuccess() throws {
        let root = try Self.root()
        try root.stack("svc", "auth include inner")
        try root.stack("inner", "auth sufficient pam_pingate.so", "auth required pam_deny.so")
        let stack = root.read("svc")
        #expect(PAMPINRule.all(in: stack).first?.skippedGuards.map(\.name) == ["pam_deny(unconditional)"])
    }

    @Test("a module outside the security directories is never taken for the plain one")
    func pathOutsideSecurityDirectories() throws {
        let root = try Self.root()
        try root.stack("sudo", "@include common-auth", "auth optional /opt/evil/pam_unix.so",
                       "auth optional /usr/lib/x86_64-linux-gnu/security/pam_env.so", "auth optional /lib/security/pam_cap.so")
        #expect(Self.guards(PAMEnableFacts(root.read("sudo"))) == ["/opt/evil/pam_unix.so /etc/pam.d/sudo:2"])
    }

    @Test("a rule libpam cannot use, and a stack it gives up on, are guards")
    func unusable() throws {
        let root = try Self.root()
        try root.stack("sudo", "@include common-auth", "auth include common-auth-local", "auht required pam_unix.so")
        #expect(Self.guards(PAMEnableFacts(root.read("sudo"))) == [
            "(unreadable:/etc/pam.d/common-auth-local) /etc/pam.d/sudo:2", "(unknown-type:auht) /etc/pam.d/sudo:3",
        ])
        try root.stack("broken", "@include common-auth", "@include common-auth-local")
        #expect(Self.guards(PAMEnableFacts(root.read("broken"))) == ["(unreadable:/etc/pam.d/common-auth-local) /etc/pam.d/broken:2"])
    }

    @Test("a stack runs pam_pingate.so through common-auth, not through a comment")
    func enabledThroughCommonAuth() throws {
        let root = try Self.root(commonAuth: ["auth [success=2 default=ignore] pam_pingate.so forward_pass"] + Self.debianCommonAuth)
        try root.stack("sudo", "@include common-auth")
        #expect(PAMEnableFacts(root.read("sudo")).pinGateRules == [PAMOrigin(file: "/etc/pam.d/common-auth", line: 1)])
        try root.stack("login", "auth required pam_unix.so # was pam_pingate.so", "#auth sufficient pam_pingate.so")
        #expect(PAMEnableFacts(root.read("login")).pinGateRules.isEmpty)
    }

    @Test("pam-auth-update's jump skips only pam_unix and its pam_deny; a sufficient PinGate line skips the rest of the stack")
    func whatAPINSkips() throws {
        let root = try Self.root(commonAuth: ["auth [success=2 default=ignore] pam_pingate.so forward_pass"] + Self.debianCommonAuth)
        try root.stack("sudo", "@include common-auth", "auth required pam_u2f.so")
        let profile = try #require(PAMPINRule.all(in: root.read("sudo")).first)
        #expect(profile.skippedGuards.isEmpty)
        try root.stack("common-auth", Self.debianCommonAuth[0])
        try root.stack("swaylock", "auth sufficient pam_pingate.so forward_pass", "@include common-auth", "auth required pam_u2f.so")
        #expect(PAMPINRule.all(in: root.read("swaylock")).first?.skippedGuards == [
            PAMGuard(name: "pam_u2f", origin: PAMOrigin(file: "/etc/pam.d/swaylock", line: 3), writtenModule: "pam_u2f.so"),
        ])
    }

    @Test("done inside a substack ends only the substack; a jump counts a substack as one rule")
    func skipsRespectSubstacks() throws {
        let root = try StagedPAMRoot()
        try root.stack("svc", "auth substack inner", "auth required pam_u2f.so", "auth [success=1 default=ignore] pam_a.so",
                       "auth substack inner", "auth required pam_b.so")
        try root.stack("inner", "auth sufficient pam_pingate.so", "auth required pam_oath.so")
        let rules = root.read("svc").rules
        #expect(rules.skipped(bySuccessOf: 1) == [2])           // pingate in the first substack: only pam_oath
        #expect(rules.skipped(bySuccessOf: 4) == [5, 6, 7])     // pam_a's jump: the whole second substack
    }
}
