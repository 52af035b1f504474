import CPinGateSystem
import Glibc

/// The kind of file system a descriptor is on, as far as keeping a key in
/// memory is concerned (`statfs(2)`'s `f_type`).
public enum FileSystemKind: Equatable, Sendable, CustomStringConvertible {
    /// ramfs: pages that are never swapped out.
    case ramfs
    /// tmpfs: memory that the kernel may swap out.
    case tmpfs
    case other(magic: Int)

    /// RAMFS_MAGIC and TMPFS_MAGIC from <linux/magic.h>.
    static let ramfsMagic = 0x858458f6
    static let tmpfsMagic = 0x01021994

    init(magic: Int) {
        switch magic {
        case FileSystemKind.ramfsMagic: self = .ramfs
        case FileSystemKind.tmpfsMagic: self = .tmpfs
        default: self = .other(magic: magic)
        }
    }

    public var description: String {
        switch self {
        case .ramfs: return "ramfs"
        case .tmpfs: return "tmpfs"
        case let .other(magic): return "a file system of type 0x\(String(magic, radix: 16))"
        }
    }
}

extension FileDescriptor {
    /// The file system this descriptor's file is on (fstatfs).
    public func fileSystemKind() throws -> FileSystemKind {
        var magic = 0
        _ = try retryingOnInterrupt { cpingate_filesystem_type(rawValue, &magic) }
        return FileSystemKind(magic: magic)
    }

    /// Mounts a fresh ramfs on the directory at `path` (nosuid, nodev,
    /// noexec), its root with `mode`. Root only.
    public static func mountRamfs(at path: String, mode: FileMode) throws {
        _ = try retryingOnInterrupt { cpingate_mount_ramfs(path, "mode=0" + String(mode, radix: 8)) }
    }
}
