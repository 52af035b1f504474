import Glibc

// Names made, moved and removed in a directory: the store creates and
// replaces its files only through these, relative to its open directory, so
// a path component swapped meanwhile cannot redirect them.

extension FileDescriptor {
    /// mkdir(2) of `path`, relative to `directory` when given (mkdirat).
    public static func makeDirectory(_ path: String, permissions: FileMode, relativeTo directory: FileDescriptor? = nil) throws {
        _ = try retryingOnInterrupt { mkdirat(directory?.rawValue ?? AT_FDCWD, path, permissions) }
    }

    /// unlinkat(2): removes the name `name` (not a directory) from this directory.
    public func removeEntry(_ name: String) throws {
        _ = try retryingOnInterrupt { unlinkat(rawValue, name, 0) }
    }

    /// renameat(2) within this directory: `name` becomes `newName`,
    /// atomically replacing whatever `newName` was.
    public func renameEntry(_ name: String, to newName: String) throws {
        _ = try retryingOnInterrupt { renameat(rawValue, name, rawValue, newName) }
    }

    /// linkat(2) within this directory: `newName` becomes a second name of
    /// `name`. Never replaces: an existing `newName` fails with EEXIST.
    public func linkEntry(_ name: String, as newName: String) throws {
        _ = try retryingOnInterrupt { linkat(rawValue, name, rawValue, newName, 0) }
    }
}
