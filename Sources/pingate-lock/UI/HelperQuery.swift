import Glibc
import PinGateLock

/// Asks the setgid helper for the user's own status, as the PAM module does
/// (pam/pingate_helper.c): request on stdin, one answer line on stdout, an
/// empty environment, a deadline. Only to choose what to show: the decision
/// to unlock is PAM's alone.
enum HelperQuery {
    static let helperPath = "/usr/libexec/pingate/pingate-verify"
    static let deadline = 5.0  // seconds; a stopped helper costs no more

    static func status(user: String) -> HelperStatus {
        var input: [Int32] = [0, 0], output: [Int32] = [0, 0]
        guard makePipe(&input) else { return .unavailable(reason: "pipe failed") }
        guard makePipe(&output) else {
            close(input[0]); close(input[1])
            return .unavailable(reason: "pipe failed")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        var argv: [UnsafeMutablePointer<CChar>?] = [strdup(helperPath), nil]
        var environment: [UnsafeMutablePointer<CChar>?] = [nil]
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, helperPath, &actions, nil, &argv, &environment)
        posix_spawn_file_actions_destroy(&actions)
        free(argv[0])
        close(input[0]); close(output[1])
        defer { close(output[0]) }
        guard rc == 0 else {
            close(input[1])
            return .unavailable(reason: "cannot run \(helperPath): \(String(cString: strerror(rc)))")
        }
        writeAll(input[1], Array("pingate-verify/1\nop=status\nuser=\(user)\nservice=pingate-lock\n".utf8))
        close(input[1])
        let answer = readLine(output[0], until: monotonicSeconds() + deadline)
        var status: Int32 = 0
        if answer == nil { kill(pid, SIGKILL) }
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        guard let answer else { return .unavailable(reason: "the helper did not answer in \(Int(deadline)) s") }
        guard status & 0x7f == 0 else { return .unavailable(reason: "the helper was killed by signal \(status & 0x7f)") }
        return HelperStatus(answer: answer, exitStatus: (status >> 8) & 0xff)
    }

    /// The first line on `fd`, or nil at the deadline.
    private static func readLine(_ fd: Int32, until deadline: Double) -> String? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while bytes.count < 512 {
            let left = deadline - monotonicSeconds()
            guard left > 0 else { return nil }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, Int32(left * 1000) + 1) <= 0 { continue }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes += buffer[..<count]
            if bytes.contains(UInt8(ascii: "\n")) { break }
        }
        let line = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).first ?? []
        return String(decoding: line, as: UTF8.self)
    }
}
