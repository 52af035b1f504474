import Glibc
import PinGateCore
import PinGateLock

/// The UI child: draws the dialog in its own window inside the locker's
/// cover, reads the input the locker forwards on stdin, and runs PAM. It
/// writes "unlocked" on fd 3 and exits 0 only after PAM said yes; any other
/// end — a crash included — leaves the screen locked and the locker starts
/// a new UI.
final class UIProcess {
    static let statusFD: Int32 = 3
    private let canvas: UICanvas
    private var lock: LockScreen!
    private var offer: CredentialOffer = .notEnrolled
    private let userName = Preflight.userName()
    private var message = ""
    private var messageIsAlert = false
    /// The message is the lockout's countdown, which each tick may rewrite;
    /// any other message stays up for `messageHoldSeconds` first, or a wrong
    /// password typed while the PIN is locked would never be read.
    private var messageIsCountdown = false
    private var messageShownAt = 0.0
    private static let messageHoldSeconds = 3.0
    /// When the helper was last asked, and whether its answer may change
    /// while the screen stays locked (`HelperQuery.offer`): then it is asked
    /// again, after 10 s, and twice as long each time the answer stays the
    /// same, up to 160 s (each ask runs the helper, which logs it).
    private var offerAskedAt = 0.0
    private var offerMayChange = false
    private var reaskSeconds = UIProcess.firstReaskSeconds
    private static let firstReaskSeconds = 10.0, longestReaskSeconds = 160.0
    private var feedback: Scene.Feedback = .none
    private var wrongSince = 0.0
    /// The pattern just refused, drawn red for a moment: its cells, one byte
    /// each, in a `Secret` made once and emptied (zeroed) when the red ends.
    private var refusedPath = Secret(capacity: PatternGrid.supportedSizes.upperBound * PatternGrid.supportedSizes.upperBound)
    /// When a locked PIN or pattern may be used again (monotonic seconds).
    private var lockedUntil = 0.0
    private var reader = InputEventReader()
    private var lastClock = ""
    private static let wrongDuration = 0.6

    init(canvas: UICanvas) {
        self.canvas = canvas
    }

    func run() -> Int32 {
        setCloseOnExec(UIProcess.statusFD)  // the helper and PAM's helpers must not hold it
        signal(SIGPIPE, SIG_IGN)
        DescriptorLimit.lower()
        askOffer()
        ModuleKeeper.start(service: Authenticator.service, user: userName)
        canvas.prepare()
        lock = LockScreen(offer: offer, layout: currentLayout())
        explainFallback()
        if message.isEmpty { message = Texts.prompt(for: lock.mode) }
        redraw()
        Diagnostics.trace("message: \(message)")
        Diagnostics.trace("ready: mode=\(lock.mode) \(geometryTrace())")
        return loop()
    }

    private func currentLayout() -> DialogLayout { canvas.layout(gridSize: gridSize) }

    /// Lays the dialog out again for the screen and monitors as they are now.
    private func relayout(_ why: String) {
        lock.layout = currentLayout()
        Diagnostics.trace("relayout: for \(why): \(geometryTrace())")
        redraw()
    }

    private var gridSize: Int {
        if case let .pattern(grid, _) = offer { return grid }
        return 3
    }

