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
    func publish(_ name: String, in directory: FileDescriptor, mode: FileMode, placement: Placement,
                 write: (FileDescriptor) throws -> Void) throws -> Bool {
        let temporaryName = ".\(name).new"
        let temporaryPath = location.directory + "/" + temporaryName
        try? directory.removeEntry(temporaryName)
        do {
            let file = try FileDescriptor.open(temporaryName, [.writeOnly, .create, .exclusiveCreate, .noFollow],
                                               permissions: 0o600, relativeTo: directory)
            defer { file.close() }
            try file.changeOwner(user: location.owner, group: location.group)
            try file.changeMode(mode)
            try write(file)
            try file.sync()
        } catch let error as Errno {
            try? directory.removeEntry(temporaryName)
            throw StoreError.systemError(path: temporaryPath, operation: "write", errno: error)
        }
        var failure: Errno? = nil
        do {
            switch placement {
            case .replacing: try directory.renameEntry(temporaryName, to: name)
            case .neverReplacing: try directory.linkEntry(temporaryName, as: name)
            }
        } catch let error as Errno {
            failure = error
        }
        // After a rename the temporary name is gone already; after a link
        // (made or refused) it is the one left to remove.
        try? directory.removeEntry(temporaryName)
        if let failure {
            if placement == .neverReplacing, failure == .fileExists { return false }
            throw StoreError.systemError(path: location.directory + "/" + name, operation: "move into place", errno: failure)
        }
        try syncDirectory(directory)
        return true
    }
}
