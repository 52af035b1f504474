import CX11
import Glibc
import PinGateLock

/// The part that holds the lock and does nothing else (xsecurelock's main.c):
/// one override-redirect window over the whole X screen (every RandR monitor,
/// resized when monitors come or go), the keyboard and pointer grabs, input
/// forwarded to the UI child, and the child restarted whenever it dies.
/// The screen unlocks only when the child has written "unlocked" on its
/// status pipe *and* exited with status 0; a crash, a kill or any other exit
/// starts a new UI while the cover and the grabs stay.
final class Locker {
    enum ExitStatus {
        static let unlocked: Int32 = 0
        static let cannotLock: Int32 = 1
        static let wouldBeDeadEnd: Int32 = 3
    }

    private var display: OpaquePointer!
    private var root: Window = 0
    private var cover: Window = 0
    /// The size the locker last gave the cover, at the root's origin: the
    /// screen's, as the root or RandR last reported it.
    private var coverSize: (width: Int32, height: Int32) = (0, 0)
    private var cursor: Cursor = 0
    private var randrEventBase: Int32 = -1
    private var child: UIChild?
    private var restarts = RestartPacing()
    /// After the grabs were lost (the cover unmapped, moved or destroyed by
    /// another client) the loop tries again for as long as it takes: every
    /// 5 ms for a second, then every 100 ms.
    private var grabs = Grabs()
    private var grabsLostAt = 0.0
    /// Raises are spaced at least this far apart, so a client that raises
    /// itself whenever the cover does cannot make the two spin the server.
    private static let raiseInterval = 0.05
    private var lastRaise = -1.0
    private var raisePending = false
    private var keyboard: KeyboardText!

    func run() -> Int32 {
        if let reason = Preflight.reasonNotToLock() {
            Diagnostics.error(reason)
            return ExitStatus.wouldBeDeadEnd
        }
        signal(SIGPIPE, SIG_IGN)
        // Closing the terminal it was started from must not unlock the screen.
        signal(SIGHUP, SIG_IGN)
        // An ignored SIGCHLD is inherited across exec; with it the kernel
        // would reap the UI, its exit (success included) would be lost, and
        // the screen would stay locked with no UI.
        signal(SIGCHLD, SIG_DFL)
        var childSignal = sigset_t()
        sigemptyset(&childSignal)
        sigaddset(&childSignal, SIGCHLD)
        sigprocmask(SIG_UNBLOCK, &childSignal, nil)
        guard let opened = XOpenDisplay(nil) else {
            Diagnostics.error(L("cannot open the X display %s — is DISPLAY set?", String(cString: getenv("DISPLAY") ?? strdup(""))))
            return ExitStatus.cannotLock
        }
        display = opened
        setCloseOnExec(XConnectionNumber(display))
        XErrorLog.install()
        createCover()
        keyboard = KeyboardText(display: display, window: cover)
        guard let taken = Grabs.take(display: display, window: cover, cursor: cursor) else {
            Diagnostics.error(L("cannot grab the keyboard and pointer — another program holds them (a menu or another locker?); not locking"))
            return ExitStatus.cannotLock
        }
        grabs = taken
        Diagnostics.trace("locked: cover 0x\(String(cover, radix: 16)) mapped, keyboard and pointer grabbed")
        SleepLock.release()
        return loop()
    }

    private func createCover() {
        let screen = XDefaultScreen(display)
        root = XRootWindow(display, screen)
        var attributes = XSetWindowAttributes()
        attributes.override_redirect = 1
        attributes.background_pixel = XBlackPixel(display, screen)
        attributes.event_mask = VisibilityChangeMask | StructureNotifyMask
        if cursor == 0 { cursor = XCreateFontCursor(display, UInt32(XC_left_ptr)) }
        attributes.cursor = cursor
        coverSize = (XDisplayWidth(display, screen), XDisplayHeight(display, screen))
        cover = XCreateWindow(display, root, 0, 0, UInt32(coverSize.width), UInt32(coverSize.height),
                              0, Int32(CopyFromParent), UInt32(InputOutput), nil,
                              UInt(CWOverrideRedirect | CWBackPixel | CWEventMask | CWCursor), &attributes)
        XStoreName(display, cover, "pingate-lock")
        // Monitors added or removed change the root window's size: follow it.
        XSelectInput(display, root, StructureNotifyMask | SubstructureNotifyMask)
        var errorBase: Int32 = 0
        if XRRQueryExtension(display, &randrEventBase, &errorBase) != 0 {
            XRRSelectInput(display, root, Int32(RRScreenChangeNotifyMask))
        } else {
            randrEventBase = -1
        }
        XMapRaised(display, cover)
        XSync(display, 0)
    }

