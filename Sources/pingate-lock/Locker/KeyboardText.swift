import CX11
import Glibc
import PinGateLock

/// What a key press types, as the person's keyboard layout means it: every
/// layout's keysyms (Cyrillic, Greek, Hebrew, Arabic, Thai … not only
/// Latin-1), dead keys and the Compose key, through Xlib's own input method.
/// "@im=none" keeps it in this process: an input-method server would be one
/// more program that sees every key of the password.
final class KeyboardText {
    private let inputMethod: XIM?
    private let context: XIC?

    init(display: OpaquePointer, window: Window) {
        _ = XSetLocaleModifiers("@im=none")
        inputMethod = XOpenIM(display, nil, nil, nil)
        context = inputMethod.flatMap { pingate_create_ic($0, window) }
        if context == nil {
            Diagnostics.trace("no X input context for this locale: Latin-1 and Unicode keysyms only, no dead keys")
        } else {
            XSetICFocus(context)
        }
    }

    deinit {
        if let context { XDestroyIC(context) }
        if let inputMethod { XCloseIM(inputMethod) }
    }

    /// True when the input method took the event (a dead key waiting for the
    /// next one): it must then be passed on no further.
    func consumes(_ event: inout XEvent) -> Bool {
        XFilterEvent(&event, 0) != 0
    }

    /// The events of a key press, its keysym and the characters it typed,
    /// each handed to `forward` (`InputEvent.keyPress`). The text is looked up
    /// into a buffer zeroed afterwards, and decoded where it lies.
    func lookUp(_ event: inout XKeyEvent, _ forward: (InputEvent) -> Void) {
        var keysym: KeySym = 0
        var buffer = [CChar](repeating: 0, count: 64)
        defer { for index in buffer.indices { buffer[index] = 0 } }
        guard let context else {
            _ = XLookupString(&event, &buffer, Int32(buffer.count - 1), &keysym, nil)
            let code = UInt32(truncatingIfNeeded: keysym)
            if let character = Keysym.character(of: code) {
                InputEvent.keyPress(keysym: code, typed: CollectionOfOne(character), forward)
            } else {
                InputEvent.keyPress(keysym: code, typed: EmptyCollection(), forward)
            }
            return
        }
        var status: Int32 = 0
        let count = Xutf8LookupString(context, &event, &buffer, Int32(buffer.count - 1), &keysym, &status)
        let hasKeysym = status == XLookupKeySym || status == XLookupBoth
        let hasText = (status == XLookupChars || status == XLookupBoth) && count > 0
        buffer.withUnsafeBytes { bytes in
            let text = UnsafeRawBufferPointer(rebasing: bytes[..<(hasText ? Int(count) : 0)])
            InputEvent.keyPress(keysym: hasKeysym ? UInt32(truncatingIfNeeded: keysym) : 0, typed: UTF8Characters(text), forward)
        }
    }
}
