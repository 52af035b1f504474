import Glibc
import PinGateCore

/// Runs the setgid helper for a non-root caller, the way pam_pingate.so does
/// (pam/pingate_protocol.h): the request on a pipe, one answer line back, an
/// empty environment. The helper acts only on the caller's own record.
struct HelperClient {
    static let path = "/usr/libexec/pingate/pingate-verify"

    /// One answer line split into its first word, its key=value fields and the
    /// text after the word (the message of `error`, `refused`, `malformed`).
    struct Answer {
        let word: String
        let fields: [String: String]
        let message: String
        let exitCode: Int32

        func integer(_ key: String) -> Int64 { fields[key].flatMap { Int64($0) } ?? 0 }
    }

    /// Sends `request` (the lines after the version line) and reads the answer.
    func send(_ request: SecretBuffer) throws -> Answer {
        var toChild: [CInt] = [-1, -1]
        var fromChild: [CInt] = [-1, -1]
        guard pipe(&toChild) == 0 else { throw failure("create a pipe for") }
        guard pipe(&fromChild) == 0 else {
            close(toChild[0]); close(toChild[1])
            throw failure("create a pipe for")
        }
        // Close-on-exec, so the helper holds no copy of our ends (it would
        // never see the end of its request otherwise); dup2 clears it on 0 and 1.
        for descriptor in toChild + fromChild { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        var pid = pid_t()
        let argument0 = strdup(HelperClient.path)
        defer { free(argument0) }
        let arguments: [UnsafeMutablePointer<CChar>?] = [argument0, nil]
        let environment: [UnsafeMutablePointer<CChar>?] = [nil]
        let spawned = posix_spawn(&pid, HelperClient.path, &actions, nil, arguments, environment)
        close(toChild[0]); close(fromChild[1])
        guard spawned == 0 else {
            close(toChild[1]); close(fromChild[0])
            throw CLIError(status: .storeOrConfig, message: "cannot run \(HelperClient.path): \(Errno(rawValue: spawned)); run 'pingate doctor'")
        }
        // The helper may exit early (a refusal); a broken pipe must not kill us.
        let previous = signal(SIGPIPE, SIG_IGN)
        let full = SecretBuffer(capacity: HelperRequest.maximumSize)
        full.append(HelperRequest.versionLine + "\n")
        full.append(request.bytes())
        _ = try? full.bytes().withUnsafeBytes { try FileDescriptor(rawValue: toChild[1]).writeAll($0) }
        close(toChild[1])
        signal(SIGPIPE, previous)
        let line = readAnswer(from: fromChild[0])
        close(fromChild[0])
        var status: CInt = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        // WIFEXITED / WEXITSTATUS, spelled out: the C macros do not import.
        guard status & 0x7F == 0 else {
            throw CLIError(status: .storeOrConfig, message: "\(HelperClient.path) was killed by signal \(status & 0x7F); run 'pingate doctor'")
        }
        return parse(line, exitCode: (status >> 8) & 0xFF)
    }

    private func readAnswer(from descriptor: CInt) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while bytes.count < 4096 {
            let count = (try? chunk.withUnsafeMutableBytes { try FileDescriptor(rawValue: descriptor).read(into: $0) }) ?? 0
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        let line = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).first ?? []
        return String(decoding: line, as: UTF8.self)
    }

    private func parse(_ line: String, exitCode: Int32) -> Answer {
        let word = line.prefix { $0 != " " }
        let message = line.dropFirst(word.count).drop { $0 == " " }
        var fields: [String: String] = [:]
        for item in message.split(separator: " ") {
            if let equals = item.firstIndex(of: "=") {
                fields[String(item[..<equals])] = String(item[item.index(after: equals)...])
            } else {
                fields[String(item)] = ""
            }
        }
        return Answer(word: String(word), fields: fields, message: String(message), exitCode: exitCode)
    }

    private func failure(_ what: String) -> CLIError {
        CLIError(status: .storeOrConfig, message: "cannot \(what) \(HelperClient.path): \(Errno(rawValue: errno))")
    }
}

extension SecretBuffer {
    /// Appends one `key=value` line of a helper request.
    func appendField(_ key: String, _ value: String) { append("\(key)=\(value)\n") }

    func appendField(_ key: String, secret: SecretBytes) {
        append("\(key)=")
        append(secret)
        append(0x0A)
    }
}