    private func loop() -> Int32 {
        let connection = XConnectionNumber(display)
        while true {
            forEachPendingEvent(display) { handle(&$0) }
            if child == nil, restarts.due(at: monotonicSeconds()) {
                child = UIChild.start(coverWindow: cover)
                if child == nil { restarts.failed(at: monotonicSeconds()) }
            }
            if !grabs.both { retakeGrabs() }
            if raisePending { raiseCover() }
            var descriptors = [pollfd(fd: connection, events: Int16(POLLIN), revents: 0)]
            // The UI's exit wakes the poll through its pidfd, so an unlock is
            // reaped (and the screen opened) as soon as the UI has exited.
            if let child, child.exitFD >= 0 { descriptors.append(pollfd(fd: child.exitFD, events: Int16(POLLIN), revents: 0)) }
            let statusAt = descriptors.count
            if let child, !child.statusClosed { descriptors.append(pollfd(fd: child.statusFD, events: Int16(POLLIN), revents: 0)) }
            // Lost grabs and a raise held back are tried again soon.
            _ = poll(&descriptors, nfds_t(descriptors.count), pollTimeout())
            if let current = child, descriptors.count > statusAt, descriptors[statusAt].revents != 0 {
                current.readStatus()
            }
            if let current = child, let ending = current.ending() {
                child = nil
                if ending == .unlocked {
                    XUngrabKeyboard(display, UInt(CurrentTime))
                    XUngrabPointer(display, UInt(CurrentTime))
                    XDestroyWindow(display, cover)
                    XCloseDisplay(display)
                    // After the display is closed: the screen is open.
                    Diagnostics.trace("unlocked by the UI \(traceTime())")
                    return ExitStatus.unlocked
                }
                Diagnostics.error(L("the lock screen's UI stopped (%s); starting it again — the screen stays locked", ending.description))
                restarts.failed(at: monotonicSeconds())
            }
        }
    }

    private func handle(_ event: inout XEvent) {
        if keyboard.consumes(&event) { return }
        switch event.type {
        case KeyPress:
            // When, never which: the start of the benchmark's "key → unlocked".
            // (The stamps still show a secret's length and rhythm: the trace
            // is for tests only, as pingate-lock(1) says.)
            Diagnostics.trace("key press \(traceTime())")
            keyboard.lookUp(&event.xkey, forward)
        case ButtonPress:
            forward(.press(button: Int(event.xbutton.button), x: Int(event.xbutton.x_root), y: Int(event.xbutton.y_root)))
        case ButtonRelease:
            forward(.release(button: Int(event.xbutton.button), x: Int(event.xbutton.x_root), y: Int(event.xbutton.y_root)))
        case MotionNotify:
            forward(.motion(x: Int(event.xmotion.x_root), y: Int(event.xmotion.y_root)))
        case VisibilityNotify:
            if event.xvisibility.state != VisibilityUnobscured { raiseCover() }
        case MapNotify:
            if event.xmap.window != cover { raiseCover() }
        case ConfigureNotify where event.xconfigure.window == root:
            fitCoverToRoot(width: event.xconfigure.width, height: event.xconfigure.height)
        case ConfigureNotify where event.xconfigure.window == cover:
            // Any client may move or resize any window, and a cover off the
            // screen's origin or smaller than it shows the desktop beside it:
            // back over the whole screen. Once per change: the root's
            // substructure mask reports it too, and the locker's own fit
            // comes back here matching.
            guard event.xconfigure.event == cover else { return }
            let geometry = event.xconfigure
            if geometry.x != 0 || geometry.y != 0 || geometry.width != coverSize.width || geometry.height != coverSize.height {
                Diagnostics.trace("the cover was moved or resized by another client: covering the screen again")
                fitCoverToRoot(width: coverSize.width, height: coverSize.height)
            }
        case ConfigureNotify:
            // Another window was restacked: under a compositor the cover is
            // never told it is obscured, so look whether it went above.
            if isAboveCover(event.xconfigure.window) { raiseCover() }
        case UnmapNotify where event.xunmap.window == cover && event.xunmap.event == cover:
            // (Once: the root's substructure mask reports the same unmap.)
            // Any client may unmap any window; map it again and take the grabs back.
            Diagnostics.trace("the cover was unmapped by another client: mapping it again")
            XMapRaised(display, cover)
            coverDisturbed()
        case ReparentNotify where event.xreparent.window == cover && event.xreparent.parent != root:
            // Moved into another client's window: back to the root, on top.
            Diagnostics.trace("the cover was reparented by another client: taking it back")
            XReparentWindow(display, cover, root, 0, 0)
            XMapRaised(display, cover)
            coverDisturbed()
        case DestroyNotify where event.xdestroywindow.window == cover:
            // Destroyed (with another client's window it had been moved into):
            // a new cover at once, and a new UI for it (the old one drew in a
            // child of the window that is gone).
            Diagnostics.error(L("another program destroyed the lock screen's window; covering the screen again"))
            createCover()
            keyboard = KeyboardText(display: display, window: cover)
            child?.terminate()
            coverDisturbed()
        default:
            if randrEventBase >= 0, event.type == randrEventBase + RRScreenChangeNotify {
                XRRUpdateConfiguration(&event)
                let screen = XDefaultScreen(display)
                fitCoverToRoot(width: XDisplayWidth(display, screen), height: XDisplayHeight(display, screen))
            }
        }
    }

