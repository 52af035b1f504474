import Glibc

/// A user's number (uid_t). Code outside this folder names users, groups
/// and processes with these aliases and needs no Glibc for them.
public typealias UserID = uid_t
/// A group's number (gid_t).
public typealias GroupID = gid_t
/// A process's number (pid_t).
public typealias ProcessID = pid_t

/// getuid(2): the real uid of this process, the user who ran it, which a
/// setuid or setgid bit does not change.
public func realUserID() -> UserID { getuid() }

/// getegid(2): the group a setgid bit gave this process (else its real one).
public func effectiveGroupID() -> GroupID { getegid() }
