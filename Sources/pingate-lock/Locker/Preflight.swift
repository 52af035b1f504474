import Glibc

/// "Never a dead end": before covering the screen, make sure it can be
/// uncovered — the PAM service exists and the account is known. If not, say
/// why and do not lock (exit status 3).
enum Preflight {
    static let serviceFiles = ["/etc/pam.d/pingate-lock", "/usr/lib/pam.d/pingate-lock"]

    static func reasonNotToLock() -> String? {
        if !serviceFiles.contains(where: { access($0, R_OK) == 0 }) {
            return L("not locking: the PAM service file /etc/pam.d/pingate-lock is missing or unreadable, so nothing could unlock the screen — reinstall PinGate")
        }
        if getpwuid(getuid()) == nil {
            return L("not locking: your user id %d has no account entry, so PAM could not check a password", Int(getuid()))
        }
        return nil
    }

    /// The name of the user the locker runs as (checked by reasonNotToLock).
    static func userName() -> String {
        guard let entry = getpwuid(getuid()) else { return "" }
        return String(cString: entry.pointee.pw_name)
    }
}
