import Testing
import PinGateCore
@testable import PinGateLock

@Suite("Wayland outputs as one image")
struct OutputGeometryTests {
    let twoOutputs = OutputGeometry(sizes: [(800, 600), (1920, 1080)])

    @Test("outputs lie side by side; the image is as tall as the tallest")
    func sideBySide() {
        #expect(twoOutputs.outputs == [Rect(x: 0, y: 0, width: 800, height: 600), Rect(x: 800, y: 0, width: 1920, height: 1080)])
        #expect(twoOutputs.width == 2720 && twoOutputs.height == 1080)
        #expect(twoOutputs.stride == 2720 * 4)
        #expect(twoOutputs.offset(ofOutput: 1) == 800 * 4)
    }

    @Test("a surface position becomes an image position, kept on its output")
    func imagePoint() {
        #expect(twoOutputs.imagePoint(output: 0, x: 10.7, y: 20.2)! == (10, 20))
        #expect(twoOutputs.imagePoint(output: 1, x: 5, y: 7)! == (805, 7))
        #expect(twoOutputs.imagePoint(output: 0, x: 900, y: -3)! == (799, 0))
        #expect(twoOutputs.imagePoint(output: 2, x: 1, y: 1) == nil)
    }

    @Test("the child's argument round-trips, and nonsense is refused")
    func spec() {
        #expect(twoOutputs.spec == "800,600;1920,1080")
        #expect(OutputGeometry(spec: twoOutputs.spec) == twoOutputs)
        for bad in ["", "800", "800,0", "-1,600", "800,600;x,1", "99999,10", "20000,10;20000,10",
                    "9223372036854775807,1"] {
            #expect(OutputGeometry(spec: bad) == nil, "\(bad)")
        }
    }

    @Test("a compositor's huge or too many sizes are refused, never trapped on")
    func limits() {
        #expect(OutputGeometry(validSizes: [(800, 600), (1920, 1080)]) == twoOutputs)
        let widest = OutputGeometry(validSizes: [(32767, 1000)])
        #expect(widest != nil && widest!.stride == Int32(32767 * 4))
        for bad: [(width: Int, height: Int)] in [[], [(0, 600)], [(32768, 10)], [(10, 32768)], [(Int.max, Int.max)],
                                                  [(20000, 10), (20000, 10)], [(32767, 32767)],
                                                  Array(repeating: (10, 10), count: 65)] {
            #expect(OutputGeometry(validSizes: bad) == nil, "\(bad)")
        }
        // The largest pool wl_shm takes: Int32.max bytes.
        #expect(OutputGeometry(validSizes: [(16384, 32766)])!.poolSize <= Int(Int32.max))
    }
}

@Suite("Touch draws the pattern and taps the pad")
struct TouchPointerTests {
    /// The dialog on the first output, as SharedMemoryCanvas lays it out.
    func screen(_ offer: CredentialOffer, _ geometry: OutputGeometry) -> LockScreen {
        LockScreen(offer: offer, layout: DialogLayout(monitor: geometry.outputs[0], scale: 1, gridSize: 3))
    }

    @Test("a finger dragged through the dots submits the pattern when it lifts")
    func drag() {
        let geometry = OutputGeometry(sizes: [(1280, 800)])
        var lock = screen(.pattern(grid: 3, failures: 0), geometry)
        var touch = TouchPointer()
        var submitted: String?
        let forward = { (event: InputEvent) in
            if let secret = text(lock.handle(event)) { submitted = secret }
        }
        let first = lock.layout.center(ofCell: 1)
        touch.down(id: 7, output: 0, x: first.x, y: first.y, in: geometry, forward)
        #expect(lock.pattern?.isTracing == true)
        for cell in [5, 9, 6] {
            let center = lock.layout.center(ofCell: cell)
            touch.motion(id: 7, x: center.x + 2, y: center.y - 3, in: geometry, forward)
        }
        #expect(submitted == nil)
        touch.up(id: 7, forward)
        #expect(submitted == "1-5-9-6")
    }

    @Test("a second finger neither presses nor moves, nor lifts the first")
    func secondFinger() {
        let geometry = OutputGeometry(sizes: [(1280, 800)])
        var events: [InputEvent] = []
        var touch = TouchPointer()
        touch.down(id: 1, output: 0, x: 100, y: 100, in: geometry) { events.append($0) }
        touch.down(id: 2, output: 0, x: 300, y: 300, in: geometry) { events.append($0) }
        touch.motion(id: 2, x: 310, y: 310, in: geometry) { events.append($0) }
        touch.up(id: 2) { events.append($0) }
        touch.up(id: 1) { events.append($0) }
        #expect(events == [.motion(x: 100, y: 100), .press(button: 1, x: 100, y: 100), .release(button: 1, x: 100, y: 100)])
    }

    @Test("taps on the second output's pad land where the dialog is drawn")
    func tapOnSecondOutput() {
        // The dialog is on the first output; a pad drawn on a second output
        // would be at its image offset: a tap there maps through it.
        let geometry = OutputGeometry(sizes: [(640, 480), (1280, 800)])
        var lock = LockScreen(offer: .pin(length: 4, failures: 0),
                              layout: DialogLayout(monitor: geometry.outputs[1], scale: 1, gridSize: 3))
        var touch = TouchPointer()
        var submitted: String?
        for digit in [4, 8, 2, 1] {
            let frame = lock.layout.padKeys.first { $0.key == .digit(digit) }!.frame
            let forward = { (event: InputEvent) in if let secret = text(lock.handle(event)) { submitted = secret } }
            touch.down(id: 3, output: 1, x: frame.midX - 640, y: frame.midY, in: geometry, forward)
            touch.up(id: 3, forward)
        }
        #expect(submitted == "4821")
    }

    @Test("a cancelled touch lifts the finger where it last was")
    func cancel() {
        let geometry = OutputGeometry(sizes: [(1280, 800)])
        var events: [InputEvent] = []
        var touch = TouchPointer()
        touch.down(id: 1, output: 0, x: 10, y: 10, in: geometry) { events.append($0) }
        touch.motion(id: 1, x: 50, y: 60, in: geometry) { events.append($0) }
        touch.cancel { events.append($0) }
        #expect(events.last == .release(button: 1, x: 50, y: 60))
        touch.up(id: 1) { events.append($0) }
        #expect(events.count == 4)
    }
}