    /// After another client unmapped, moved or destroyed the cover: the
    /// grabs end with it. One try now; the loop goes on trying (never
    /// blocking here, so the next event — a reparent after an unmap — is
    /// handled at once).
    private func coverDisturbed() {
        XSync(display, 0)
        guard grabs.both else { return }
        grabs.lost()
        grabsLostAt = monotonicSeconds()
        if !retakeGrabs() {
            Diagnostics.error(L("lost the keyboard or pointer grab to another program; trying to take it back — the screen stays covered"))
        }
    }

    /// One try at each grab not held; says when both are held again.
    @discardableResult
    private func retakeGrabs() -> Bool {
        grabs.tryOnce(display: display, window: cover, cursor: cursor)
        if grabs.both { Diagnostics.trace("keyboard and pointer grabbed again") }
        return grabs.both
    }

    /// True if `window`, a child of the root, is stacked above the cover.
    private func isAboveCover(_ window: Window) -> Bool {
        var rootReturn: Window = 0, parent: Window = 0
        var children: UnsafeMutablePointer<Window>?
        var count: UInt32 = 0
        guard XQueryTree(display, root, &rootReturn, &parent, &children, &count) != 0, let children else { return false }
        defer { XFree(children) }
        // Bottom to top: whichever of the two comes last is above.
        let stack = UnsafeBufferPointer(start: children, count: Int(count))
        guard let windowAt = stack.lastIndex(of: window), let coverAt = stack.lastIndex(of: cover) else { return false }
        return windowAt > coverAt
    }

    /// Raises the cover, or, if it was raised less than `raiseInterval` ago,
    /// leaves that to the loop.
    private func raiseCover() {
        let now = monotonicSeconds()
        guard now - lastRaise >= Locker.raiseInterval else {
            raisePending = true
            return
        }
        XRaiseWindow(display, cover)
        XFlush(display)
        lastRaise = now
        raisePending = false
    }

    /// How long the loop may sleep: briefly while an exiting UI waits to be
    /// reaped without a pidfd to wake the poll, grabs are missing (5 ms for
    /// a second, then 100 ms) or a raise is held back; else a quarter second.
    private func pollTimeout() -> Int32 {
        if let child, child.statusClosed, child.exitFD < 0 { return 5 }
        if !grabs.both { return monotonicSeconds() - grabsLostAt < 1 ? 5 : 100 }
        if raisePending { return Int32(Locker.raiseInterval * 1000) }
        return 250
    }

    private func fitCoverToRoot(width: Int32, height: Int32) {
        guard width > 0, height > 0 else { return }
        coverSize = (width, height)
        Diagnostics.trace("screen is now \(width)x\(height): cover resized")
        XMoveResizeWindow(display, cover, 0, 0, UInt32(width), UInt32(height))
        raiseCover()
        XFlush(display)
    }

    private func forward(_ event: InputEvent) {
        child?.send(event)
    }
}
