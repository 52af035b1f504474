import Testing
import PinGateCore
@testable import PinGateLock

/// A scale in 120ths, wp_fractional_scale_v1's unit: 120 is 1, 180 is 1.5.
func scale(_ numerator: Int) -> OutputScale { OutputScale(numerator: numerator) }

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
        #expect(twoOutputs.spec == "800,600,120;1920,1080,120")
        #expect(OutputGeometry(spec: twoOutputs.spec) == twoOutputs)
        let scaled = OutputGeometry(validSurfaces: [(800, 600, scale(240)), (1067, 800, scale(180))])!
        #expect(OutputGeometry(spec: scaled.spec) == scaled)
        // (A scale of 1 is 120: "800,600,1" would be 1/120, refused.)
        for bad in ["", "800", "800,600", "800,0,120", "-1,600,120", "800,600,120;x,1,120", "99999,10,120", "800,600,0",
                    "800,600,1", "800,600,119", "800,600,961", "20000,10,120;20000,10,120", "9223372036854775807,1,120"] {
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
        // Surfaces times their scales: a scale out of 1...8 (120...960), a
        // product that overflows, one that overflows only when rounded, or a
        // buffer beyond the limits (at 2, and at 121/120 of the widest).
        let roundingOverflows = Int.max / 180
        for bad: [(width: Int, height: Int, scale: OutputScale)] in [
            [(800, 600, scale(0))], [(800, 600, scale(119))], [(800, 600, scale(961))], [(Int.max, 2, scale(240))],
            [(Int.max / 100, 2, scale(180))], [(roundingOverflows, 1, scale(180))], [(16384, 100, scale(240))],
            [(32767, 100, scale(121))],
        ] {
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
    let scaled = OutputGeometry(validSurfaces: [(400, 300, scale(240)), (640, 480, scale(120))])!

    @Test("a buffer is its surface's size times its output's scale")
    func bufferSizes() {
        #expect(scaled.outputs == [Rect(x: 0, y: 0, width: 800, height: 600), Rect(x: 800, y: 0, width: 640, height: 480)])
        #expect(scaled.scales == [scale(240), scale(120)])
        #expect(scaled.spec == "800,600,240;640,480,120")
    }

    /// sway's `scale 1.5` on a 1600x1200 mode: preferred_scale 180, the lock
    /// surface 1066x800 (1600 / 1.5, truncated).
    @Test("at a fractional scale, a buffer is size × scale/120 rounded half away from zero")
    func fractionalBufferSizes() {
        #expect(scale(180).bufferLength(ofSurface: 1066) == 1599)   // 1599.0
        #expect(scale(180).bufferLength(ofSurface: 1067) == 1601)   // 1600.5
        #expect(scale(180).bufferLength(ofSurface: 800) == 1200)
        #expect(scale(150).bufferLength(ofSurface: 3) == 4)         // 3.75
        #expect(scale(150).bufferLength(ofSurface: 2) == 3)         // 2.5
        #expect(scale(150).bufferLength(ofSurface: 1) == 1)         // 1.25
        #expect(scale(240).bufferLength(ofSurface: 1067) == 2134)   // an integer scale: exact
        let geometry = OutputGeometry(validSurfaces: [(1067, 800, scale(180)), (1066, 800, scale(180))])!
        #expect(geometry.spec == "1601,1200,180;1599,1200,180")
        #expect(OutputGeometry(validSurfaces: [(1066, 800, scale(180))]) ==
                OutputGeometry(validSizes: [(1599, 1200)], scales: [scale(180)]))
    }

    @Test("at a fractional scale, surface positions are multiplied by it, then kept on the output")
    func fractionalPositions() {
        let geometry = OutputGeometry(validSurfaces: [(1067, 800, scale(180)), (640, 480, scale(120))])!
        #expect(geometry.imagePoint(output: 0, x: 100.25, y: 50.5)! == (150, 75))     // 150.375, 75.75
        #expect(geometry.imagePoint(output: 0, x: 1066.9, y: 799.9)! == (1600, 1199)) // the buffer's last pixel
        #expect(geometry.imagePoint(output: 1, x: 10, y: 20)! == (1611, 20))
    }

    @Test("surface positions are multiplied by their output's scale")
    func positions() {
        #expect(scaled.imagePoint(output: 0, x: 100.25, y: 50.5)! == (200, 101))
        #expect(scaled.imagePoint(output: 0, x: 399.9, y: 299.9)! == (799, 599))
        #expect(scaled.imagePoint(output: 1, x: 100, y: 50)! == (900, 50))
    }

    /// At 1280x800 the dialog fits at its natural size at scale 1 and at
    /// 1.5 or 2 times it in the scaled buffer (1920x1200, 2560x1600).
    @Test("the pad drawn at scale 2 or 1.5 is that much bigger, and a tap in surface coordinates hits its key",
          arguments: [240, 180])
    func padAtScale(numerator: Int) {
        let geometry = OutputGeometry(validSurfaces: [(1280, 800, scale(numerator))])!
        let layout = DialogLayout(monitor: geometry.outputs[0], scale: geometry.scales[0].factor, gridSize: 3)
        let key = { (layout: DialogLayout, digit: Int) in layout.padKeys.first { $0.key == .digit(digit) }!.frame }
        let big = OutputGeometry(validSurfaces: [(1280, 800, scale(120))])!
        let plain = DialogLayout(monitor: big.outputs[0], scale: 1, gridSize: 3)
        let factor = Double(numerator) / 120
        #expect(key(layout, 5).width == factor * key(plain, 5).width)
        var lock = LockScreen(offer: .pin(length: 4, failures: 0), layout: layout)
        var touch = TouchPointer()
        var submitted: String?
        for digit in [4, 8, 2, 1] {
            let frame = key(layout, digit)
            let forward = { (event: InputEvent) in if let secret = text(lock.handle(event)) { submitted = secret } }
            // Where the finger is on the surface: the buffer position / scale.
            touch.down(id: 1, output: 0, x: frame.midX / factor, y: frame.midY / factor, in: geometry, forward)
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
