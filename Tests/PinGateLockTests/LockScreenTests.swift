import Testing
import PinGateCore
@testable import PinGateLock

let screen = Rect(x: 0, y: 0, width: 1280, height: 800)

func key(_ keysym: UInt32, _ character: Character? = nil) -> InputEvent {
    .key(keysym: keysym, character: character?.unicodeScalars.first)
}

func digitKey(_ digit: Int) -> InputEvent { key(Keysym.digit0 + UInt32(digit), Character(String(digit))) }

/// A secret's bytes, as a property: Swift 6.0.3's SIL verifier rejects a
/// closure on a noncopyable property of a noncopyable value inside #expect
/// (`entry.cells.withUnsafeBytes { … }`: "outside of lifetime use").
extension Secret {
    var bytes: [UInt8] { withUnsafeBytes { Array($0) } }
}

/// The text of a submission (tests only: a String of a secret), else nil.
func text(_ reaction: consuming LockScreen.Reaction) -> String? {
    guard case let .submit(submission) = consume reaction else { return nil }
    return submission.secret().withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
}

/// What a reaction was, by name: "nothing", "redraw", or "submit".
func kind(_ reaction: consuming LockScreen.Reaction) -> String {
    switch consume reaction {
    case .nothing: "nothing"
    case .redraw: "redraw"
    case .submit: "submit"
    }
}

@Suite("Where the dialog goes")
struct DialogMonitorTests {
    let left = Rect(x: 0, y: 0, width: 1920, height: 1080)
    let right = Rect(x: 1920, y: 0, width: 1280, height: 1024)
    let both = Rect(x: 0, y: 0, width: 3200, height: 1080)

    @Test("the primary monitor, else the first")
    func primaryElseFirst() {
        #expect(Monitor.forDialog(among: [.init(frame: left, primary: false), .init(frame: right, primary: true)], screen: both) == right.intersection(both))
        #expect(Monitor.forDialog(among: [.init(frame: right, primary: false), .init(frame: left, primary: false)], screen: both) == right.intersection(both))
    }

    @Test("a monitor the screen no longer holds is passed over; with none left, the whole screen")
    func staleMonitors() {
        let shrunk = Rect(x: 0, y: 0, width: 1920, height: 1080)
        #expect(Monitor.forDialog(among: [.init(frame: right, primary: true), .init(frame: left, primary: false)], screen: shrunk) == left)
        #expect(Monitor.forDialog(among: [.init(frame: right, primary: true)], screen: shrunk) == shrunk)
        #expect(Monitor.forDialog(among: [], screen: shrunk) == shrunk)
        let partly = Rect(x: 0, y: 0, width: 800, height: 600)
        #expect(Monitor.forDialog(among: [.init(frame: left, primary: true)], screen: partly) == partly)
    }
}

@Suite("Entries never move what is typed")
struct EntryStorageTests {
    /// The address of a secret's bytes.
    func storage(_ secret: borrowing Secret) -> UnsafeRawPointer? { secret.withUnsafeBytes { $0.baseAddress } }

    /// The first `count` bytes of a secret's room, whatever its count now.
    func room(_ secret: borrowing Secret, _ count: Int) -> [UInt8] {
        secret.withUnsafeBytes { Array(UnsafeRawBufferPointer(start: $0.baseAddress, count: count)) }
    }

    @Test("the password field types into one room and hands that room over, with what was erased zeroed")
    func passwordStaysPut() {
        let field = PasswordEntry()
        #expect(field.bytes.capacity >= PasswordEntry.maximumBytes)
        field.type("x")
        let first = storage(field.bytes)
        for _ in 0..<300 { field.type("ж") }  // two bytes each: stops at 511
        #expect(storage(field.bytes) == first)
        field.backspace()
        let taken = field.take()
        #expect(taken.count == 1 + 254 * 2)
        #expect(storage(taken) == first, "the bytes typed are handed over, not copied")
        #expect(room(taken, 511)[509...] == [0, 0], "the erased character is zeroed")
        #expect(storage(field.bytes) != first && field.bytes.isEmpty)
    }

    @Test("the PIN pad types into one room and hands that room over when the PIN completes")
    func pinStaysPut() {
        let entry = PINEntry(length: 12)
        _ = entry.type(1)
        let first = storage(entry.digits)
        for digit in 2...11 { _ = entry.type(digit % 10) }
        #expect(storage(entry.digits) == first)
        let pin = entry.type(2)!
        #expect(pin.count == 12 && storage(pin) == first)
        #expect(room(pin, 12) == Array("123456789012".utf8))
        #expect(storage(entry.digits) != first && entry.digits.isEmpty)
    }