    private func loop() -> Int32 {
        let connection = canvas.pollDescriptor
        while true {
            canvas.handlePendingEvents(redraw: redraw, relayout: relayout)
            var descriptors = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: connection, events: Int16(POLLIN), revents: 0)]
            let animating: Bool = { if case .wrong = feedback { return true } else { return false } }()
            _ = poll(&descriptors, 2, animating ? 16 : 250)
            if descriptors[0].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 512)
                let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
                if count == 0 || (count < 0 && errno != EINTR) {
                    Diagnostics.error("the locker went away; exiting")
                    return 1
                }
                if count > 0 {
                    reader.feed(buffer[..<count]) { handleInput($0) }
                }
                buffer.wipe()  // a password's characters pass through, one key at a time
            }
            tick()
        }
    }

    private func handleInput(_ event: InputEvent) {
        if case .wrong = feedback { finishWrongFeedback() }
        let before = lock.mode
        switch lock.handle(event) {
        case .nothing:
            return
        case .redraw:
            if lock.mode != before {
                message = Texts.prompt(for: lock.mode)
                messageIsAlert = false
                messageIsCountdown = false
                Diagnostics.trace("mode: \(lock.mode) \(geometryTrace())")
            }
            redraw()
        case let .submit(submission):
            submit(submission)
        }
    }

    private func submit(_ submission: consuming LockScreen.Submission) {
        let mode = lock.mode
        let secret = submission.secret()
        if mode == .pattern { PatternEntry.cells(ofText: secret, into: &refusedPath) }
        feedback = .checking
        // Sent (show flushes), not waited for: the X server draws "checking"
        // while PAM runs, instead of PAM waiting for the drawing.
        show(Texts.checking(), alert: false)
        let started = monotonicSeconds()
        Diagnostics.trace("PAM started \(traceTime())")
        // The secret is handed on, not copied: PAM's conversation consumes it.
        let result = Authenticator.authenticate(user: userName, secret: secret,
                                                mode: mode == .password ? .password : .credential)
        Diagnostics.trace("PAM answered in \(Int((monotonicSeconds() - started) * 1000)) ms: \(result.succeeded ? "success" : "failure") \(traceTime())")
        if result.succeeded {
            // The owner sees every guess: the module tells of the failed
            // attempts before its question, and this screen answers that
            // question itself, so they are shown to the person who just
            // unlocked, for a moment, before the screen opens.
            if !result.messages.isEmpty {
                show(result.messages.joined(separator: " "), alert: true)
                redraw()
                canvas.showNow()
                sleepSeconds(UIProcess.noticeSeconds)
            }
            unlock()
        }
        if let problem = result.accountProblem {
            // A right pattern that the account refused is not kept to draw red.
            feedback = .none
            clearRefused()
            show(Texts.accountProblem(problem), alert: true)
            return
        }
        var stackSkippedTheModule = false
        if mode != .password {
            let failuresBefore = offer.failures
            askOffer()
            // Nothing counted and not a word from the module: the stack never
            // asked for the PIN (the service is not in pingate.conf's
            // `services`, or the module is not in /etc/pam.d/pingate-lock).
            // Offering the PIN again would be a dead end.
            stackSkippedTheModule = result.messages.isEmpty && offer.failures != nil && offer.failures == failuresBefore
            lock.update(offer: stackSkippedTheModule ? .unavailable(reason: "the PAM stack did not ask for it") : offer)
        }
        feedback = .wrong(progress: 0)
        wrongSince = monotonicSeconds()
        if lock.mode != mode { Diagnostics.trace("mode: \(lock.mode) \(geometryTrace())") }
        if stackSkippedTheModule {
            Diagnostics.error("PAM service \(Authenticator.service) did not ask pam_pingate.so for the PIN or pattern; offering the password")
            show(Texts.notAskedByStack(), alert: true)
        } else if lock.mode != mode {
            explainFallback()
        } else {
            // The module's own line ("Wrong PIN — 3 attempts left") says the most.
            show(mode == .password ? Texts.wrong(mode) : (result.messages.last ?? Texts.wrong(mode)), alert: true)
        }
    }

    private func clearRefused() { refusedPath.removeAll() }

    /// How long a notice of failed attempts stays up after a success.
    static let noticeSeconds = 3.0

    /// The locker opens the screen once this process has said so and is
    /// reaped, so it ends at once: _exit, not XCloseDisplay (a round trip to
    /// the server, ~1 ms) and exit's handlers. The kernel closes the X
    /// connection, and the server destroys this window with it; the secrets
    /// go with the process's memory.
    private func unlock() -> Never {
        try? FileDescriptor(rawValue: UIProcess.statusFD).writeAll(Array("unlocked\n".utf8))
        close(UIProcess.statusFD)
        _exit(0)
    }

    /// A PIN or pattern that cannot be used: say why, with the time left.
    private func explainFallback() {
        if case let .locked(seconds, _, _) = offer {
            lockedUntil = monotonicSeconds() + Double(seconds)
        }
        if case .unavailable(let reason) = offer { Diagnostics.error("PIN status unavailable: \(reason)") }
        guard let reason = Texts.fallbackReason(offer, secondsLeft: secondsLocked()) else { return }
        show(reason, alert: true)
        messageIsCountdown = true
    }

    private func secondsLocked() -> Int { max(0, Int((lockedUntil - monotonicSeconds()).rounded(.up))) }

    private func finishWrongFeedback() {
        feedback = .none
        clearRefused()
    }

    /// Once per loop: the wrong-entry animation, the clock, the lockout countdown.
    private func tick() {
        var dirty = false
        if case .wrong = feedback {
            let progress = (monotonicSeconds() - wrongSince) / UIProcess.wrongDuration
            if progress >= 1 { finishWrongFeedback() } else { feedback = .wrong(progress: progress) }
            dirty = true
        }
        if case .locked = offer {
            if secondsLocked() == 0 { reask() }
        }
        if offerMayChange && monotonicSeconds() - offerAskedAt >= reaskSeconds {
            // One status that missed its deadline, or a PIN root unlocked
            // elsewhere, would otherwise leave the password until a restart.
            reask()
        }
        if case .locked = offer {
            if let reason = Texts.fallbackReason(offer, secondsLeft: secondsLocked()), reason != message,
               messageIsCountdown || monotonicSeconds() - messageShownAt >= UIProcess.messageHoldSeconds {
                if !messageIsCountdown { Diagnostics.trace("message: \(reason)") }
                message = reason
                messageIsAlert = true
                messageIsCountdown = true
                dirty = true
            }
        }
        if clockText() != lastClock { dirty = true }
        if dirty { redraw() }
    }

    private func show(_ text: String, alert: Bool) {
        message = text
        messageIsAlert = alert
        messageIsCountdown = false
        messageShownAt = monotonicSeconds()
        Diagnostics.trace("message: \(text)")
        redraw()
    }

    private func clockText() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%H:%M", &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func redraw() {
        lastClock = clockText()
        let scene = Scene(lock: lock, clock: lastClock, userName: userName, message: message,
                          messageIsAlert: messageIsAlert, feedback: feedback,
                          switchLabel: Texts.switchLabel(mode: lock.mode, credential: lock.credentialMode),
                          passwordPlaceholder: Texts.passwordPlaceholder())
        canvas.painter.draw(scene, refusedPath: refusedPath)
        canvas.present()
    }

    /// The helper's answer for the owner, now.
    private func askOffer() {
        (offer, offerMayChange) = HelperQuery.offer(user: userName)
        offerAskedAt = monotonicSeconds()
        Diagnostics.trace("offer: \(offer)")
    }

    /// Asks the helper again while locked and shows what its answer allows:
    /// the PIN pad or grid when it can be used again (LockScreen keeps a
    /// password the person chose or is typing), laid out for the pattern's
    /// grid, with the line above the field said afresh and the screen redrawn.
    private func reask() {
        let before = (mode: lock.mode, offer: offer)
        askOffer()
        // Still locked (a timeout holds through its last whole second): count
        // down what it says now, instead of asking again at every tick.
        if case let .locked(seconds, _, _) = offer { lockedUntil = monotonicSeconds() + Double(max(seconds, 1)) }
        reaskSeconds = offer == before.offer ? min(reaskSeconds * 2, UIProcess.longestReaskSeconds) : UIProcess.firstReaskSeconds
        lock.update(offer: offer)
        if lock.layout.gridSize != gridSize { lock.layout = currentLayout() }
        if lock.mode != before.mode { Diagnostics.trace("mode: \(lock.mode) \(geometryTrace())") }
        guard lock.mode != before.mode || offer != before.offer else { return }
        // Still locked (a timeout holds through its last whole second): the
        // countdown in tick() says so, after a message it must let be read.
        if case .locked = offer, lock.mode == before.mode { return }
        if let reason = Texts.fallbackReason(offer, secondsLeft: secondsLocked()) {
            show(reason, alert: true)
            messageIsCountdown = true
        } else {
            show(Texts.prompt(for: lock.mode), alert: false)
        }
    }

    /// Where things are, for tests that click and drag as a person would.
    private func geometryTrace() -> String {
        let layout = lock.layout
        func at(_ point: Point) -> String { "\(Int(point.x)),\(Int(point.y))" }
        var parts = ["unit=\((layout.unit * 100).rounded() / 100)", "switch=\(at(Point(x: layout.switchButton.midX, y: layout.switchButton.midY)))"]
        switch lock.mode {
        case .pin:
            parts += layout.padKeys.compactMap { key, frame in
                if case let .digit(digit) = key { return "key\(digit)=\(at(Point(x: frame.midX, y: frame.midY)))" }
                return nil
            }
        case .pattern:
            parts += (1...(layout.gridSize * layout.gridSize)).map { "cell\($0)=\(at(layout.center(ofCell: $0)))" }
        case .password:
            break
        }
        return parts.joined(separator: " ")
    }
}
