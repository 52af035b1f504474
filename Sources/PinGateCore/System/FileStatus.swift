import Glibc

/// A file's type and permission bits (mode_t), e.g. 0o100640.
public typealias FileMode = mode_t

/// The parts of `struct stat` that PinGate's checks look at: from fstat
/// (`FileDescriptor.status()`) or from fstatat without following a link.
public struct FileStatus: Sendable {
    public let mode: FileMode
    public let owner: UserID
    public let group: GroupID
    public let size: Int
    public let linkCount: Int
    /// Device and inode: tell whether a path still names this open file.
    public let device: UInt64
    public let inode: UInt64

    init(_ raw: stat) {
        mode = raw.st_mode
        owner = raw.st_uid
        group = raw.st_gid
        size = Int(raw.st_size)
        linkCount = Int(raw.st_nlink)
        device = UInt64(raw.st_dev)
        inode = UInt64(raw.st_ino)
    }

    /// fstatat(2) with AT_SYMLINK_NOFOLLOW (lstat(2) when `directory` is nil):
    /// the status of `path` itself, never of what a final symbolic link names.
    public init(notFollowing path: String, relativeTo directory: FileDescriptor? = nil) throws {
        var raw = stat()
        _ = try retryingOnInterrupt { fstatat(directory?.rawValue ?? AT_FDCWD, path, &raw, AT_SYMLINK_NOFOLLOW) }
        self.init(raw)
    }

    /// stat(2): the status of what `path` names, symbolic links followed.
    public init(following path: String) throws {
        var raw = stat()
        _ = try retryingOnInterrupt { fstatat(AT_FDCWD, path, &raw, 0) }
        self.init(raw)
    }

    /// The file types PinGate tells apart (S_IFMT of the mode).
    public enum FileType: Sendable {
        /// S_IFREG
        case regular
        /// S_IFDIR
        case directory
        /// S_IFLNK
        case symbolicLink
        /// S_IFSOCK
        case socket
        /// Anything else: a device, a FIFO.
        case other
    }

    public var type: FileType {
        switch mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFLNK: return .symbolicLink
        case S_IFSOCK: return .socket
        default: return .other
        }
    }

    public var isRegularFile: Bool { type == .regular }
    public var isDirectory: Bool { type == .directory }
    public var isSymbolicLink: Bool { type == .symbolicLink }
    /// The permission bits, e.g. 0o660.
    public var permissions: FileMode { mode & 0o7777 }

    /// S_ISGID: running the file gives its group as the effective group.
    public var isSetGroupID: Bool { mode & S_ISGID != 0 }
}

/// access(2) with F_OK: whether `path` names anything (a final symbolic link
/// followed), as far as the real uid may search the way to it.
public func pathExists(_ path: String) -> Bool { access(path, F_OK) == 0 }