    @Test("a pattern path keeps one room on a 6×6 grid, across gaps, and zeroes what it lets go")
    func patternStaysPut() throws {
        let entry = PatternEntry(grid: try PatternGrid(size: 6))
        entry.begin(at: 1)
        let first = storage(entry.cells)
        // Each step crosses cells the gap rule brings in: 1→6 takes 2…5.
        for cell in [6, 36, 31, 7, 8] { entry.join(cell) }
        #expect(entry.cells.count == 21)
        entry.removeLast()
        #expect(room(entry.cells, 21)[20] == 0, "a backspaced cell is zeroed")
        entry.join(10)  // 7→10 takes 8 and 9
        #expect(storage(entry.cells) == first)
        let text = entry.finish()!
        #expect(text.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
                == "1-2-3-4-5-6-12-18-24-30-36-35-34-33-32-31-25-19-13-7-8-9-10")
        #expect(storage(entry.cells) == first && entry.cells.isEmpty)
        #expect(room(entry.cells, 23).allSatisfy { $0 == 0 }, "the path handed over is zeroed in the entry")
    }

    @Test("a path's text: its cells joined by dashes, two digits past 9; and back")
    func patternText() {
        var cells = Secret(capacity: 4)
        for cell: UInt8 in [1, 36, 10, 7] { cells.append(cell) }
        let text = PatternEntry.text(of: cells)
        #expect(text.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } == "1-36-10-7")
        var back = Secret(capacity: 36)
        PatternEntry.cells(ofText: text, into: &back)
        #expect(back.withUnsafeBytes { Array($0) } == [1, 36, 10, 7])
    }
}

/// The events a key press forwards, collected (tests only).
func events(_ keysym: UInt32, _ typed: [Unicode.Scalar]) -> [InputEvent] {
    var forwarded: [InputEvent] = []
    InputEvent.keyPress(keysym: keysym, typed: typed) { forwarded.append($0) }
    return forwarded
}

@Suite("Key presses forwarded")
struct KeyPressTests {
    @Test("a layout's own characters pass; controls do not; a compose result of two characters makes two events")
    func forwarded() {
        #expect(events(0x6d6, ["ж"]) == [.key(keysym: 0x6d6, character: "ж")])
        #expect(events(0x75, ["\u{15}"]) == [.key(keysym: 0x75, character: nil)])
        #expect(events(0, ["a", "\u{301}"]) == [.key(keysym: 0, character: "a"), .key(keysym: 0, character: "\u{301}")])
        #expect(events(0, []) == [])
        #expect(Array(UTF8Characters(Array("жα".utf8))) == ["ж", "α"])
        #expect(Array(UTF8Characters([0xff, 0x41])) == ["\u{FFFD}", "A"])
    }

    @Test("without an input method: Latin-1 and Unicode keysyms type their character, others nothing")
    func latin1() {
        #expect(Keysym.character(of: 0x41) == "A")
        #expect(Keysym.character(of: 0xe9) == "é")
        #expect(Keysym.character(of: 0x0100_0436) == "ж")
        #expect(Keysym.character(of: 0xff0d) == nil)
    }

    @Test("a password typed in another script reaches the field")
    func cyrillicPassword() {
        var lock = LockScreen(offer: .notEnrolled, layout: DialogLayout(monitor: screen, scale: 1, gridSize: 3))
        for event in events(0x6d6, ["ж"]) + events(0x7e1, ["α"]) {
            _ = lock.handle(event)
        }
        #expect(text(lock.handle(key(Keysym.return))) == "жα")
    }
}

@Suite("PIN pad")
struct PINPadTests {
    func pinScreen(length: Int? = 4) -> LockScreen {
        LockScreen(offer: .pin(length: length, failures: 0), layout: DialogLayout(monitor: screen, scale: 1, gridSize: 3))
    }

