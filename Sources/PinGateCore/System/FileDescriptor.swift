import CPinGateSystem
import Glibc

/// An open file descriptor: a thin, typed wrapper in the style of swift-system.
/// It does not close itself; the owner calls `close()` (usually in a `defer`).
public struct FileDescriptor: Sendable, Hashable {
    public let rawValue: CInt
    public init(rawValue: CInt) { self.rawValue = rawValue }

    public static let standardInput = FileDescriptor(rawValue: 0)
    public static let standardOutput = FileDescriptor(rawValue: 1)
    public static let standardError = FileDescriptor(rawValue: 2)

    /// Flags for `open(2)`, named for what they do.
    public struct OpenOptions: OptionSet, Sendable {
        public let rawValue: CInt
        public init(rawValue: CInt) { self.rawValue = rawValue }
        /// O_RDONLY (zero: the absence of the write flags).
        public static let readOnly = OpenOptions([])
        /// O_RDWR
        public static let readWrite = OpenOptions(rawValue: O_RDWR)
        /// O_WRONLY
        public static let writeOnly = OpenOptions(rawValue: O_WRONLY)
        /// O_CREAT
        public static let create = OpenOptions(rawValue: O_CREAT)
        /// O_EXCL
        public static let exclusiveCreate = OpenOptions(rawValue: O_EXCL)
        /// O_NOFOLLOW: a symbolic link as the last component fails with ELOOP.
        public static let noFollow = OpenOptions(rawValue: O_NOFOLLOW)
        /// O_NOCTTY
        public static let noControllingTerminal = OpenOptions(rawValue: O_NOCTTY)
        /// O_DIRECTORY
        public static let directory = OpenOptions(rawValue: O_DIRECTORY)
        /// O_NONBLOCK
        public static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
    }

    /// open(2), relative to `directory` when given (openat), always with
    /// O_CLOEXEC: no descriptor is inherited by a program run meanwhile.
    public static func open(
        _ path: String, _ options: OpenOptions, permissions: FileMode = 0,
        relativeTo directory: FileDescriptor? = nil
    ) throws -> FileDescriptor {
        let flags = options.rawValue | O_CLOEXEC
        let fd = try retryingOnInterrupt {
            Glibc.openat(directory?.rawValue ?? AT_FDCWD, path, flags, permissions)
        }
        return FileDescriptor(rawValue: fd)
    }

    public func close() {
        // EINTR from close on Linux still closes the descriptor: never retry.
        _ = Glibc.close(rawValue)
    }

    /// fstat(2)
    public func status() throws -> FileStatus {
        var raw = stat()
        _ = try retryingOnInterrupt { Glibc.fstat(rawValue, &raw) }
        return FileStatus(raw)
    }

    /// read(2), once. Returns the number of bytes read (0 at end of file).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try retryingOnInterrupt { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// pread(2) until `buffer` is full or end of file; returns the bytes read.
    public func read(fromAbsoluteOffset offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var done = 0
        while done < buffer.count {
            let count = try retryingOnInterrupt {
                Glibc.pread(rawValue, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            }
            if count == 0 { break }
            done += count
        }
        return done
    }

    /// pwrite(2) of all of `bytes`, continuing after short writes.
    public func write(toAbsoluteOffset offset: Int, _ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            done += try retryingOnInterrupt {
                Glibc.pwrite(rawValue, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            }
        }
    }

    /// write(2) of all of `bytes`, continuing after short writes.
    public func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            done += try retryingOnInterrupt {
                Glibc.write(rawValue, bytes.baseAddress! + done, bytes.count - done)
            }
        }
    }

    public func writeAll(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try writeAll($0) }
    }

    /// fsync(2)
    public func sync() throws { _ = try retryingOnInterrupt { Glibc.fsync(rawValue) } }

    /// fdatasync(2): the data and the metadata needed to read it back.
    public func dataSync() throws { _ = try retryingOnInterrupt { Glibc.fdatasync(rawValue) } }

    /// sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE): starts writing the
    /// file's dirty pages out and returns without waiting; no promise that
    /// they reach the disk, nor an error if they do not.
    public func startWriteOut() { _ = cpingate_start_write_out(rawValue) }

    /// fchown(2)
    public func changeOwner(user: UserID, group: GroupID) throws {
        _ = try retryingOnInterrupt { Glibc.fchown(rawValue, user, group) }
    }

    /// fchmod(2)
    public func changeMode(_ mode: FileMode) throws {
        _ = try retryingOnInterrupt { Glibc.fchmod(rawValue, mode) }
    }

    /// isatty(3)
    public var isTerminal: Bool { Glibc.isatty(rawValue) == 1 }
}
