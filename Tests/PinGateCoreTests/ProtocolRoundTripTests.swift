import Testing
@testable import PinGateCore

/// The protocol's Swift side both ways: a request that the client encodes is
/// the request the helper parses, and an answer the helper writes decodes
/// into the outcome it was made from.
@Suite("the helper protocol round-trips")
struct ProtocolRoundTripTests {
    /// Whether `value` holds the bytes of `text`.
    func holds(_ value: borrowing Secret?, _ text: String) -> Bool {
        switch value {
        case let .some(value): return value.constantTimeEquals(secret(text))
        case .none: return false
        }
    }

    func parse(_ request: borrowing HelperRequest) throws -> HelperRequest {
        try request.encoded().withUnsafeBytes { try HelperRequest.parsing($0) }
    }

    @Test("a change request with every field parses back to the same fields")
    func changeRequest() throws {
        let sent = HelperRequest(operation: .change, user: "alice", service: "pingate", tty: "pts/3", remoteHost: "localhost",
                                 secret: secret("0427"), newKind: .pattern, newGridSize: 4,
                                 newSecret: secret("4:1-2-3-4"))
        let read = try parse(sent)
        #expect(read.operation == .change && read.user == "alice")
        #expect(read.service == "pingate" && read.tty == "pts/3" && read.remoteHost == "localhost")
        #expect(read.newKind == .pattern && read.newGridSize == 4)
        let secretsMatch = holds(read.secret, "0427") && holds(read.newSecret, "4:1-2-3-4")
        #expect(secretsMatch)
    }

    @Test("the notice shown before a verify travels with it: how many, and when the first was")
    func shownNotice() throws {
        var sent = HelperRequest(operation: .verify, user: "alice", secret: secret("0427"))
        sent.shownFailures = 2
        sent.shownSince = 1_764_900_000
        let read = try parse(sent)
        #expect(read.shownNotice == FailureNotice(failures: 2, firstAt: 1_764_900_000))
        #expect(try parse(HelperRequest(operation: .verify, user: "alice", secret: secret("0427"))).shownNotice == nil)
    }

    @Test("a root caller's facts about its own caller travel with the request")
    func callerFacts() throws {
        var sent = HelperRequest(operation: .status, user: "alice", remoteHost: "")
        sent.callerUID = 1000
        sent.callerPID = 4242
        sent.allowRemote = true
        let read = try parse(sent)
        #expect(read.callerUID == 1000 && read.callerPID == 4242 && read.allowRemote)
        let facts = CallerFacts(request: read, realUID: 0)
        #expect(facts == CallerFacts(uid: 1000, pid: 4242, remoteHost: "", allowRemote: true))
    }

    @Test("a non-root caller is judged by itself, whatever facts it writes")
    func nonRootFactsIgnored() throws {
        var sent = HelperRequest(operation: .verify, user: "alice", remoteHost: "ssh.example", secret: secret("0427"))
        sent.callerUID = 0
        sent.callerPID = 1
        sent.allowRemote = true
        let facts = CallerFacts(request: try parse(sent), realUID: 1000)
        #expect(facts == CallerFacts(uid: 1000, pid: 0, remoteHost: "ssh.example", allowRemote: false))
    }

