import Glibc
import CPinGateSystem
import CPinGateContract

/// What a setgid program must do before trusting anything about its process:
/// its caller chose the environment, the umask, the signal dispositions, the
/// open descriptors and the resource limits.
enum ProcessHardening {
    /// A caller with effective uid 0 is root, whatever its real uid: sudo,
    /// su and pkexec run PAM so, for the user who ran them. The helper judges
    /// its caller by the real uid, so it takes all of root's ids first. (The
    /// PAM module starts it with posix_spawn, which cannot change ids; for
    /// unix_chkpwd, pam_unix's forked child does this.) Only a root caller
    /// can give the helper euid 0: it is setgid, never setuid. From here on,
    /// the user who ran sudo can no longer send it signals. If the change is
    /// refused (a seccomp filter, an LSM), the run ends unanswered, which the
    /// module takes as no answer, as it did the forked child's exit 127.
    static func takeRootsRealUID() {
        guard geteuid() == 0, getuid() != 0 else { return }
        if setuid(0) != 0 || getuid() != 0 { _exit(127) }
    }

    /// /dev/null on `descriptor` if the caller left it closed.
    private static func keepOpen(_ descriptor: CInt) {
        guard fcntl(descriptor, F_GETFD) == -1 else { return }
        let devNull = open("/dev/null", O_RDWR)
        if devNull >= 0, devNull != descriptor { dup2(devNull, descriptor); close(devNull) }
    }

    static func apply() {
        leaveCallersJobControl()
        // Descriptors 0–2 must exist, or a later open would land on them and
        // an answer could be written into a store file; and so must the
        // follow-up's (FollowUp), or a file still open when the run waits
        // for its verify (a record, the log's socket) would be read as one.
        for descriptor: CInt in 0...2 { keepOpen(descriptor) }
        keepOpen(PINGATE_FOLLOW_UP_FD)
        // Nothing from the environment is used; drop it so no library sees it.
        clearenv()
        setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 1)
        umask(0o077)
        // Default dispositions (ignored signals are inherited across exec),
        // except SIGPIPE: a caller that closes the pipe must not stop the log
        // line. Job-control stops (SIGTSTP, SIGTTIN, SIGTTOU) are ignored too,
        // for a helper run in a terminal's own process group (where setsid
        // fails, below): a stopped helper would hold its record's locks.
        // SIGSTOP itself cannot be ignored; the lock waits' deadlines are what
        // bound that. And SIGXFSZ: a caller's RLIMIT_FSIZE (`ulimit -f 0`)
        // must turn the in-place slot write into an EFBIG error answer, not a
        // silent death. (In C: cpingate_reset_signals_for_helper.)
        cpingate_reset_signals_for_helper()
        var mask = sigset_t()
        sigemptyset(&mask)
        sigprocmask(SIG_SETMASK, &mask, nil)
        // No core files: they would hold the secret and the machine key.
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(CInt(RLIMIT_CORE.rawValue), &noCore)
        _ = cpingate_disable_core_dumps()
        takeMemoryLockLimit()
    }

    /// The soft RLIMIT_MEMLOCK raised to the hard one: the machine key is
    /// read only onto a page locked in RAM unless something other than the
    /// limit refuses the lock (`MachineKeyPage`), so a caller that lowered
    /// the soft limit alone does not turn the PIN off. One that lowered the
    /// hard limit (`prlimit --memlock=0`) does: then no key is read, no PIN
    /// is offered and the password works. (Refused in pingate-verify@'s
    /// sandbox, whose filter denies @resources: there the limit is the
    /// service's own, ample.)
    private static func takeMemoryLockLimit() {
        var memoryLock = rlimit()
        guard getrlimit(CInt(__RLIMIT_MEMLOCK.rawValue), &memoryLock) == 0, memoryLock.rlim_cur < memoryLock.rlim_max else { return }
        memoryLock.rlim_cur = memoryLock.rlim_max
        setrlimit(CInt(__RLIMIT_MEMLOCK.rawValue), &memoryLock)
    }

    /// A new session, so the caller's terminal cannot stop or interrupt a
    /// verification half-way. The terminal sends Ctrl-Z (SIGTSTP), Ctrl-C
    /// (SIGINT) and Ctrl-\ (SIGQUIT) to its foreground process group, which
    /// the helper inherits from sudo or a locker; a helper stopped while it
    /// holds a record's lock, or with its verification in flight, makes every
    /// later request for that user wait. In its own session it has no
    /// controlling terminal and belongs to no job. setsid fails only for a
    /// process-group leader (a helper a shell ran as a job by itself, never
    /// one the PAM module forked); then it keeps a group of its own, and the
    /// ignored SIGTSTP/SIGTTIN/SIGTTOU in `apply` cover the stops.
    private static func leaveCallersJobControl() {
        if setsid() == -1 { _ = setpgid(0, 0) }
    }
}
