import Glibc

/// A POSIX error number, thrown by the thin system-call wrappers in this folder.
/// Public code never reads `errno` itself: it catches `Errno`.
public struct Errno: Error, Equatable, CustomStringConvertible, Sendable {
    public let rawValue: CInt
    public init(rawValue: CInt) { self.rawValue = rawValue }

    /// The error of the last failed call on this thread.
    static var current: Errno { Errno(rawValue: errno) }

    public static let interrupted = Errno(rawValue: EINTR)
    public static let notPermitted = Errno(rawValue: EPERM)
    public static let wouldBlock = Errno(rawValue: EWOULDBLOCK)
    public static let noSuchFile = Errno(rawValue: ENOENT)
    public static let fileExists = Errno(rawValue: EEXIST)
    public static let permissionDenied = Errno(rawValue: EACCES)
    public static let tooManySymbolicLinks = Errno(rawValue: ELOOP)
    public static let isDirectory = Errno(rawValue: EISDIR)
    public static let notDirectory = Errno(rawValue: ENOTDIR)
    public static let outOfMemory = Errno(rawValue: ENOMEM)
    public static let fileTooLarge = Errno(rawValue: EFBIG)
    public static let invalidArgument = Errno(rawValue: EINVAL)

    public var description: String {
        guard let text = strerror(rawValue) else { return "error \(rawValue)" }
        return String(cString: text)
    }
}

/// Runs a system call, retrying on EINTR, and turns a -1 into a thrown `Errno`.
/// The one place where the C convention of "-1 and errno" meets Swift.
@inline(__always)
func retryingOnInterrupt<Result: BinaryInteger>(_ call: () -> Result) throws -> Result {
    while true {
        let result = call()
        if result != -1 { return result }
        let error = Errno.current
        if error != .interrupted { throw error }
    }
}