    @Test("caller facts that are not numbers are refused", arguments: ["caller_uid=-1", "caller_uid=x", "caller_pid=0", "caller_pid=-5", "allow_remote=yes"])
    func badCallerFacts(line: String) {
        let text = "pingate-verify/1\nop=status\nuser=alice\n\(line)\n"
        #expect(throws: HelperRequest.ParseError.self) {
            try Array(text.utf8).withUnsafeBytes { _ = try HelperRequest.parsing($0) }
        }
    }

    @Test("a status request carries no secret and starts with the version line")
    func statusRequest() throws {
        let encoded = HelperRequest(operation: .status, user: "bob").encoded()
        let text = encoded.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        #expect(text == "pingate-verify/1\nop=status\nuser=bob\n")
        let carriesSecret = try parse(HelperRequest(operation: .status, user: "bob")).secret.isPresent
        #expect(!carriesSecret)
    }

    @Test("a status may ask for its verify to follow in the same run (then=verify)")
    func followUp() throws {
        var sent = HelperRequest(operation: .status, user: "alice")
        sent.followUp = .verify
        #expect(try parse(sent).followUp == .verify)
        #expect(try parse(HelperRequest(operation: .status, user: "alice")).followUp == nil)
    }

    @Test("then= is refused on anything but a status, and with any value but verify",
          arguments: ["op=verify\nuser=alice\nsecret=0427\nthen=verify", "op=status\nuser=alice\nthen=change",
                      "op=status\nuser=alice\nthen=status", "op=status\nuser=alice\nthen=verify\nthen=verify"])
    func badFollowUp(lines: String) {
        let text = "pingate-verify/1\n\(lines)\n"
        #expect(throws: HelperRequest.ParseError.self) {
            try Array(text.utf8).withUnsafeBytes { _ = try HelperRequest.parsing($0) }
        }
    }

    static let verifyOutcomes: [VerifyOutcome] = [
        .ok,
        .wrong(failures: 1, attemptsLeft: 4, lockedSeconds: 0, disabled: false),
        .wrong(failures: 5, attemptsLeft: 0, lockedSeconds: 60, disabled: false),
        .wrong(failures: 10, attemptsLeft: 0, lockedSeconds: 0, disabled: true),
        .repeatedWrong(failures: 1, attemptsLeft: 4),
        .locked(seconds: 42, failures: 6),
        .disabled(failures: 10),
        .notEnrolled,
        .notLocal("session 4 is remote"),
        .malformed(.reported("a PIN has 4 digits; got 3")),
        .storeError(.message("record /var/lib/pingate/1000.record is busy")),
    ]

    @Test("every verify outcome decodes from the answer it becomes", arguments: verifyOutcomes)
    func verifyAnswers(outcome: VerifyOutcome) throws {
        let answer = HelperAnswer(outcome)
        let decoded = try DecodedAnswer(line: answer.line, exitCode: answer.exitCode.rawValue)
        #expect(decoded.verifyOutcome == outcome)
    }

    static let statusOutcomes: [StatusOutcome] = [
        .enrolled(kind: .pin, gridSize: 0, pinLength: 6, failures: 2),
        .enrolled(kind: .pattern, gridSize: 5, pinLength: 0, failures: 0),
        .locked(seconds: 300, failures: 6),
        .disabled(failures: 10),
        .notEnrolled,
        .notLocal("uid 1000 has no display session (lingering, or logged out)"),
        .storeError(.message("key /var/lib/pingate/machine.key is missing")),
    ]

    @Test("every status outcome decodes from the answer it becomes", arguments: statusOutcomes)
    func statusAnswers(outcome: StatusOutcome) throws {
        let answer = HelperAnswer(outcome)
        let decoded = try DecodedAnswer(line: answer.line, exitCode: answer.exitCode.rawValue)
        #expect(decoded.statusOutcome == outcome)
    }

    @Test("the wrong answer of last time, again, says so: wrong, exit 1, the count as it stands")
    func repeatedWrongOnTheWire() throws {
        let answer = HelperAnswer(VerifyOutcome.repeatedWrong(failures: 1, attemptsLeft: 4))
        #expect(answer.line == "wrong failures=1 left=4 repeated" && answer.exitCode == .wrong)
        let first = try DecodedAnswer(line: HelperAnswer(VerifyOutcome.wrong(failures: 1, attemptsLeft: 4, lockedSeconds: 0, disabled: false)).line, exitCode: 1)
        #expect(!first.repeated && first.verifyOutcome == .wrong(failures: 1, attemptsLeft: 4, lockedSeconds: 0, disabled: false))
    }

    /// Input no pingate.conf could make a credential is `malformed never`;
    /// input that broke a rule as it is now may be an older credential.
    static let malformedInputs: [(CredentialError, Bool)] = [
        (.patternCellOutsideGrid(cell: 0, grid: 3), true), (.patternCellRepeated(cell: 2), true),
        (.patternTooLong(grid: 3), true), (.patternSyntax, true), (.patternGridMismatch(expected: 3, got: 4), true),
        (.pinHasNonDigit, true), (.empty, true),
        (.pinLength(minimum: 6, maximum: 6, got: 4), false), (.patternTooShort(minimum: 5, got: 4), false),
        (.patternDigitsNeedSeparators(grid: 4), false), (.reported("a PIN has 4 digits; got 3"), false),
    ]

    @Test("a malformed answer says never when no rule change could make the input a credential", arguments: malformedInputs)
    func malformedNever(error: CredentialError, never: Bool) throws {
        let answer = HelperAnswer(VerifyOutcome.malformed(error))
        #expect(answer.line == (never ? "malformed never \(error)" : "malformed \(error)"))
        let decoded = try DecodedAnswer(line: answer.line, exitCode: answer.exitCode.rawValue)
        #expect(decoded.rulesOutEveryCredential == never)
        #expect(decoded.verifyOutcome == .malformed(.reported(error.description)))
    }

    @Test("a locked answer names the kind it locks")
    func lockedKind() throws {
        let answer = HelperAnswer(StatusOutcome.locked(seconds: 60, failures: 5)).describingCredential(kind: .pattern, gridSize: 4)
        let decoded = try DecodedAnswer(line: answer.line, exitCode: answer.exitCode.rawValue)
        #expect(decoded.kind == .pattern && decoded.gridSize == 4)
    }

    @Test("a status answer to a verification is never a success")
    func enrolledIsNoVerification() throws {
        let decoded = try DecodedAnswer(line: "enrolled kind=pin length=4 failures=0", exitCode: 0)
        #expect(decoded.verifyOutcome != .ok)
    }

    @Test("a refusal is thrown, and so is a word that disagrees with its exit status")
    func refusalsAndGarbage() {
        #expect(throws: HelperClientError.refused("a user may only ask about their own PIN")) {
            try DecodedAnswer(line: "refused a user may only ask about their own PIN", exitCode: 7)
        }
        for (line, status) in [("ok", Int32(1)), ("okay", 0), ("", 0), ("wrong failures=1", 0)] {
            #expect(throws: HelperClientError.self) { try DecodedAnswer(line: line, exitCode: status) }
        }
    }

    @Test("a typed failure is answered with its description: 'error …', exit 6")
    func typedFailureOnTheWire() throws {
        let outOfMemory = VerifyOutcome.storeError(.hashing(.outOfMemory(bytes: 64 << 20)))
        let answer = HelperAnswer(outOfMemory)
        #expect(answer.line == "error Argon2id could not allocate 64 MiB; lower kdf_memory in pingate.conf")
        #expect(answer.exitCode == .error)
        let decoded = try DecodedAnswer(line: answer.line, exitCode: answer.exitCode.rawValue)
        #expect(decoded.verifyOutcome == .storeError(.message(String(answer.line.dropFirst("error ".count)))))
    }
}
