/// Reads a whole file of at most `limit` bytes; nil if it does not exist.
/// Opened without blocking, so a FIFO with no writer reads as empty.
public func readSmallFileBytes(_ path: String, limit: Int) throws -> [UInt8]? {
    let file: FileDescriptor
    do {
        file = try FileDescriptor.open(path, [.readOnly, .noControllingTerminal, .nonBlocking])
    } catch let error as Errno where error == .noSuchFile {
        return nil
    }
    defer { file.close() }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = try chunk.withUnsafeMutableBytes { try file.read(into: $0) }
        if count == 0 { break }
        bytes += chunk[0..<count]
        if bytes.count > limit { throw Errno.fileTooLarge }
    }
    return bytes
}

/// The same, as text (invalid UTF-8 replaced).
public func readSmallFile(_ path: String, limit: Int) throws -> String? {
    try readSmallFileBytes(path, limit: limit).map { String(decoding: $0, as: UTF8.self) }
}
