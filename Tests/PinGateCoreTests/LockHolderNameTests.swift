import Glibc
import Testing
@testable import PinGateCore

// A process's name (/proc/PID/comm) is the file name it was started under,
// chosen by whoever started it: a symlink to any program, named with
// terminal escapes, puts them into the "held by process N (NAME)" message
// root reads in a terminal.
@Suite("A lock holder's name is shown as printable ASCII")
struct LockHolderNameTests {
    @Test("flock(1) started through a symlink named with ESC and BEL: the holder's description holds no control byte")
    func hostileProcessNameIsCleaned() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/record"
        let created = try FileDescriptor.open(file, [.readWrite, .create], permissions: 0o600)
        defer { created.close() }
        let hostileName = "x\u{1B}]0;pwned\u{07}y"
        let link = directory.path + "/" + hostileName
        #expect(symlink("/usr/bin/flock", link) == 0)
        defer { unlink(link) }

        let holder = try FlockHolder(command: link, file: file)
        defer { holder.stop() }
        let status = try created.status()
        var holders: [LockHolder] = []
        _ = Deadline.after(milliseconds: 5_000).retry {
            holders = LockHolder.holders(of: status, kind: .flock)
            return !holders.isEmpty
        }
        let found = try #require(holders.first, "flock never took its lock")
        #expect(found.processID == holder.pid)
        let texts = [found.description, found.command ?? "",
                     String(describing: StoreError.recordBusy(path: file, holder: found))]
        for text in texts {
            #expect(!text.utf8.contains { $0 < 0x20 || $0 >= 0x7F }, "raw bytes reach the message: \(Array(text.utf8))")
        }
        #expect(found.command == "x?]0;pwned?y")
    }

    @Test("printable ASCII stays; controls and anything beyond ASCII become ?")
    func printableNames() {
        #expect(LockHolder.printableCommand("pingate-verify") == "pingate-verify")
        #expect(LockHolder.printableCommand("a\u{9B}b\u{202E}c\u{7F}") == "a?b?c?")
    }
}

/// /usr/bin/flock (through `command`, a path to it) holding an exclusive
/// flock on `file` while /bin/cat reads a pipe this test holds: closing the
/// pipe ends both.
private struct FlockHolder {
    let pid: pid_t
    private let input: FileDescriptor

    init(command: String, file: String) throws {
        let pipe = try FileDescriptor.pipe()
        let devNull = try FileDescriptor.open("/dev/null", .writeOnly)
        defer { devNull.close(); pipe.read.close() }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe.read.rawValue, 0)
        posix_spawn_file_actions_adddup2(&actions, devNull.rawValue, 1)
        let arguments: [UnsafeMutablePointer<CChar>?] = [command, "--exclusive", file, "/bin/cat"].map { (text: String) in strdup(text) }
        defer { arguments.forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, command, &actions, nil, arguments + [nil], [nil])
        guard result == 0 else { throw Errno(rawValue: result) }
        self.pid = pid
        input = pipe.write
    }

    func stop() {
        input.close()
        _ = ChildProcess(pid: pid).termination(by: .after(milliseconds: 2_000)) ?? {
            ChildProcess(pid: pid).kill()
            return .lost
        }()
    }
}

private struct TemporaryDirectory: ~Copyable {
    let path: String
    init() throws {
        var template = Array("/tmp/pingate-holder.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Errno.current }
        path = String(cString: made)
    }
    deinit {
        unlink(path + "/record")
        rmdir(path)
    }
}
