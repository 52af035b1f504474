/// The environment the locker gives its UI child, from its own.
///
/// Swift's crash backtraces are off: a backtrace prints registers and the
/// memory around them to stderr (the session's log), and the UI holds what
/// is being typed.
///
/// No way to the Wayland compositor: the UI runs PAM and holds the secrets,
/// and on Wayland the session lock, its surfaces and all input belong to the
/// locker's connection, so the UI (or a PAM module or library in it) must
/// not have one of its own. WAYLAND_SOCKET goes (an inherited connection's
/// descriptor number; libwayland's own descriptors are close-on-exec), and
/// WAYLAND_DISPLAY names a path that is no socket: merely absent, libwayland
/// (and GTK) would try "wayland-0" in XDG_RUNTIME_DIR, which stays (PAM
/// modules such as gnome-keyring's find their sockets there).
public enum UIEnvironment {
    public static let noCompositor = "WAYLAND_DISPLAY=/dev/null"

    public static func forChild(of parent: [String]) -> [String] {
        let dropped = ["SWIFT_BACKTRACE=", "WAYLAND_DISPLAY=", "WAYLAND_SOCKET="]
        return parent.filter { entry in !dropped.contains { entry.hasPrefix($0) } }
            + ["SWIFT_BACKTRACE=enable=no", noCompositor]
    }
}
