import Synchronization

/// Whether the machine key may be read onto the page its `Secret` got
/// (issue 40, item 6). The key turns every record into 10⁴ guesses offline,
/// so its page must not reach swap: a user may run the setgid helper under
/// RLIMIT_MEMLOCK 0, stop it (its real uid is hers) and fill memory, and the
/// page would go to the swap device, on disk beside a sealed key.
///
/// A locked page is read onto. A refusal the caller could cause is not: the
/// limit (the helper has raised its soft limit to the hard one, so this is
/// a hard limit someone lowered) — ENOMEM, the limit spent by this run's
/// own locked pages (a few pages; any real limit is 64 KiB or more), or
/// EPERM under a limit below one page, which is how the kernel refuses a
/// limit of 0. One refusal only is not the caller's: EPERM with room under
/// the limit, which only a seccomp filter gives (systemd-nspawn's
/// containers forbid mlock to every process their systemd starts; a filter
/// reaches a setgid program only from a privileged parent, since
/// `no_new_privs`, which lets a user install one, drops the setgid bit and
/// with it the key). Refusing there would turn the PIN off for everyone in
/// such a container, so the key is read unlocked, still out of core dumps
/// and wiped after use, and the log says so once per run. The filter is
/// inferred, not asked: prctl(PR_GET_SECCOMP) cannot be trusted to say so
/// under an emulator (qemu-user answers for itself, and an arm64 container
/// booted under it then lost the PIN). Every other refusal (EAGAIN from a
/// memory cgroup a user was delegated, what a later kernel may add) refuses
/// the key: the exception is as narrow as the one case it is for.
public enum MachineKeyPage {
    public enum Verdict: Equatable, Sendable {
        case locked
        /// Read onto an unlocked page: mlock was refused by a policy the
        /// caller cannot set (`refusal`, EPERM from a seccomp filter).
        case unlocked(refusal: Errno)
        /// Not read: RLIMIT_MEMLOCK, the caller's doing, refused the page.
        case refused(refusal: Errno)
    }

    /// The verdict for a page mlock refused with `lockRefusal` (nil: it is
    /// locked) under a soft RLIMIT_MEMLOCK of `limitBytes` (nil: unknown,
    /// taken as 0).
    public static func judge(lockRefusal: Errno?, limitBytes: UInt64?, pageBytes: Int) -> Verdict {
        guard let refusal = lockRefusal else { return .locked }
        let roomUnderTheLimit = (limitBytes ?? 0) >= UInt64(pageBytes)
        if refusal == .notPermitted, roomUnderTheLimit { return .unlocked(refusal: refusal) }
        return .refused(refusal: refusal)
    }

    private static let logged = Mutex(false)

    /// The one authpriv line of a run whose key was read unlocked.
    static func logUnlockedOnce(path: String, refusal: Errno) {
        guard logged.withLock({ logged in defer { logged = true }; return !logged }) else { return }
        SystemLog.write(.warning, "the machine key \(path) is read onto a page not locked in RAM: mlock refused it (\(refusal)) "
            + "though RLIMIT_MEMLOCK allows it (a seccomp filter: a container's or a service's); swap may take that page")
    }
}
