#if canImport(CWaylandProtocols)
import CXKBCommon
import Glibc
import PinGateLock

/// Keys as the compositor's keymap reads them (xkbcommon), with dead keys
/// and Compose through the locale's compose table, turned into the UI's
/// key events: a keysym and the characters it typed. The characters may be
/// a password's: they pass through one small buffer, zeroed after each key.
struct WaylandKeyboard {
    private let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS)
    private var keymap: OpaquePointer?
    private var state: OpaquePointer?
    private var compose: OpaquePointer?
    private var text = [UInt8](repeating: 0, count: 64)

    init() {
        let names: [String] = ["LC_ALL", "LC_CTYPE", "LANG"]
        let locale = names.lazy.compactMap { (name: String) -> String? in getenv(name).map { String(cString: $0) } }.first { !$0.isEmpty }
        if let context, let table = xkb_compose_table_new_from_locale(context, locale ?? "C", XKB_COMPOSE_COMPILE_NO_FLAGS) {
            compose = xkb_compose_state_new(table, XKB_COMPOSE_STATE_NO_FLAGS)
            xkb_compose_table_unref(table)
        }
        Diagnostics.trace("compose table for \(locale ?? "C"): \(compose == nil ? "none" : "loaded")")
    }

    /// The keymap the compositor sent (a file descriptor to map, text in it).
    mutating func load(keymapFD fd: Int32, size: Int) {
        guard let context, size > 0,
              let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else { return }
        defer { munmap(mapped, size) }
        let text = mapped.assumingMemoryBound(to: CChar.self)
        guard let loaded = xkb_keymap_new_from_buffer(context, text, strnlen(text, size), XKB_KEYMAP_FORMAT_TEXT_V1,
                                                      XKB_KEYMAP_COMPILE_NO_FLAGS) else {
            Diagnostics.error("the compositor's keymap could not be read")
            return
        }
        if let state { xkb_state_unref(state) }
        if let keymap { xkb_keymap_unref(keymap) }
        keymap = loaded
        state = xkb_state_new(loaded)
    }

    mutating func modifiers(depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32) {
        guard let state else { return }
        xkb_state_update_mask(state, depressed, latched, locked, 0, 0, group)
    }

    /// Whether the keymap says the key repeats when held (letters and
    /// BackSpace do; modifiers and Return do not).
    func repeats(keycode: UInt32) -> Bool {
        guard let keymap else { return false }
        return xkb_keymap_key_repeats(keymap, keycode) != 0
    }

    /// A key pressed (an xkb keycode): its events, each handed to `forward`.
    mutating func press(keycode: UInt32, _ forward: (InputEvent) -> Void) {
        guard let state else { return }
        var keysym = xkb_state_key_get_one_sym(state, keycode)
        var count = 0
        defer { for index in text.indices { text[index] = 0 } }
        if let compose, xkb_compose_state_feed(compose, keysym) == XKB_COMPOSE_FEED_ACCEPTED {
            switch xkb_compose_state_get_status(compose) {
            case XKB_COMPOSE_COMPOSING:
                return  // a dead key or Compose: the next key says what it types
            case XKB_COMPOSE_CANCELLED:
                xkb_compose_state_reset(compose)
                return
            case XKB_COMPOSE_COMPOSED:
                keysym = xkb_compose_state_get_one_sym(compose)
                count = text.withUnsafeMutableBufferPointer {
                    Int(xkb_compose_state_get_utf8(compose, UnsafeMutableRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), $0.count))
                }
                xkb_compose_state_reset(compose)
            default:
                break
            }
        }
        if count == 0 {
            count = text.withUnsafeMutableBufferPointer {
                Int(xkb_state_key_get_utf8(state, keycode, UnsafeMutableRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), $0.count))
            }
        }
        count = min(max(count, 0), text.count - 1)
        text.withUnsafeBufferPointer {
            InputEvent.keyPress(keysym: keysym, typed: UTF8Characters(UnsafeBufferPointer(rebasing: $0[..<count])), forward)
        }
    }
}
#endif
