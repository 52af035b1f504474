import CX11
import Glibc

/// The keyboard and pointer grabs on the cover, each tracked on its own, so
/// that one held is kept while the other is tried again (letting a held
/// keyboard go to retry the pointer would let keys reach the window below).
struct Grabs {
    static let attempts = 200
    static let pause = 0.01  // seconds: two seconds in all

    private(set) var keyboard = false
    private(set) var pointer = false
    var both: Bool { keyboard && pointer }

    /// Tries each grab not held yet, once. Only on a viewable cover: a grab
    /// on a window that is gone fails with an X error, which Xlib reports
    /// as GrabSuccess.
    mutating func tryOnce(display: OpaquePointer, window: Window, cursor: Cursor) {
        var attributes = XWindowAttributes()
        guard XGetWindowAttributes(display, window, &attributes) != 0, attributes.map_state == IsViewable else { return }
        if !pointer {
            let mask = UInt32(ButtonPressMask | ButtonReleaseMask | PointerMotionMask)
            pointer = XGrabPointer(display, window, 0, mask, GrabModeAsync, GrabModeAsync,
                                   0, cursor, UInt(CurrentTime)) == GrabSuccess
        }
        if !keyboard {
            keyboard = XGrabKeyboard(display, window, 0, GrabModeAsync, GrabModeAsync,
                                     UInt(CurrentTime)) == GrabSuccess
        }
    }

    /// The cover was unmapped, moved or destroyed: X ended both grabs.
    mutating func lost() { (keyboard, pointer) = (false, false) }

    /// At lock time, retried as i3lock and xsecurelock do (a menu or a pressed
    /// key may hold a grab for a moment); if they cannot both be had, neither
    /// is kept. Refusing loudly beats a lock screen that does not lock.
    static func take(display: OpaquePointer, window: Window, cursor: Cursor) -> Grabs? {
        var grabs = Grabs()
        for attempt in 0..<attempts {
            grabs.tryOnce(display: display, window: window, cursor: cursor)
            if grabs.both { return grabs }
            if attempt + 1 < attempts { sleepSeconds(pause) }
        }
        if grabs.keyboard { XUngrabKeyboard(display, UInt(CurrentTime)) }
        if grabs.pointer { XUngrabPointer(display, UInt(CurrentTime)) }
        return nil
    }
}

/// X protocol errors (a window gone between two requests) are logged, never
/// fatal: Xlib's default handler would exit, and the locker's exit unlocks.
enum XErrorLog {
    static func install() {
        XSetErrorHandler { _, event in
            if let event {
                Diagnostics.error("X error \(event.pointee.error_code) on request \(event.pointee.request_code)")
            }
            return 0
        }
    }
}

/// xss-lock's --transfer-sleep-lock: it holds a logind delay inhibitor open on
/// the descriptor XSS_SLEEP_LOCK_FD names, and suspend waits until the locker
/// closes it — which it does once the cover is up and the grabs are held.
enum SleepLock {
    static func release() {
        guard let value = getenv("XSS_SLEEP_LOCK_FD"), let fd = Int32(String(cString: value)), fd > 2 else { return }
        close(fd)
        unsetenv("XSS_SLEEP_LOCK_FD")
        Diagnostics.trace("sleep lock fd \(fd) released")
    }
}
