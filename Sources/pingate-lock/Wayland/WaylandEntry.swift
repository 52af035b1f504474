#if canImport(CWaylandProtocols)
/// The Wayland locker, when this build has it (SwiftPM 6.3 or later builds
/// the generated protocol code: Packages/WaylandProtocols).
func waylandLock(daemonize: Bool) -> Int32 {
    if daemonize { Daemon.detach() }
    return WaylandLocker().run()
}
#else
func waylandLock(daemonize: Bool) -> Int32 {
    Diagnostics.error(L("not locking: this is a Wayland session and this pingate-lock was built without Wayland support; an X11 lock would cover only Xwayland's windows"))
    return Locker.ExitStatus.cannotLock
}
#endif
