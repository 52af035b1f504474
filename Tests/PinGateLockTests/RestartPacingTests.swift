import Testing
@testable import PinGateLock

@Suite("The UI is started again at once, then slower when it keeps failing")
struct RestartPacingTests {
    @Test("a lone failure waits 0.1 s; the fourth in 10 s waits 2 s")
    func backsOff() {
        var pacing = RestartPacing()
        #expect(pacing.due(at: 0))
        pacing.failed(at: 100)
        #expect(!pacing.due(at: 100.05) && pacing.due(at: 100.1))
        pacing.failed(at: 101)
        pacing.failed(at: 102)
        #expect(pacing.due(at: 102.1))
        pacing.failed(at: 103)
        #expect(!pacing.due(at: 104.9) && pacing.due(at: 105))
    }

    @Test("failures older than 10 s are forgotten; a replacement is no failure")
    func forgets() {
        var pacing = RestartPacing()
        for time in [0.0, 1, 2, 3] { pacing.failed(at: time) }
        pacing.failed(at: 20)
        #expect(pacing.due(at: 20.1))
        pacing.startNow()
        #expect(pacing.due(at: 0))
    }
}
