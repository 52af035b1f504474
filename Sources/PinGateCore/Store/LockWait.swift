/// How long anyone waits for a record's locks: the helper for the writer
/// lock and for verifications in flight, root's unlock, change and enrol
/// --force for the writer lock.
///
/// A process may hold these locks forever: a user can SIGSTOP their own
/// setgid helper between taking a lock and letting go. Without a limit every
/// later sudo, screen locker and `pingate unlock` for that user would hang
/// before the password is ever asked. With it, a waiter gives up and answers:
/// the helper `error … is busy` (or `locked` while a lockout is in force),
/// root's commands a store error naming the holder.
///
/// 2 s, a fixed constant rather than a pingate.conf setting: a legitimate
/// writer holds the lock for one slot write and fdatasync (milliseconds),
/// and a verification stays in flight for one KDF run (tens of milliseconds
/// with the defaults), so 2 s is far above any honest wait and far below a
/// person's patience; the PAM module's own deadline on the helper must stay
/// above it, which a tunable could silently break (or set to "forever").
public enum LockWait {
    public static let limitMilliseconds = 2_000

    /// A deadline `limitMilliseconds` from now.
    public static func deadline() -> Deadline { .after(milliseconds: limitMilliseconds) }
}
