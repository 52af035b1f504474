@testable import PinGateCLI
import PinGateCore
import Testing

/// Each verifier outcome, from the Verifier itself or decoded from the
/// helper's answer, ends the command with the documented exit status
/// (pingate(8)): 0 ok, 1 failed, 4 not enrolled, 5 store, 3 helper refused.
@Suite struct OutcomeMessagesTests {
    static let verifyOutcomes: [(VerifyOutcome, PinGateCLI.ExitStatus)] = [
        (.ok, .ok),
        (.wrong(failures: 1, attemptsLeft: 3, lockedSeconds: 0, disabled: false), .failed),
        (.wrong(failures: 5, attemptsLeft: 0, lockedSeconds: 60, disabled: false), .failed),
        (.wrong(failures: 10, attemptsLeft: 0, lockedSeconds: 0, disabled: true), .failed),
        (.locked(seconds: 300, failures: 6), .failed),
        (.disabled(failures: 10), .failed),
        (.notEnrolled, .notFound),
        (.malformed(.pinHasNonDigit), .failed),
        (.storeError(.message("record is corrupt")), .storeOrConfig),
    ]

    static let statusOutcomes: [(StatusOutcome, PinGateCLI.ExitStatus)] = [
        (.enrolled(kind: .pin, gridSize: 0, pinLength: 4, failures: 0), .ok),
        (.locked(seconds: 60, failures: 5), .failed),
        (.disabled(failures: 10), .failed),
        (.notEnrolled, .notFound),
        (.storeError(.message("store is unsafe")), .storeOrConfig),
    ]

    @Test(arguments: verifyOutcomes)
    func verifyOutcomeHasItsExitStatus(outcome: VerifyOutcome, status: PinGateCLI.ExitStatus) {
        #expect(outcome.failure(kind: .pin, user: "alice")?.status ?? .ok == status)
    }

    @Test(arguments: statusOutcomes)
    func statusOutcomeHasItsExitStatus(outcome: StatusOutcome, status: PinGateCLI.ExitStatus) {
        #expect(outcome.refusal(kind: .pin, user: "alice")?.status ?? .ok == status)
    }

    @Test(arguments: verifyOutcomes)
    func verifyOutcomeDecodedFromTheHelperKeepsItsExitStatus(outcome: VerifyOutcome, status: PinGateCLI.ExitStatus) throws {
        let answer = HelperAnswer(outcome)
        let decoded = try DecodedAnswer(line: answer.line, exitCode: answer.exitCode.rawValue)
        #expect(decoded.verifyOutcome.failure(kind: .pin, user: "alice")?.status ?? .ok == status)
    }

    @Test(arguments: statusOutcomes)
    func statusOutcomeDecodedFromTheHelperKeepsItsExitStatus(outcome: StatusOutcome, status: PinGateCLI.ExitStatus) throws {
        let answer = HelperAnswer(outcome)
        let decoded = try DecodedAnswer(line: answer.line, exitCode: answer.exitCode.rawValue)
        #expect(decoded.statusOutcome.refusal(kind: .pin, user: "alice")?.status ?? .ok == status)
    }

    @Test func wrongWithAttemptsLeftCountsThemInTheMessage() {
        let outcome = VerifyOutcome.wrong(failures: 1, attemptsLeft: 3, lockedSeconds: 0, disabled: false)
        #expect(outcome.failure(kind: .pin, user: "alice")?.message == "wrong PIN for alice (3 attempts left before a timeout)")
        #expect(outcome.failure(kind: .pattern, user: "alice")?.message == "wrong pattern for alice (3 attempts left before a timeout)")
        #expect(outcome.isWrongWithAttemptsLeft)
    }

    @Test func oneAttemptLeftIsSingular() {
        let outcome = VerifyOutcome.wrong(failures: 3, attemptsLeft: 1, lockedSeconds: 0, disabled: false)
        #expect(outcome.failure(kind: .pin, user: "bob")?.message == "wrong PIN for bob (1 attempt left before a timeout)")
    }

    @Test func aWrongSecretThatLocksSaysForHowLong() {
        let outcome = VerifyOutcome.wrong(failures: 5, attemptsLeft: 0, lockedSeconds: 250, disabled: false)
        #expect(outcome.failure(kind: .pin, user: "bob")?.message == "wrong PIN for bob (locked for 4 min 10 s after 5 failed attempts)")
        #expect(!outcome.isWrongWithAttemptsLeft)
    }

    @Test func aWrongSecretThatDisablesNamesUnlock() {
        let outcome = VerifyOutcome.wrong(failures: 10, attemptsLeft: 0, lockedSeconds: 0, disabled: true)
        #expect(outcome.failure(kind: .pattern, user: "bob")?.message == "wrong pattern for bob (it is now disabled; root can run 'pingate unlock bob')")
    }

    @Test func lockedStatusSaysWhoAndHowLong() {
        let refusal = StatusOutcome.locked(seconds: 60, failures: 1).refusal(kind: .pin, user: "carol")
        #expect(refusal?.message == "carol's PIN is locked for 1 min after 1 failed attempt; wait, or root can run 'pingate unlock carol'")
    }

    @Test func notEnrolledSuggestsEnroll() {
        #expect(StatusOutcome.notEnrolled.refusal(kind: nil, user: "dave")?.message
            == "dave has no PIN or pattern; ask an administrator to enrol one (sudo pingate enroll dave)")
    }

    @Test func aMalformedAnswerFromTheHelperKeepsItsWords() throws {
        let decoded = try DecodedAnswer(line: "malformed the new PIN is too easy to guess: it repeats one digit",
                                        exitCode: HelperAnswer.ExitCode.malformed.rawValue)
        #expect(decoded.verifyOutcome.failure(kind: .pin, user: "e")?.message
            == "not a well-formed PIN: the new PIN is too easy to guess: it repeats one digit (nothing was counted)")
    }

    @Test func helperRefusalIsAPermissionErrorAndOtherFailuresAStoreError() {
        #expect(HelperClientError.refused("not your credential").cliError.status == .permission)
        #expect(HelperClientError.garbled("?").cliError.status == .storeOrConfig)
        #expect(HelperClientError.timedOut(path: "/x", seconds: 5).cliError.status == .storeOrConfig)
    }

    @Test func durationsUseUnitSymbols() {
        #expect(Output.duration(45) == "45 s")
        #expect(Output.duration(60) == "1 min")
        #expect(Output.duration(250) == "4 min 10 s")
        #expect(Output.duration(3_600) == "1 h")
        #expect(Output.duration(5_400) == "1 h 30 min")
    }
}