    @Test("the last digit submits at once, no Enter")
    func lastDigitSubmits() {
        var lock = pinScreen()
        #expect(lock.mode == .pin)
        for digit in [4, 8, 2] { #expect(kind(lock.handle(digitKey(digit))) == "redraw") }
        #expect(lock.pin?.digits.count == 3)
        #expect(text(lock.handle(digitKey(1))) == "4821")
        #expect(lock.pin?.digits.isEmpty == true)
    }

    @Test("a PIN of unknown length is never submitted by a digit: Enter submits it")
    func unknownLengthWaitsForEnter() {
        var lock = pinScreen(length: nil)
        for digit in [4, 8, 2, 1, 7, 3] { #expect(kind(lock.handle(digitKey(digit))) == "redraw") }
        #expect(lock.pin?.dotCount == 7)
        #expect(text(lock.handle(key(Keysym.return))) == "482173")
        #expect(kind(lock.handle(key(Keysym.return))) == "nothing")
    }

    @Test("with a known length Enter does nothing")
    func enterWithKnownLength() {
        var lock = pinScreen()
        _ = lock.handle(digitKey(4))
        #expect(kind(lock.handle(key(Keysym.return))) == "nothing")
        #expect(lock.pin?.digits.count == 1)
    }

    @Test("keypad digits count, with Num Lock on or off")
    func keypadDigits() {
        var lock = pinScreen()
        _ = lock.handle(key(Keysym.keypad0 + 4))
        _ = lock.handle(key(0xff97))  // KP_Up is 8
        _ = lock.handle(key(Keysym.keypad0 + 2))
        #expect(text(lock.handle(key(0xff9c))) == "4821")  // KP_End is 1
    }

    @Test("Backspace removes a digit, Esc clears")
    func backspaceAndEscape() {
        var lock = pinScreen()
        _ = lock.handle(digitKey(1)); _ = lock.handle(digitKey(2))
        _ = lock.handle(key(Keysym.backSpace))
        #expect(lock.pin?.digits.bytes == [UInt8(ascii: "1")])
        _ = lock.handle(key(Keysym.escape))
        #expect(lock.pin?.digits.isEmpty == true)
    }

    @Test("clicking the on-screen pad types digits")
    func clickingThePad() {
        var lock = pinScreen(length: 4)
        var result: LockScreen.Reaction = .nothing
        for digit in [4, 8, 2, 1] {
            let frame = lock.layout.padKeys.first { $0.key == .digit(digit) }!.frame
            result = lock.handle(.press(button: 1, x: Int(frame.midX), y: Int(frame.midY)))
        }
        #expect(text(result) == "4821")
    }

    @Test("a PIN length from the helper sets the number of dots")
    func lengthFromStatus() {
        var lock = pinScreen(length: 6)
        for digit in 1...5 { _ = lock.handle(digitKey(digit)) }
        #expect(text(lock.handle(digitKey(9))) == "123459")
    }

    @Test("Tab switches to the password and back")
    func tabSwitches() {
        var lock = pinScreen()
        _ = lock.handle(digitKey(1))
        _ = lock.handle(key(Keysym.tab))
        #expect(lock.mode == .password)
        #expect(lock.pin?.digits.isEmpty == true)
        _ = lock.handle(key(Keysym.tab))
        #expect(lock.mode == .pin)
    }

    @Test("the Use password button switches")
    func buttonSwitches() {
        var lock = pinScreen()
        let button = lock.layout.switchButton
        _ = lock.handle(.press(button: 1, x: Int(button.midX), y: Int(button.midY)))
        #expect(lock.mode == .password)
    }
}

@Suite("Password field and fallback")
struct PasswordTests {
    @Test("typed characters are submitted on Enter, one symbol each")
    func typeAndSubmit() {
        var lock = LockScreen(offer: .notEnrolled, layout: DialogLayout(monitor: screen, scale: 1, gridSize: 3))
        #expect(lock.mode == .password)
        for character in "pé 密" { _ = lock.handle(key(0x1000000, character)) }
        #expect(lock.password.characterCount == 4)
        _ = lock.handle(key(Keysym.backSpace))
        #expect(lock.password.characterCount == 3)
        #expect(text(lock.handle(key(Keysym.return))) == "pé ")
        #expect(lock.password.characterCount == 0)
    }

    @Test("Enter on an empty field submits nothing")
    func emptyIsNotSubmitted() {
        var lock = LockScreen(offer: .notEnrolled, layout: DialogLayout(monitor: screen, scale: 1, gridSize: 3))
        #expect(kind(lock.handle(key(Keysym.return))) == "nothing")
    }

    @Test("a locked, disabled or unavailable PIN leaves only the password")
    func fallback() {
        for offer: CredentialOffer in [.locked(seconds: 60, failures: 5, isPattern: false), .disabled(failures: 10, isPattern: false),
                                     .unavailable(reason: "x"), .notEnrolled] {
            var lock = LockScreen(offer: .pin(length: 4, failures: 0), layout: DialogLayout(monitor: screen, scale: 1, gridSize: 3))
            lock.update(offer: offer)
            #expect(lock.mode == .password)
            #expect(lock.credentialMode == nil)
            _ = lock.handle(key(Keysym.tab))
            #expect(lock.mode == .password)
        }
    }

    @Test("when a lockout ends, the PIN pad comes back unless the person chose the password or is typing it")
    func lockoutEnds() {
        let locked = CredentialOffer.locked(seconds: 60, failures: 5, isPattern: false)
        let usable = CredentialOffer.pin(length: 4, failures: 5)
        var lock = LockScreen(offer: locked, layout: DialogLayout(monitor: screen, scale: 1, gridSize: 3))
        #expect(lock.mode == .password)
        lock.update(offer: usable)
        #expect(lock.mode == .pin)

        lock.update(offer: locked)
        _ = lock.handle(key(0x61, "a"))
        lock.update(offer: usable)
        #expect(lock.mode == .password)
        #expect(lock.password.characterCount == 1)

        var chosen = LockScreen(offer: usable, layout: DialogLayout(monitor: screen, scale: 1, gridSize: 3))
        _ = chosen.handle(key(Keysym.tab))
        #expect(chosen.mode == .password)
        chosen.update(offer: usable)
        #expect(chosen.mode == .password)
    }
}

@Suite("Pattern drawing")
struct PatternDrawingTests {
    func patternScreen(grid: Int = 3) -> LockScreen {
        LockScreen(offer: .pattern(grid: grid, failures: 0), layout: DialogLayout(monitor: screen, scale: 1, gridSize: grid))
    }

    func at(_ lock: LockScreen, _ cell: Int) -> (Int, Int) {
        let point = lock.layout.center(ofCell: cell)
        return (Int(point.x), Int(point.y))
    }

    @Test("press, drag through dots, release submits the path")
    func drag() {
        var lock = patternScreen()
        var (x, y) = at(lock, 1)
        _ = lock.handle(.press(button: 1, x: x, y: y))
        #expect(lock.pattern?.isTracing == true)
        for cell in [5, 9, 6] {
            (x, y) = at(lock, cell)
            _ = lock.handle(.motion(x: x - 3, y: y + 2))
        }
        #expect(lock.pointer != nil)
        #expect(text(lock.handle(.release(button: 1, x: x, y: y))) == "1-5-9-6")
    }

    @Test("a jump over a dot joins it by the gap rule")
    func gapRule() {
        var lock = patternScreen()
        var (x, y) = at(lock, 1)
        _ = lock.handle(.press(button: 1, x: x, y: y))
        (x, y) = at(lock, 3); _ = lock.handle(.motion(x: x, y: y))
        (x, y) = at(lock, 9); _ = lock.handle(.motion(x: x, y: y))
        (x, y) = at(lock, 7); _ = lock.handle(.motion(x: x, y: y))
        #expect(text(lock.handle(.release(button: 1, x: x, y: y))) == "1-2-3-6-9-8-7")
    }

    @Test("a visited dot is crossed, not joined again")
    func crossing() {
        let entry = PatternEntry(grid: try! PatternGrid(size: 3))
        entry.begin(at: 2)
        entry.join(5); entry.join(4); entry.join(6)  // 4 → 6 crosses the visited 5
        #expect(entry.cells.bytes == [2, 5, 4, 6])
    }

    @Test("a tap on one dot is not a pattern")
    func tap() {
        var lock = patternScreen()
        let (x, y) = at(lock, 5)
        _ = lock.handle(.press(button: 1, x: x, y: y))
        #expect(kind(lock.handle(.release(button: 1, x: x, y: y))) == "redraw")
        #expect(lock.pattern?.isEmpty == true)
    }

    @Test("the numeric keypad is the 3×3 grid by position; Enter submits")
    func keypad() {
        var lock = patternScreen()
        for digit in [7, 5, 3, 6] { _ = lock.handle(key(Keysym.keypad0 + UInt32(digit))) }
        #expect(text(lock.handle(key(Keysym.keypadEnter))) == "1-5-9-6")
    }

    @Test("arrow keys and Space draw on bigger grids, with the gap rule")
    func arrows() {
        var lock = patternScreen(grid: 4)
        // The cursor starts on cell 6; moving past an edge stays on it.
        for _ in 0..<3 { _ = lock.handle(key(Keysym.up)); _ = lock.handle(key(Keysym.left)) }
        _ = lock.handle(key(Keysym.space))
        for _ in 0..<3 { _ = lock.handle(key(Keysym.right)) }
        _ = lock.handle(key(Keysym.space))            // 1 → 4 passes over 2 and 3, which join
        _ = lock.handle(key(Keysym.down))
        _ = lock.handle(key(Keysym.space))
        #expect(text(lock.handle(key(Keysym.return))) == "1-2-3-4-8")
    }

    @Test("the keyboard cursor starts on the middle dot (upper-left of the middle four on even grids)",
          arguments: [(3, 5), (4, 6), (5, 13), (6, 15)])
    func cursorStartsInTheMiddle(size: Int, cell: Int) throws {
        #expect(PatternEntry(grid: try PatternGrid(size: size)).cursor == cell)
    }

    @Test("every grid size from 3 to 6 maps each dot centre back to its cell")
    func hitTesting() {
        for size in 3...6 {
            let layout = DialogLayout(monitor: screen, scale: 1, gridSize: size)
            for cell in 1...(size * size) { #expect(layout.cell(at: layout.center(ofCell: cell)) == cell) }
        }
    }
}

@Suite("The offer from a status answer, and forwarded input")
struct ProtocolTests {
    @Test("status answers parse; a PIN without length= has no known length")
    func statusAnswers() {
        #expect(CredentialOffer(answer: "enrolled kind=pin failures=2", exitStatus: 0) == .pin(length: nil, failures: 2))
        #expect(CredentialOffer(answer: "enrolled kind=pin length=6 failures=0", exitStatus: 0) == .pin(length: 6, failures: 0))
        #expect(CredentialOffer(answer: "enrolled kind=pattern grid=4 failures=1", exitStatus: 0) == .pattern(grid: 4, failures: 1))
        #expect(CredentialOffer(answer: "locked seconds=60 failures=5 kind=pin", exitStatus: 2) == .locked(seconds: 60, failures: 5, isPattern: false))
        #expect(CredentialOffer(answer: "disabled failures=10 kind=pattern grid=3", exitStatus: 3) == .disabled(failures: 10, isPattern: true))
        #expect(CredentialOffer(answer: "not-enrolled", exitStatus: 4) == .notEnrolled)
        if case .unavailable = CredentialOffer(answer: "error store broken", exitStatus: 6) {} else { Issue.record("error answer") }
        if case .unavailable = CredentialOffer(answer: "enrolled kind=pin failures=0", exitStatus: 6) {} else { Issue.record("exit mismatch") }
    }

    @Test("events survive the line protocol, split across reads")
    func eventLines() {
        let events: [InputEvent] = [.key(keysym: 0x61, character: "a"), .key(keysym: Keysym.return, character: nil),
                                    .press(button: 1, x: 10, y: 20), .motion(x: 11, y: 21), .release(button: 1, x: 12, y: 22), .cancel]
        let bytes = Array(events.map(\.line).joined().utf8)
        var reader = InputEventReader()
        var read: [InputEvent] = []
        reader.feed(bytes[..<7]) { read.append($0) }
        reader.feed(bytes[7...]) { read.append($0) }
        #expect(read == events)
        var noise: [InputEvent] = []
        let tooLong = "k 1 " + String(repeating: "1", count: 80) + "\n"
        for junk in ["garbage\n", "k x y\n", "k 1\n", "k  1 2\n", "k 1 2 \n", "m 1 2 3 4\n", "\n", tooLong, "p 1 2 -\n", "c 1\n", "cancel\n"] {
            reader.feed(Array(junk.utf8)) { noise.append($0) }
        }
        #expect(noise.isEmpty)
        var extremes: [InputEvent] = []
        let wide: [InputEvent] = [.motion(x: -5, y: 0), .press(button: 3, x: 999_999_999_999_999_999, y: -999_999_999_999_999_999),
                                  .key(keysym: UInt32.max, character: "\u{10FFFF}")]
        reader.feed(Array(wide.map(\.line).joined().utf8)) { extremes.append($0) }
        #expect(extremes == wide)
    }

    @Test("the dialog shrinks to fit a small screen and grows with the DPI")
    func scaling() {
        let small = DialogLayout(monitor: Rect(x: 0, y: 0, width: 640, height: 480), scale: 1, gridSize: 3)
        #expect(small.unit < 1)
        #expect(small.switchButton.y + small.switchButton.height <= 480)
        let hidpi = DialogLayout(monitor: Rect(x: 0, y: 0, width: 3840, height: 2160), scale: 2, gridSize: 3)
        #expect(hidpi.unit == 2)
    }
}
