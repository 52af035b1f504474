#if canImport(CWaylandProtocols)
import CWaylandProtocols
import Glibc
import PinGateLock

/// A seat's keyboard, pointer and touch, turned into the InputEvent lines the
/// UI child reads (the X11 locker sends the same). Positions on an output's
/// lock surface become positions in the image (OutputGeometry.imagePoint);
/// a touch is the left button (TouchPointer).
final class WaylandSeat {
    private let seat: OpaquePointer
    private unowned let locker: WaylandLocker
    private var keyboard: OpaquePointer?, pointer: OpaquePointer?, touch: OpaquePointer?
    private var keys = WaylandKeyboard()
    /// The surface the pointer is over, and where on it.
    private var pointerSurface: OpaquePointer?
    private var pointerAt = (x: 0.0, y: 0.0)
    private var touchPointer = TouchPointer()
    /// wl_keyboard.repeat_info: keys per second (0: no repeat) and the
    /// delay before the first repeat. The held key is kept by its keycode
    /// only: each repeat is turned into text again, as a press is.
    private var repeatRate: Int32 = 0, repeatDelay: Int32 = 0
    private var held: (keycode: UInt32, next: Double)?

    init(seat: OpaquePointer, locker: WaylandLocker) {
        (self.seat, self.locker) = (seat, locker)
        wl_seat_add_listener(seat, seatListener, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The seat's devices as they are now. When the last keyboard (or
    /// pointer, or touch screen) goes, the compositor makes the object inert
    /// (wlroots does): it is released, and a new one asked for when a device
    /// comes back — a USB keyboard plugged in again, or the next wtype.
    func capabilities(_ capabilities: UInt32) {
        let data = Unmanaged.passUnretained(self).toOpaque()
        let has = { (capability: wl_seat_capability) in capabilities & capability.rawValue != 0 }
        if has(WL_SEAT_CAPABILITY_KEYBOARD), keyboard == nil {
            keyboard = wl_seat_get_keyboard(seat)
            wl_keyboard_add_listener(keyboard, keyboardListener, data)
        } else if !has(WL_SEAT_CAPABILITY_KEYBOARD), let keyboard {
            wl_keyboard_release(keyboard)
            self.keyboard = nil
            held = nil
        }
        if has(WL_SEAT_CAPABILITY_POINTER), pointer == nil {
            pointer = wl_seat_get_pointer(seat)
            wl_pointer_add_listener(pointer, pointerListener, data)
        } else if !has(WL_SEAT_CAPABILITY_POINTER), let pointer {
            wl_pointer_release(pointer)
            self.pointer = nil
            pointerSurface = nil
        }
        if has(WL_SEAT_CAPABILITY_TOUCH), touch == nil {
            touch = wl_seat_get_touch(seat)
            wl_touch_add_listener(touch, touchListener, data)
        } else if !has(WL_SEAT_CAPABILITY_TOUCH), let touch {
            touchCancelled()
            wl_touch_release(touch)
            self.touch = nil
        }
    }

    // MARK: keyboard

    func keymap(format: UInt32, fd: Int32, size: UInt32) {
        defer { close(fd) }
        guard format == WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue else { return }
        keys.load(keymapFD: fd, size: Int(size))
    }

    func key(_ key: UInt32, pressed: Bool) {
        let keycode = key + 8
        guard pressed else {
            if held?.keycode == keycode { held = nil }
            return
        }
        // When, never which: the start of "key → unlocked" (lock_latency.sh).
        Diagnostics.trace("key press \(traceTime())")
        keys.press(keycode: keycode) { locker.forward($0) }
        held = repeatRate > 0 && keys.repeats(keycode: keycode)
            ? (keycode, monotonicSeconds() + Double(repeatDelay) / 1000) : nil
    }

    func repeatInfo(rate: Int32, delay: Int32) {
        (repeatRate, repeatDelay) = (max(rate, 0), max(delay, 0))
        if repeatRate == 0 { held = nil }
    }

    /// The keyboard's focus left the lock surface: nothing is held any more.
    func keyboardLeft() { held = nil }

    /// When the held key repeats next (the locker's poll wakes then), or nil.
    var nextRepeat: Double? { held?.next }

    /// The held key's repeats that are due, each as a press.
    func repeatHeldKey(now: Double) {
        guard let current = held, repeatRate > 0 else { return }
        var next = current.next
        // At most a few at once: a locker that was not scheduled for a
        // while does not type a burst.
        for _ in 0..<4 where next <= now {
            Diagnostics.trace("key repeat \(traceTime())")
            keys.press(keycode: current.keycode) { locker.forward($0) }
            next += 1 / Double(repeatRate)
        }
        held = (current.keycode, max(next, now))
    }

    func modifiers(depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32) {
        keys.modifiers(depressed: depressed, latched: latched, locked: locked, group: group)
    }

    // MARK: pointer

    func pointerMoved(surface: OpaquePointer?, x: Double, y: Double) {
        if let surface { pointerSurface = surface }
        pointerAt = (x, y)
        guard let point = locker.imagePoint(surface: pointerSurface, x: x, y: y) else { return }
        locker.forward(.motion(x: point.x, y: point.y))
    }

    func button(_ button: UInt32, pressed: Bool) {
        // Linux's BTN_LEFT, BTN_RIGHT, BTN_MIDDLE are X's 1, 3, 2.
        let number: Int
        switch button {
        case 0x110: number = 1
        case 0x111: number = 3
        case 0x112: number = 2
        default: return
        }
        guard let point = locker.imagePoint(surface: pointerSurface, x: pointerAt.x, y: pointerAt.y) else { return }
        // When, never where: the start of "release → unlocked" for the tests.
        Diagnostics.trace("button \(pressed ? "press" : "release") \(traceTime())")
        locker.forward(pressed ? .press(button: number, x: point.x, y: point.y) : .release(button: number, x: point.x, y: point.y))
    }

    // MARK: touch (TouchPointer: the first finger is the left button)

    func touchDown(surface: OpaquePointer?, id: Int32, x: Double, y: Double) {
        guard let geometry = locker.geometry, let output = locker.outputIndex(of: surface) else { return }
        touchPointer.down(id: id, output: output, x: x, y: y, in: geometry) { locker.forward($0) }
    }

    func touchMoved(id: Int32, x: Double, y: Double) {
        guard let geometry = locker.geometry else { return }
        touchPointer.motion(id: id, x: x, y: y, in: geometry) { locker.forward($0) }
    }

    func touchUp(id: Int32) { touchPointer.up(id: id) { locker.forward($0) } }

    func touchCancelled() { touchPointer.cancel { locker.forward($0) } }
}

private func seatOf(_ data: UnsafeMutableRawPointer?) -> WaylandSeat {
    Unmanaged<WaylandSeat>.fromOpaque(data!).takeUnretainedValue()
}

private func fixed(_ value: wl_fixed_t) -> Double { wl_fixed_to_double(value) }

nonisolated(unsafe) private let seatListener: UnsafeMutablePointer<wl_seat_listener> = {
    var listener = wl_seat_listener()
    listener.capabilities = { data, _, capabilities in seatOf(data).capabilities(capabilities) }
    listener.name = { _, _, _ in }
    return listenerTable(listener)
}()

nonisolated(unsafe) private let keyboardListener: UnsafeMutablePointer<wl_keyboard_listener> = {
    var listener = wl_keyboard_listener()
    listener.keymap = { data, _, format, fd, size in seatOf(data).keymap(format: format, fd: fd, size: size) }
    listener.enter = { _, _, _, _, _ in }
    listener.leave = { data, _, _, _ in seatOf(data).keyboardLeft() }
    listener.key = { data, _, _, _, key, state in
        seatOf(data).key(key, pressed: state == WL_KEYBOARD_KEY_STATE_PRESSED.rawValue)
    }
    listener.modifiers = { data, _, _, depressed, latched, locked, group in
        seatOf(data).modifiers(depressed: depressed, latched: latched, locked: locked, group: group)
    }
    listener.repeat_info = { data, _, rate, delay in seatOf(data).repeatInfo(rate: rate, delay: delay) }
    return listenerTable(listener)
}()

nonisolated(unsafe) private let pointerListener: UnsafeMutablePointer<wl_pointer_listener> = {
    var listener = wl_pointer_listener()
    listener.enter = { data, _, _, surface, x, y in seatOf(data).pointerMoved(surface: surface, x: fixed(x), y: fixed(y)) }
    listener.leave = { _, _, _, _ in }
    listener.motion = { data, _, _, x, y in seatOf(data).pointerMoved(surface: nil, x: fixed(x), y: fixed(y)) }
    listener.button = { data, _, _, _, button, state in
        seatOf(data).button(button, pressed: state == WL_POINTER_BUTTON_STATE_PRESSED.rawValue)
    }
    listener.axis = { _, _, _, _, _ in }
    listener.frame = { _, _ in }
    listener.axis_source = { _, _, _ in }
    listener.axis_stop = { _, _, _, _ in }
    listener.axis_discrete = { _, _, _, _ in }
    return listenerTable(listener)
}()

nonisolated(unsafe) private let touchListener: UnsafeMutablePointer<wl_touch_listener> = {
    var listener = wl_touch_listener()
    listener.down = { data, _, _, _, surface, id, x, y in
        seatOf(data).touchDown(surface: surface, id: id, x: fixed(x), y: fixed(y))
    }
    listener.up = { data, _, _, _, id in seatOf(data).touchUp(id: id) }
    listener.motion = { data, _, _, id, x, y in seatOf(data).touchMoved(id: id, x: fixed(x), y: fixed(y)) }
    listener.frame = { _, _ in }
    listener.cancel = { data, _ in seatOf(data).touchCancelled() }
    return listenerTable(listener)
}()
#endif
