import CPinGateSystem
import Glibc
import PinGateCore
import PinGateLock

/// One run of the UI process, seen from the locker: the input pipe it reads
/// as stdin, the status pipe it writes on fd 3, and how it ended.
final class UIChild {
    enum Ending: Equatable, CustomStringConvertible {
        case unlocked
        case failed(String)
        var description: String {
            switch self {
            case .unlocked: return "unlocked"
            case let .failed(why): return why
            }
        }
    }

    let pid: pid_t
    let statusFD: Int32
    /// Readable the moment the UI exits (pidfd_open), so the locker's poll
    /// wakes for the reap at once; -1 without one (a kernel older than 5.3,
    /// a seccomp filter), and the locker then looks every 5 ms.
    let exitFD: Int32
    private let inputFD: Int32
    private var statusText: [UInt8] = []
    private(set) var statusClosed = false

    private init(pid: pid_t, inputFD: Int32, statusFD: Int32) {
        (self.pid, self.inputFD, self.statusFD) = (pid, inputFD, statusFD)
        // Opened before anything reaps the child, so it names this process;
        // close-on-exec (pidfd_open always sets it).
        exitFD = cpingate_pidfd_open(pid)
    }

    static func start(coverWindow: UInt) -> UIChild? {
        start(canvasArgument: String(coverWindow), descriptors: [])
    }

    /// Starts `pingate-lock --ui-child CANVAS` with the pipes on 0 and 3 and
    /// each of `descriptors` (the locker's, the child's number) given too.
    static func start(canvasArgument: String, descriptors: [(Int32, Int32)]) -> UIChild? {
        guard let inputPipe = try? FileDescriptor.pipe() else { return nil }
        guard let statusPipe = try? FileDescriptor.pipe() else { inputPipe.read.close(); inputPipe.write.close(); return nil }
        let input = [inputPipe.read.rawValue, inputPipe.write.rawValue]
        let status = [statusPipe.read.rawValue, statusPipe.write.rawValue]
        // A stuck UI must never stop the locker: input it cannot take is
        // dropped, and a status pipe that a grandchild (a PAM module that
        // forked) still holds open is read only as far as it has data.
        _ = fcntl(input[1], F_SETFL, fcntl(input[1], F_GETFL) | O_NONBLOCK)
        _ = fcntl(status[0], F_SETFL, fcntl(status[0], F_GETFL) | O_NONBLOCK)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, status[1], 3)
        // Each given descriptor is first copied above every number the child
        // is given (0, 3 and theirs), so no dup2 overwrites one still to be
        // copied: a memfd that happens to be 5 would otherwise become the
        // frame pipe. The copies are close-on-exec, and closed below.
        let lifted = descriptors.map { (own, childs) in (fcntl(own, F_DUPFD_CLOEXEC, 16), childs) }
        defer { for (copy, _) in lifted where copy >= 0 { close(copy) } }
        for (copy, childs) in lifted { posix_spawn_file_actions_adddup2(&actions, copy, childs) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        // Default SIGCHLD too (an ignored one is inherited across exec, and
        // then PAM could not wait for its helpers), and nothing blocked.
        var defaults = sigset_t(), unblocked = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        sigaddset(&defaults, SIGCHLD)
        sigemptyset(&unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv = ["pingate-lock", "--ui-child", canvasArgument]
        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        var cEnvironment: [UnsafeMutablePointer<CChar>?] = uiEnvironment().map { strdup($0) } + [nil]
        defer { (cArguments + cEnvironment).forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, ownPath(), &actions, &attributes, &cArguments, &cEnvironment)
        posix_spawn_file_actions_destroy(&actions)
        posix_spawnattr_destroy(&attributes)
        close(input[0])
        close(status[1])
        guard rc == 0 else {
            Diagnostics.error("cannot start the UI: \(String(cString: strerror(rc)))")
            close(input[1]); close(status[0])
            return nil
        }
        Diagnostics.trace("UI started: pid \(pid)")
        return UIChild(pid: pid, inputFD: input[1], statusFD: status[0])
    }

    /// The locker's environment for the UI (UIEnvironment: no crash
    /// backtraces, no way to the Wayland compositor).
    private static func uiEnvironment() -> [String] {
        var entries: [String] = []
        var cursor = environ
        while let entry = cursor.pointee {
            entries.append(String(cString: entry))
            cursor += 1
        }
        return UIEnvironment.forChild(of: entries)
    }

    /// This binary's path, so the UI shows as pingate-lock in ps; /proc/self/exe
    /// if it was replaced or removed since it started (an upgrade).
    private static func ownPath() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return "/proc/self/exe" }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return path.hasSuffix(" (deleted)") ? "/proc/self/exe" : path
    }

    /// Ends this UI (its window is gone); `ending()` then reaps it and the
    /// locker starts another.
    func terminate() {
        kill(pid, SIGKILL)
    }

    func send(_ event: InputEvent) {
        _ = event.withLine { write(inputFD, $0.baseAddress, $0.count) }
    }

    /// Reads what the status pipe holds now (it never blocks, and a writer
    /// that never stops cannot keep it here); at EOF marks it closed.
    func readStatus() {
        var buffer = [UInt8](repeating: 0, count: 64)
        for _ in 0..<8 where !statusClosed {
            let count = buffer.withUnsafeMutableBytes { read(statusFD, $0.baseAddress, $0.count) }
            if count > 0 {
                if statusText.count < 64 { statusText += buffer[..<count] }
            } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                statusClosed = true
            } else if errno == EAGAIN {
                return
            }
        }
    }

    /// How the child ended, once it has; nil while it runs.
    func ending() -> Ending? {
        var status: Int32 = 0
        let reaped = waitpid(pid, &status, WNOHANG)
        // ECHILD: someone else reaped it (SIGCHLD was ignored when the locker
        // started); its status is lost, which is never an unlock.
        if reaped == -1 && errno == ECHILD { return finish(.failed("its exit status was lost")) }
        guard reaped == pid else { return nil }
        // What the UI wrote before it exited is in the pipe now.
        readStatus()
        let said = statusText == Array("unlocked\n".utf8)
        switch ChildProcess.Termination(waitStatus: status) {
        case .exited(0) where said: return finish(.unlocked)
        case let .killed(signal): return finish(.failed("killed by signal \(signal)"))
        case let .exited(code): return finish(.failed("exit status \(code)\(said ? "" : ", no success message")"))
        case .lost: return finish(.failed("its exit status was lost"))
        }
    }

    private func finish(_ ending: Ending) -> Ending {
        close(inputFD)
        close(statusFD)
        if exitFD >= 0 { close(exitFD) }
        return ending
    }
}
