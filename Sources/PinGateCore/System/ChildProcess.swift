import Glibc

/// A child process started with posix_spawn: the thin layer the helper
/// client needs (spawn with stdin/stdout on given descriptors and an empty
/// environment, a bounded wait, a kill).
public struct ChildProcess: Sendable {
    public let pid: ProcessID

    /// How a child ended: its exit status, or the signal that killed it.
    public enum Termination: Equatable, Sendable {
        case exited(Int32)
        case killed(signal: Int32)
        /// Reaped by someone else: how it ended is not known.
        case lost

        /// A waitpid(2) status: WIFEXITED / WEXITSTATUS / WTERMSIG, spelled
        /// out, since the C macros do not import.
        public init(waitStatus status: CInt) {
            self = status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .killed(signal: status & 0x7F)
        }
    }

    /// posix_spawn(path) with `input` as its stdin, `output` as its stdout
    /// (and `errors`, if given, as its stderr), argv [path] + `arguments` and
    /// an empty environment: the caller's variables never reach a program
    /// that may be privileged.
    public static func spawn(_ path: String, arguments: [String] = [], input: FileDescriptor, output: FileDescriptor,
                             errors: FileDescriptor? = nil) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input.rawValue, 0)
        posix_spawn_file_actions_adddup2(&actions, output.rawValue, 1)
        if let errors { posix_spawn_file_actions_adddup2(&actions, errors.rawValue, 2) }
        var pid = ProcessID()
        let argv = ([path] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        let environment: [UnsafeMutablePointer<CChar>?] = [nil]
        let result = posix_spawn(&pid, path, &actions, nil, argv + [nil], environment)
        guard result == 0 else { throw Errno(rawValue: result) }
        return ChildProcess(pid: pid)
    }

    /// waitpid(WNOHANG) until the child ends or `deadline` passes; nil then.
    /// A child someone else reaped (an inherited SIGCHLD = SIG_IGN makes the
    /// kernel do it) has an unknown end: `.lost`, never a made-up exit 0.
    public func termination(by deadline: Deadline) -> Termination? {
        var status: CInt = 0
        var result: ProcessID = 0
        _ = deadline.retry {
            result = waitpid(pid, &status, WNOHANG)
            return result == pid || (result == -1 && errno != EINTR)
        }
        if result == pid { return Termination(waitStatus: status) }
        return result == -1 ? .lost : nil
    }

    /// SIGKILL, then waitpid: the child is gone when this returns.
    public func kill() {
        _ = Glibc.kill(pid, SIGKILL)
        var status: CInt = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
    }


}

extension FileDescriptor {
    /// pipe(2), both ends close-on-exec (pipe2 is not in Swift's Glibc): a
    /// spawned child then holds only the ends dup2'd onto its stdin and
    /// stdout, and sees the end of its request.
    public static func pipe() throws -> (read: FileDescriptor, write: FileDescriptor) {
        var ends: [CInt] = [-1, -1]
        _ = try retryingOnInterrupt { Glibc.pipe(&ends) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }

    /// poll(POLLIN) until data (or end of file) can be read, or `deadline`
    /// passes: true if readable.
    public func waitReadable(until deadline: Deadline) -> Bool {
        var descriptor = pollfd(fd: rawValue, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&descriptor, 1, CInt(clamping: deadline.millisecondsLeft))
            if ready > 0 { return true }
            if ready == 0 || errno != EINTR { return false }
        }
    }
}
