/// An X display named in PAM_TTY, where a display manager's worker puts
/// the display it serves. lightdm's session child sets PAM_TTY (and
/// PAM_XDISPLAY) to an XDMCP or remote X server's address, "HOST:N"
/// (`x_server_get_address`), and never sets PAM_RHOST: without this its
/// root worker, outside any session, would be judged by PAM_RHOST alone and
/// offer the PIN to whoever sits at the remote X terminal. (gdm sets
/// PAM_RHOST for every display that is not local, XDMCP and remote login
/// alike: docs/design.md, section 8.)
enum XDisplayName {
    /// The host of X display name "[PROTOCOL/]HOST:DISPLAY[.SCREEN]" (DECnet:
    /// "HOST::DISPLAY"; IPv6: "::1:0") when it names one: a display reached
    /// over a network, `localhost` too (ssh's forwarded displays, like a
    /// loopback PAM_RHOST). nil for this machine's own socket (":0",
    /// "unix:0", "unix/:0") and for a terminal's name ("tty1", "pts/3",
    /// "/dev/tty7", "ssh"), which holds no colon.
    static func remoteHost(of name: String) -> String? {
        guard let colon = name.lastIndex(of: ":") else { return nil }
        var host = name[..<colon]
        if host.hasSuffix(":") { host = host.dropLast() }
        if let slash = host.firstIndex(of: "/") {
            let transport = host[..<slash]
            host = host[host.index(after: slash)...]
            if transport == "unix" || transport == "local" { return nil }
        }
        return host.isEmpty || host == "unix" ? nil : String(host)
    }
}
