import CPinGateSystem
import Glibc

// pingate-lock — PinGate's X11 screen locker (pingate-lock(1)).
//
// One binary, two roles, as xsecurelock splits main.c from its auth helper:
//   pingate-lock                 the locker: covers every monitor, holds the
//                                keyboard and pointer grabs, forwards input
//                                to the UI child and restarts it when it dies;
//                                only the child's explicit success unlocks.
//   pingate-lock --ui-child WIN  (internal) the UI: draws the dialog in a
//                                child window of WIN and runs PAM.

// Both roles see what is typed: no core file, and no ptrace or /proc/PID/mem
// for other processes of the user (the UI holds the password while PAM runs).
_ = cpingate_disable_core_dumps()
Localization.start()
var arguments = CommandLine.arguments.dropFirst()

switch arguments.first {
case "--ui-child"?:
    guard arguments.count == 2, let window = UInt(arguments.last!) else {
        Diagnostics.fail("--ui-child is internal: pingate-lock starts it itself", status: 2)
    }
    exit(UIProcess(coverWindow: window).run())
case "-h"?, "--help"?:
    printLine(L("usage: pingate-lock [--help] [--version]"))
    printLine(L("Locks the X11 session until you enter your PinGate PIN or pattern, or your password."))
    printLine(L("Use it with xss-lock to lock on idle and before suspend: xss-lock --transfer-sleep-lock -- pingate-lock"))
    exit(0)
case "--version"?:
    printLine("pingate-lock 0.3.0")
    exit(0)
case nil:
    exit(Locker().run())
default:
    Diagnostics.fail(L("unknown argument %s (try pingate-lock --help)", arguments.first!), status: 2)
}
