@testable import PinGateCLI
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
}
