import CPinGateSystem
import Glibc
import PinGateLock

// pingate-lock — PinGate's X11 screen locker (pingate-lock(1)).
//
// One binary, two roles, as xsecurelock splits main.c from its auth helper:
//   pingate-lock                 the locker: covers every monitor, holds the
//                                keyboard and pointer grabs, forwards input
//                                to the UI child and restarts it when it dies;
//                                only the child's explicit success unlocks.
//   pingate-lock --ui-child WIN  (internal) the UI: draws the dialog in a
//                                child window of WIN and runs PAM.
// On Wayland the locker is WaylandLocker (the session lock, its surfaces and
// the input, which must share one connection) and the UI child
// (--ui-child shm:SIZES) draws into memory the locker shows.

// Both roles see what is typed: no core file, and no ptrace or /proc/PID/mem
// for other processes of the user (the UI holds the password while PAM runs).
_ = cpingate_disable_core_dumps()
Localization.start()
var arguments = CommandLine.arguments.dropFirst()

switch arguments.first {
case "--ui-child"?:
    if arguments.count == 2, arguments.last!.hasPrefix("shm:"),
       let geometry = OutputGeometry(spec: String(arguments.last!.dropFirst(4))) {
        exit(UIProcess(canvas: SharedMemoryCanvas(geometry: geometry)).run())
    }
    guard arguments.count == 2, let window = UInt(arguments.last!) else {
        Diagnostics.fail("--ui-child is internal: pingate-lock starts it itself", status: 2)
    }
    exit(UIProcess(canvas: XCanvas(coverWindow: window)).run())
case "-h"?, "--help"?:
    printLine(L("usage: pingate-lock [--daemonize] [--help] [--version]"))
    printLine(L("Locks the X11 session until you enter your PinGate PIN or pattern, or your password."))
    printLine(L("Use it with xss-lock to lock on idle and before suspend: xss-lock --transfer-sleep-lock -- pingate-lock"))
    printLine(L("On Wayland (sway, labwc, …) --daemonize returns once the screen is locked, for swayidle's before-sleep."))
    exit(0)
case "--version"?:
    printLine("pingate-lock 0.3.0")
    exit(0)
case "--daemonize"? where arguments.count == 1:
    guard SessionKind.current == .wayland else {
        Diagnostics.fail(L("--daemonize is for Wayland sessions; on X11 use xss-lock --transfer-sleep-lock"), status: 2)
    }
    exit(waylandLock(daemonize: true))
case nil:
    // A Wayland session: the compositor locks (ext-session-lock-v1); an X11
    // locker there would cover Xwayland's windows only.
    if SessionKind.current == .wayland { exit(waylandLock(daemonize: false)) }
    exit(Locker().run())
default:
    Diagnostics.fail(L("unknown argument %s (try pingate-lock --help)", arguments.first!), status: 2)
}
