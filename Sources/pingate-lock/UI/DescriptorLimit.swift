import Glibc

/// The UI's descriptor limit, lowered to what it can use.
///
/// PAM's helpers are started from this process: pam_unix's account step runs
/// unix_chkpwd on every unlock (the user cannot read /etc/shadow), and before
/// the exec libpam's pam_modutil_sanitize_helper_fds (Linux-PAM 1.5, Debian
/// 12) closes every descriptor number below the hard RLIMIT_NOFILE, capped at
/// 65,535, one close(2) at a time. Under systemd the hard limit is 524,288,
/// so that is 65,535 system calls (~4 ms here with 20,000) between the right
/// PIN and the unlock. The UI holds a handful of descriptors (X, its two
/// pipes, stderr, what a module opens while it runs); 1,024, the kernel's
/// default soft limit and select(2)'s FD_SETSIZE, leaves it room. The limit
/// is this process's and its helpers' only: the locker keeps its own.
enum DescriptorLimit {
    static let ceiling: rlim_t = 1024

    static func lower() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let wanted = min(limit.rlim_cur, ceiling)
        guard limit.rlim_max > wanted else { return }
        var lowered = rlimit(rlim_cur: wanted, rlim_max: wanted)
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &lowered) != 0 {
            Diagnostics.trace("could not lower RLIMIT_NOFILE: \(String(cString: strerror(errno)))")
        }
    }
}
