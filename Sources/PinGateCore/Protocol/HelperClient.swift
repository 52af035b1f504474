import CPinGateContract

/// Why a request to the helper got no usable answer.
public enum HelperClientError: Error, Equatable, CustomStringConvertible, Sendable {
    case cannotRun(path: String, Errno)
    case killed(path: String, signal: Int32)
    case timedOut(path: String, seconds: Int)
    /// No answer line, or one that does not fit the protocol.
    case garbled(String)
    /// The helper refused the request itself (`refused …`, exit 7).
    case refused(String)

    public var description: String {
        switch self {
        case let .cannotRun(path, error): "cannot run \(path): \(error); run 'pingate doctor'"
        case let .killed(path, signal): "\(path) was killed by signal \(signal); run 'pingate doctor'"
        case let .timedOut(path, seconds): "\(path) did not answer within \(seconds) s (stopped or hung); it was killed"
        case let .garbled(what): "unexpected answer from the helper: \(what)"
        case let .refused(message): "the helper refused the request: \(message)"
        }
    }
}

/// Runs the setgid helper the way pam_pingate.so does (pam/pingate_protocol.h):
/// the request on a pipe, one answer line back, an empty environment, the
/// exit status as part of the answer, and a deadline after which the helper
/// is killed. For callers that are not root — a user's `pingate change` or
/// `status`, the lock screen — the helper is the only way to their record.
public struct HelperClient: Sendable {
    /// Where the installers put the helper (pam/pingate_install.h).
    public static let installedPath = PINGATE_HELPER_PATH

    public var path: String
    /// Seconds to wait for one answer, as the module's `timeout=` default.
    public var timeoutSeconds: Int

    public init(path: String = HelperClient.installedPath, timeoutSeconds: Int = 10) {
        self.path = path
        self.timeoutSeconds = timeoutSeconds
    }

    /// Sends `request` and reads the answer.
    public func send(_ request: borrowing HelperRequest) throws(HelperClientError) -> DecodedAnswer {
        let (line, status) = try exchange(request.encoded())
        return try DecodedAnswer(line: line, exitCode: status)
    }

    /// `user`'s status, with the notice of failed attempts not yet told
    /// (which a status never spends).
    public func status(of user: String) throws(HelperClientError) -> DecodedAnswer {
        try send(HelperRequest(operation: .status, user: user))
    }

    private func exchange(_ request: borrowing Secret) throws(HelperClientError) -> (String, Int32) {
        let deadline = Deadline.after(milliseconds: timeoutSeconds * 1000)
        // Every descriptor opened here is closed on every path: the lock
        // screen's UI asks again and again, and must not run out of them.
        var opened: [FileDescriptor] = []
        defer { opened.forEach { $0.close() } }
        let child: ChildProcess
        let answer: FileDescriptor
        do {
            let toChild = try FileDescriptor.pipe()
            opened += [toChild.read, toChild.write]
            let fromChild = try FileDescriptor.pipe()
            opened += [fromChild.read, fromChild.write]
            // The whole request fits an empty pipe (PINGATE_REQUEST_MAX <=
            // PIPE_BUF): written before the child runs, it can never block
            // or raise SIGPIPE, however early the helper exits.
            try request.withUnsafeBytes { try toChild.write.writeAll($0) }
            child = try ChildProcess.spawn(path, input: toChild.read, output: fromChild.write)
            answer = fromChild.read
        } catch let error as Errno {
            throw .cannotRun(path: path, error)
        } catch {
            throw .garbled("\(error)")
        }
        // Only the answer's read end stays open here, so the helper sees the
        // end of its request and we see the end of its answer.
        opened.filter { $0 != answer }.forEach { $0.close() }
        opened = [answer]
        guard let line = readLine(from: answer, by: deadline),
              let termination = child.termination(by: deadline) else {
            child.kill()
            throw .timedOut(path: path, seconds: timeoutSeconds)
        }
        switch termination {
        case let .killed(signal): throw .killed(path: path, signal: signal)
        case .lost: throw .garbled("the helper's exit status was lost (was SIGCHLD ignored?)")
        case .exited(127): throw .cannotRun(path: path, .noSuchFile)
        case let .exited(status): return (line, status)
        }
    }

    /// The first line of what the helper writes before it closes stdout;
    /// nil if the deadline passes first.
    private func readLine(from descriptor: FileDescriptor, by deadline: Deadline) -> String? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: HelperAnswer.maximumSize)
        while bytes.count <= HelperAnswer.maximumSize * 8 {
            guard descriptor.waitReadable(until: deadline) else { return nil }
            let count = (try? chunk.withUnsafeMutableBytes { try descriptor.read(into: $0) }) ?? 0
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        let line = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).first ?? []
        return String(decoding: line, as: UTF8.self)
    }
}
