#if canImport(CWaylandProtocols)
import Glibc

/// `pingate-lock --daemonize` (swaylock's -f): the command returns once the
/// compositor has locked the session, so swayidle's `before-sleep` can let
/// the machine sleep locked. The locker runs on in a child (its own session,
/// so the caller's terminal or process group can end without it); the
/// parent waits on a pipe for the child's "locked" byte and exits 0, or 1 if
/// the pipe closes without it (the child could not lock, and said why on
/// stderr, which both share).
enum Daemon {
    nonisolated(unsafe) private static var lockedFD: Int32 = -1

    static func detach() {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { Diagnostics.fail("cannot make a pipe: \(String(cString: strerror(errno)))") }
        switch fork() {
        case -1:
            Diagnostics.fail("cannot fork: \(String(cString: strerror(errno)))")
        case 0:
            close(ends[0])
            setCloseOnExec(ends[1])
            _ = setsid()
            lockedFD = ends[1]
        default:
            close(ends[1])
            var byte: UInt8 = 0
            var count: Int
            repeat { count = read(ends[0], &byte, 1) } while count < 0 && errno == EINTR
            exit(count == 1 ? 0 : 1)
        }
    }

    /// The compositor said the session is locked: the waiting parent may go.
    static func locked() {
        guard lockedFD >= 0 else { return }
        var byte = UInt8(ascii: "L")
        _ = write(lockedFD, &byte, 1)
        close(lockedFD)
        lockedFD = -1
    }
}
#endif
