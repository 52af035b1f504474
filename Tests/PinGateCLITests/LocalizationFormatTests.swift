@testable import PinGateCLI
import Glibc
import Testing
import PinGateText

/// The printf subset that fills translated messages (`MessageFormat.fill`),
/// and `L`/`LP` with no catalogue loaded: the C locale, English.
@Suite struct LocalizationFormatTests {
    @Test func fillsConversionsInOrder() {
        #expect(MessageFormat.fill("%s has %d", ["alice", "3"]) == "alice has 3")
    }

    @Test func positionalConversionsMayReorder() {
        #expect(MessageFormat.fill("%2$s before %1$s", ["one", "two"]) == "two before one")
    }

    @Test func aPositionalConversionSetsWhereTheNextPlainOneReads() {
        #expect(MessageFormat.fill("%2$s %s", ["a", "b", "c"]) == "b c")
    }

    @Test func doublePercentIsOnePercent() {
        #expect(MessageFormat.fill("100%% of %s", ["x"]) == "100% of x")
    }

    @Test func otherConversionsAreLeftAsWritten() {
        #expect(MessageFormat.fill("%x and %s", ["y"]) == "%x and y")
        #expect(MessageFormat.fill("ends with %", []) == "ends with %")
    }

    @Test func missingArgumentsBecomeEmpty() {
        #expect(MessageFormat.fill("%s-%s", ["a"]) == "a-")
        #expect(MessageFormat.fill("%5$s!", ["a"]) == "!")
    }

    @Test func argumentTextIsNeverReadAsAFormat() {
        #expect(MessageFormat.fill("%s", ["%d %s %%"]) == "%d %s %%")
    }

    @Test func lWithoutACatalogueFillsTheEnglish() {
        #expect(L("no such user '%s'; check the name with 'getent passwd'", "bob")
            == "no such user 'bob'; check the name with 'getent passwd'")
    }

    @Test func lpChoosesSingularForOneInTheCLocale() {
        #expect(LP("%d problem found", "%d problems found", 1) == "1 problem found")
    }

    @Test(arguments: [0, 2, 17])
    func lpChoosesPluralForOtherCounts(count: Int) {
        #expect(LP("%d problem found", "%d problems found", count) == "\(count) problems found")
    }

    @Test func lpPutsTheCountFirstForPositionalConversions() {
        let text = LP("%2$s's PIN is disabled after %1$d failed attempt; root can run 'pingate unlock %2$s'",
                      "%2$s's PIN is disabled after %1$d failed attempts; root can run 'pingate unlock %2$s'", 3, "alice")
        #expect(text == "alice's PIN is disabled after 3 failed attempts; root can run 'pingate unlock alice'")
    }

    @Test func displayWidthCountsEscapeSequencesAsNothing() {
        #expect(Localization.displayWidth("abc") == 3)
        #expect(Localization.displayWidth("\u{1B}[7m●\u{1B}[0m") == Localization.displayWidth("●"))
    }

    @Test func wrappingBreaksAtSpacesWithinTheWidth() {
        #expect(Localization.wrapped("one two three", width: 8) == ["one two", "three"])
    }

    @Test func aWordLongerThanTheWidthIsCutWithoutLosingACharacter() {
        let word = "abcdefghijklmnopqrstuvwxyz"
        let lines = Localization.wrapped(word, width: 10)
        #expect(lines == ["abcdefghij", "klmnopqrst", "uvwxyz"])
        #expect(lines.joined() == word)
        #expect(Localization.wrapped("see /var/lib/pingate/machine.key now", width: 12)
            == ["see", "/var/lib/pin", "gate/machine", ".key now"])
    }

    @Test func aWordEndingAtTheWidthLeavesNoEmptyLineAndNoLeadingSpace() {
        #expect(Localization.wrapped("one two six", width: 3) == ["one", "two", "six"])
    }

    @Test func chineseIsCutBetweenCharactersByDisplayWidth() throws {
        try withUTF8CharacterWidths {
            let text = "密码错误次数过多请稍后再试"  // 13 characters, 26 columns, no space
            let lines = Localization.wrapped(text, width: 7)
            #expect(lines == ["密码错", "误次数", "过多请", "稍后再", "试"])
            #expect(lines.joined() == text)
            let mixed = "pingate-verify使用说明"
            #expect(Localization.wrapped(mixed, width: 8) == ["pingate-", "verify使", "用说明"])
            #expect(Localization.wrapped(mixed, width: 8).joined() == mixed)
        }
    }
}

/// Runs `body` with this thread's character type UTF-8, so that wcwidth
/// gives a CJK character two columns: the test process is in the C locale.
func withUTF8CharacterWidths(_ body: () throws -> Void) throws {
    let utf8 = try #require(newlocale(LC_CTYPE_MASK, "C.UTF-8", nil), "no C.UTF-8 locale")
    let previous = uselocale(utf8)
    defer {
        uselocale(previous)
        freelocale(utf8)
    }
    try #require(Localization.displayWidth("密") == 2)
    try body()
}
