import Glibc

/// Which session pingate-lock locks. XDG_SESSION_TYPE (set by logind for
/// the session) decides first: WAYLAND_DISPLAY alone can be stale, since a
/// sway config's `dbus-update-activation-environment --systemd` leaves it in
/// the user manager, and an X11 session started later inherits it; going by
/// it there would fail to lock X11 (or lock another running sway).
enum SessionKind: Equatable {
    case x11, wayland

    static var current: SessionKind {
        decide(sessionType: value("XDG_SESSION_TYPE"), display: value("DISPLAY"),
               waylandDisplay: value("WAYLAND_DISPLAY"))
    }

    /// x11 with a DISPLAY → X11; wayland → Wayland; anything else (unset,
    /// tty as under startx, or x11 with no DISPLAY) → Wayland when
    /// WAYLAND_DISPLAY is set, X11 otherwise.
    static func decide(sessionType: String?, display: String?, waylandDisplay: String?) -> SessionKind {
        switch sessionType {
        case "x11"? where display != nil: return .x11
        case "wayland"?: return .wayland
        default: return waylandDisplay != nil ? .wayland : .x11
        }
    }

    /// The variable's value; nil when unset or empty.
    private static func value(_ name: String) -> String? {
        guard let raw = getenv(name), raw.pointee != 0 else { return nil }
        return String(cString: raw)
    }
}
