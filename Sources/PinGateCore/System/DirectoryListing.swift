import Glibc

extension FileDescriptor {
    /// The names in the directory this descriptor has open, without "." and
    /// "..", in readdir order. Reads through a duplicate, so the caller still
    /// owns (and closes) this descriptor.
    public func directoryEntryNames() throws -> [String] {
        let duplicate = try retryingOnInterrupt { dup(rawValue) }
        guard let stream = fdopendir(duplicate) else {
            let error = Errno.current
            Glibc.close(duplicate)
            throw error
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }
}
