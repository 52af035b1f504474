@testable import PinGateCLI
import Testing

/// The printf subset that fills translated messages: `Localization.format`.
@Suite struct LocalizationFormatTests {
    @Test func fillsConversionsInOrder() {
        #expect(Localization.format("%s has %d", ["alice", "3"]) == "alice has 3")
    }
}
