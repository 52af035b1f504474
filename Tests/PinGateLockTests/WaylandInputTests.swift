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
        #expect(twoOutputs.spec == "800,600,1;1920,1080,1")
        #expect(OutputGeometry(spec: twoOutputs.spec) == twoOutputs)
        let scaled = OutputGeometry(validSurfaces: [(800, 600, 2), (1280, 800, 1)])!
        #expect(OutputGeometry(spec: scaled.spec) == scaled)
        for bad in ["", "800", "800,600", "800,0,1", "-1,600,1", "800,600,1;x,1,1", "99999,10,1", "800,600,0", "800,600,9",
                    "20000,10,1;20000,10,1", "9223372036854775807,1,1"] {
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
        // Surfaces times their scales: a scale out of 1...8, a product that
        // overflows or a buffer beyond the limits.
        for bad: [(width: Int, height: Int, scale: Int)] in [[(800, 600, 0)], [(800, 600, 9)], [(Int.max, 2, 2)],
                                                               [(16384, 100, 2)]] {
            #expect(OutputGeometry(validSurfaces: bad) == nil, "\(bad)")
        }
        // The largest pool wl_shm takes: Int32.max bytes.
        #expect(OutputGeometry(validSizes: [(16384, 32766)])!.poolSize <= Int(Int32.max))
    }
}

@Suite("Outputs with a scale factor")
struct OutputScaleTests {
    /// sway's `output HEADLESS-1 scale 2` on an 800x600 mode: the lock
    /// surface is configured 400x300, its buffer is 800x600.
    let scaled = OutputGeometry(validSurfaces: [(400, 300, 2), (640, 480, 1)])!

    @Test("a buffer is its surface's size times its output's scale")
    func bufferSizes() {
        #expect(scaled.outputs == [Rect(x: 0, y: 0, width: 800, height: 600), Rect(x: 800, y: 0, width: 640, height: 480)])
        #expect(scaled.scales == [2, 1])
        #expect(scaled.spec == "800,600,2;640,480,1")
    }

    @Test("surface positions are multiplied by their output's scale")
    func positions() {
        #expect(scaled.imagePoint(output: 0, x: 100.25, y: 50.5)! == (200, 101))
        #expect(scaled.imagePoint(output: 0, x: 399.9, y: 299.9)! == (799, 599))
        #expect(scaled.imagePoint(output: 1, x: 100, y: 50)! == (900, 50))
    }

    @Test("the pad drawn at scale 2 is twice as big, and a tap in surface coordinates hits its key")
    func padAtScaleTwo() {
        let geometry = OutputGeometry(validSurfaces: [(1280, 800, 2)])!
        let layout = DialogLayout(monitor: geometry.outputs[0], scale: Double(geometry.scales[0]), gridSize: 3)
        let key = { (layout: DialogLayout, digit: Int) in layout.padKeys.first { $0.key == .digit(digit) }!.frame }
        let big = OutputGeometry(validSurfaces: [(1280, 800, 1)])!
        let plain = DialogLayout(monitor: big.outputs[0], scale: 1, gridSize: 3)
        #expect(key(layout, 5).width == 2 * key(plain, 5).width)
        var lock = LockScreen(offer: .pin(length: 4, failures: 0), layout: layout)
        var touch = TouchPointer()
        var submitted: String?
        for digit in [4, 8, 2, 1] {
            let frame = key(layout, digit)
            let forward = { (event: InputEvent) in if let secret = text(lock.handle(event)) { submitted = secret } }
            // Where the finger is on the surface: half the buffer position.
            touch.down(id: 1, output: 0, x: frame.midX / 2, y: frame.midY / 2, in: geometry, forward)
            touch.up(id: 1, forward)
        }
        #expect(submitted == "4821")
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

    @Test("a cancelled touch ends the finger without a release")
    func cancel() {
        let geometry = OutputGeometry(sizes: [(1280, 800)])
        var events: [InputEvent] = []
        var touch = TouchPointer()
        touch.down(id: 1, output: 0, x: 10, y: 10, in: geometry) { events.append($0) }
        touch.motion(id: 1, x: 50, y: 60, in: geometry) { events.append($0) }
        touch.cancel { events.append($0) }
        #expect(events.last == .cancel)
        touch.up(id: 1) { events.append($0) }
        touch.cancel { events.append($0) }
        #expect(events.count == 4)
    }

    @Test("a pattern whose touch is cancelled is dropped, not submitted, and can be drawn again")
    func cancelledPattern() {
        let geometry = OutputGeometry(sizes: [(1280, 800)])
        var lock = screen(.pattern(grid: 3, failures: 0), geometry)
        var touch = TouchPointer()
        var submitted: [String] = []
        let forward = { (event: InputEvent) in
            if let secret = text(lock.handle(event)) { submitted.append(secret) }
        }
        func draw(_ cells: [Int], id: Int32) {
            let first = lock.layout.center(ofCell: cells[0])
            touch.down(id: id, output: 0, x: first.x, y: first.y, in: geometry, forward)
            for cell in cells.dropFirst() {
                let center = lock.layout.center(ofCell: cell)
                touch.motion(id: id, x: center.x, y: center.y, in: geometry, forward)
            }
        }
        draw([1, 5, 9, 6], id: 4)
        touch.cancel(forward)
        #expect(submitted.isEmpty)
        #expect(lock.pattern?.isTracing == false)
        draw([3, 5, 7, 8], id: 4)
        touch.up(id: 4, forward)
        #expect(submitted == ["3-5-7-8"])
    }
}

@Suite("The UI child's environment")
struct UIEnvironmentTests {
    @Test("no Wayland display or socket of the locker's, and no crash backtraces")
    func noCompositor() {
        let parent = ["HOME=/home/alice", "WAYLAND_DISPLAY=wayland-1", "WAYLAND_SOCKET=7", "DISPLAY=:0",
                      "XDG_RUNTIME_DIR=/run/user/1000", "SWIFT_BACKTRACE=enable=yes"]
        #expect(UIEnvironment.forChild(of: parent) == ["HOME=/home/alice", "DISPLAY=:0", "XDG_RUNTIME_DIR=/run/user/1000",
                                                         "SWIFT_BACKTRACE=enable=no", "WAYLAND_DISPLAY=/dev/null"])
    }
}
