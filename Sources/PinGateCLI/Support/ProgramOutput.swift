import PinGateCore

/// What a program doctor asks about the system prints: its standard output
/// (at most `limit` bytes), run with /dev/null for stdin and stderr, an
/// empty environment (so the C locale: English words to read) and a
/// deadline. nil if it could not run or did not end in time.
enum ProgramOutput {
    static func run(_ path: String, _ arguments: [String], seconds: Int = 5, limit: Int = 1 << 16) -> String? {
        var opened: [FileDescriptor] = []
        defer { opened.forEach { $0.close() } }
        let child: ChildProcess
        let output: FileDescriptor
        do {
            let null = try FileDescriptor.open("/dev/null", .readWrite)
            opened.append(null)
            let pipe = try FileDescriptor.pipe()
            opened += [pipe.read, pipe.write]
            child = try ChildProcess.spawn(path, arguments: arguments, input: null, output: pipe.write, errors: null)
            output = pipe.read
        } catch {
            return nil
        }
        opened.filter { $0 != output }.forEach { $0.close() }
        opened = [output]
        let deadline = Deadline.after(milliseconds: seconds * 1000)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit, output.waitReadable(until: deadline) {
            let count = (try? chunk.withUnsafeMutableBytes { try output.read(into: $0) }) ?? 0
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        guard let termination = child.termination(by: deadline) else {
            child.kill()
            return nil
        }
        guard case .exited = termination else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
