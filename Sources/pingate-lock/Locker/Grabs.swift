import CX11
import Glibc

/// The keyboard and pointer grabs, retried as i3lock and xsecurelock do: a
/// menu or a pressed key may hold a grab for a moment. Refusing loudly beats
/// a lock screen that does not lock.
enum Grabs {
    static let attempts = 200
    static let pause = 0.01  // seconds: two seconds in all

    static func take(display: OpaquePointer, window: Window, cursor: Cursor, attempts: Int = Grabs.attempts) -> Bool {
        var keyboard = false, pointer = false
        for attempt in 0..<attempts {
            if !pointer {
                let mask = UInt32(ButtonPressMask | ButtonReleaseMask | PointerMotionMask)
                pointer = XGrabPointer(display, window, 0, mask, GrabModeAsync, GrabModeAsync,
                                       0, cursor, UInt(CurrentTime)) == GrabSuccess
            }
            if !keyboard {
                keyboard = XGrabKeyboard(display, window, 0, GrabModeAsync, GrabModeAsync,
                                         UInt(CurrentTime)) == GrabSuccess
            }
            if keyboard && pointer { return true }
            if attempt + 1 < attempts { sleepSeconds(pause) }
        }
        if keyboard { XUngrabKeyboard(display, UInt(CurrentTime)) }
        if pointer { XUngrabPointer(display, UInt(CurrentTime)) }
        return false
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
