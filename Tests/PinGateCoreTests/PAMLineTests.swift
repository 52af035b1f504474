import Testing
@testable import PinGateCore

/// What libpam 1.5.2's `_pam_assemble_line` makes of a file's bytes.
@Suite("PAM lines as libpam assembles them")
struct PAMLineAssemblyTests {
    static func lines(_ text: String, _ dialect: PAMDialect = .linuxPAM15) -> [PAMLineAssembler.Step] {
        var assembler = PAMLineAssembler(Array(text.utf8), dialect: dialect)
        var steps: [PAMLineAssembler.Step] = []
        while true {
            let step = assembler.next()
            steps.append(step)
            if case .line = step { continue }
            return steps
        }
    }

    static func line(_ text: String, at number: Int) -> PAMLineAssembler.Step {
        .line(PAMAssembledLine(text: Array(text.utf8), lineNumber: number))
    }

    @Test("a comment that ends in a backslash joins nothing: the next line is a rule")
    func commentEndingInABackslash() {
        #expect(Self.lines("# hidden? \\\nauth required pam_x.so\n") == [Self.line("auth required pam_x.so\n", at: 2), .end])
    }

    @Test("a backslash before trailing blanks joins the next line, with a space for it")
    func continuation() {
        #expect(Self.lines("auth required \\  \t\npam_x.so a\n") == [Self.line("auth required  pam_x.so a\n", at: 1), .end])
    }

    @Test("blank and comment lines inside a continuation are skipped")
    func commentsInsideAContinuation() {
        #expect(Self.lines("auth required \\\n# note\n\n  pam_x.so\n") == [Self.line("auth required    pam_x.so\n", at: 1), .end])
    }

    @Test("a # after text ends the line there, a backslash before it included")
    func hashEndsTheLine() {
        #expect(Self.lines("auth required pam_x.so a# b \\\nauth optional pam_y.so\n")
            == [Self.line("auth required pam_x.so a", at: 1), Self.line("auth optional pam_y.so\n", at: 2), .end])
    }

    @Test("\\r is no blank: a backslash before \\r\\n joins nothing and \\r stays in the text")
    func carriageReturn() {
        #expect(Self.lines("auth required pam_x.so \\\r\nauth optional pam_y.so\r\n")
            == [Self.line("auth required pam_x.so \\\r\n", at: 1), Self.line("auth optional pam_y.so\r\n", at: 2), .end])
    }

    @Test("a line longer than 1023 bytes is cut there and its rest read as the next line")
    func longLine() {
        let long = "auth required pam_x.so " + String(repeating: "y", count: 1100)
        let steps = Self.lines(long + "\n")
        #expect(steps == [Self.line(String(long.prefix(1023)), at: 1), Self.line(String(long.dropFirst(1023)) + "\n", at: 1), .end])
    }

    @Test("a continuation at the end of the file makes libpam give up on the file")
    func continuationAtTheEnd() {
        #expect(Self.lines("auth required pam_x.so\nauth optional \\\n")
            == [Self.line("auth required pam_x.so\n", at: 1), .failure(.unfinished, lineNumber: 2)])
    }

    @Test("a continuation that fills the buffer to its last byte is libpam 1.5.2's endless loop")
    func endlessLoop() {
        let text = String(repeating: "a", count: 1022) + "\\" + "\nauth required pam_x.so\n"
        #expect(Self.lines(text) == [.failure(.endless, lineNumber: 1)])
    }

    @Test("joined lines longer than the buffer are cut like a long line, the rest read as the next line")
    func joinedTooLong() {
        let text = String(repeating: "a", count: 600) + " \\\n" + String(repeating: "b", count: 600) + " \\\n" + "c\n"
        let first = String(repeating: "a", count: 600) + "  " + String(repeating: "b", count: 421)
        let second = String(repeating: "b", count: 179) + "  c\n"
        #expect(Self.lines(text) == [Self.line(first, at: 1), Self.line(second, at: 2), .end])
    }

    @Test("a NUL byte ends the line's text")
    func nulByte() {
        #expect(Self.lines("auth required pam_x.so\0 ignored\nauth optional pam_y.so\n")
            == [Self.line("auth required pam_x.so", at: 1), Self.line("auth optional pam_y.so\n", at: 2), .end])
    }
}

@Suite("PAM words as libpam splits them")
struct PAMWordTests {
    static func words(_ text: String) -> [String] {
        var tokenizer = PAMTokenizer(Array(text.utf8))
        return tokenizer.remainingWords().map(\.text)
    }

    @Test("a [...] control holds spaces, and what follows its ] is the next word without a space")
    func bracketThenPath() {
        #expect(Self.words("auth [success=ok default=die]pam_u2f.so cue") == ["auth", "success=ok default=die", "pam_u2f.so", "cue"])
    }

    @Test("\\] inside brackets is a ], and brackets may wrap any word")
    func escapedBracket() {
        #expect(Self.words("[auth] required pam_x.so [a b\\]c] d") == ["auth", "required", "pam_x.so", "a b]c", "d"])
    }

    @Test("an unclosed bracket runs to the end of the line")
    func unclosedBracket() {
        #expect(Self.words("auth [success=ok pam_x.so") == ["auth", "success=ok pam_x.so"])
    }

    @Test("only space, tab and newline separate words")
    func separators() {
        #expect(Self.words("auth\trequired \u{0B}pam_x.so\r\n") == ["auth", "required", "\u{0B}pam_x.so\r"])
    }
}

@Suite("PAM controls as libpam parses them")
struct PAMControlTests {
    static func actions(_ control: String) -> PAMActions? { PAMActions.parsing(control: Array(control.utf8)) }

    @Test("the control words are case-insensitive")
    func words() throws {
        let sufficient = try #require(Self.actions("SUFFICIENT"))
        #expect(sufficient[.success] == .done && sufficient[.authErr] == .ignore)
        let required = try #require(Self.actions("Required"))
        #expect(required[.success] == .ok && required[.ignore] == .ignore && required[.authErr] == .bad)
        let requisite = try #require(Self.actions("requisite"))
        #expect(requisite[.authErr] == .die && requisite[.ignore] == .ignore)
        let optional = try #require(Self.actions("optional"))
        #expect(optional[.success] == .ok && optional[.authErr] == .ignore)
        #expect(Self.actions("Include") == nil && Self.actions("substack") == nil)
    }

    @Test("value=action pairs in order; default fills what is still unset; the rest is bad")
    func pairs() throws {
        let actions = try #require(Self.actions(" success = 2  new_authtok_reqd=done default=ignore auth_err=die"))
        #expect(actions[.success].jump == 2 && actions[.newAuthtokReqd] == .done)
        #expect(actions[.authErr] == .die && actions[.ignore] == .ignore && actions[.userUnknown] == .ignore)
        let unset = try #require(Self.actions("success=ok"))
        #expect(unset[.ignore] == .bad)
    }

    @Test("any error makes every value bad, as a misspelt control word does")
    func errors() throws {
        for control in ["successful=ok", "success=okay", "success=0", "success", "success=", "sufficent", "Success=ok"] {
            let actions = try #require(Self.actions(control))
            #expect(PAMReturn.allCases.allSatisfy { actions[$0] == .bad }, "\(control)")
        }
    }

    @Test("a jump number overflows as libpam's int does")
    func overflow() throws {
        let actions = try #require(Self.actions("success=4294967295"))
        #expect(actions[.success] == .ok)  // -1
    }
}
