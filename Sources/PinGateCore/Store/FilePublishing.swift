import Glibc

extension Store {
    /// How a new file takes its name: `rename` replaces what is there (a
    /// re-enrolled record), `link` never does (the machine key, on which
    /// every hash depends).
    enum Placement { case replacing, neverReplacing }

    /// Writes a new file into the store the one way root does it: a
    /// temporary name created exclusively (no symlink followed), owner and
    /// mode set before a byte is written, the bytes fsynced, the file moved
    /// into place, and the directory fsynced — so a crash leaves the old file
    /// or the new one, never part of one. Returns false only when
    /// `.neverReplacing` found `name` already there (nothing changed).
    func publish(_ name: String, in directory: FileDescriptor, mode: mode_t, placement: Placement,
                 write: (FileDescriptor) throws -> Void) throws -> Bool {
        let temporaryName = ".\(name).new"
        let temporaryPath = location.directory + "/" + temporaryName
        _ = unlinkat(directory.rawValue, temporaryName, 0)
        do {
            let file = try FileDescriptor.open(temporaryName, [.writeOnly, .create, .exclusiveCreate, .noFollow],
                                               permissions: 0o600, relativeTo: directory)
            defer { file.close() }
            try file.changeOwner(user: location.owner, group: location.group)
            try file.changeMode(mode)
            try write(file)
            try file.sync()
        } catch let error as Errno {
            _ = unlinkat(directory.rawValue, temporaryName, 0)
            throw StoreError.systemError(path: temporaryPath, operation: "write", errno: error)
        }
        let moved = placement == .replacing
            ? renameat(directory.rawValue, temporaryName, directory.rawValue, name) == 0
            : linkat(directory.rawValue, temporaryName, directory.rawValue, name, 0) == 0
        let error = Errno.current
        _ = unlinkat(directory.rawValue, temporaryName, 0)
        if !moved {
            if placement == .neverReplacing, error == .fileExists { return false }
            throw StoreError.systemError(path: location.directory + "/" + name, operation: "move into place", errno: error)
        }
        try syncDirectory(directory)
        return true
    }
}
