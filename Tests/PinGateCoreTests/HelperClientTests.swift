import Foundation
import Testing
@testable import PinGateCore

/// The client against stand-in helpers (small shell scripts): it reads one
/// answer, checks it against the exit status, and never waits past its
/// deadline for a helper that hangs or was stopped.
///
/// Serialized as well: a script being written while another test spawns
/// would be inherited open for writing by that child, and exec'ing it then
/// fails with ETXTBSY ("Text file busy").
@Suite("the helper client", .serialized)
struct HelperClientTests {
    /// A stand-in helper: `body` as a shell script in a fresh directory.
    func fakeHelper(_ body: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pingate-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("helper").path
        // Close-on-exec (FileDescriptor.open always is), so no child spawned
        // meanwhile keeps it open for writing.
        let file = try FileDescriptor.open(path, [.writeOnly, .create, .exclusiveCreate], permissions: 0o755)
        defer { file.close() }
        try file.writeAll(Array(("#!/bin/sh\n" + body + "\n").utf8))
        return path
    }

    @Test("an answer and its exit status come back decoded, and the helper saw the encoded request")
    func answers() throws {
        let path = try fakeHelper("cat > \"$(dirname \"$0\")/request\"; echo 'enrolled kind=pin length=6 failures=1'; exit 0")
        let answer = try HelperClient(path: path).status(of: "alice")
        #expect(answer.statusOutcome == .enrolled(kind: .pin, gridSize: 0, pinLength: 6, failures: 1))
        let sent = try String(contentsOfFile: (path as NSString).deletingLastPathComponent + "/request", encoding: .utf8)
        #expect(sent == "pingate-verify/1\nop=status\nuser=alice\n")
    }

    @Test("a helper that hangs, or stops itself, costs the deadline and is killed",
          arguments: ["exec sleep 30", "kill -STOP $$; echo ok"])
    func stuckHelper(script: String) throws {
        let path = try fakeHelper(script)
        let before = monotonicNanoseconds()
        #expect(throws: HelperClientError.timedOut(path: path, seconds: 1)) {
            try HelperClient(path: path, timeoutSeconds: 1).status(of: "alice")
        }
        let elapsed = (monotonicNanoseconds() - before) / 1_000_000
        #expect(elapsed >= 900 && elapsed < 3000, "took \(elapsed) ms")
    }

    @Test("a word that disagrees with the exit status, a signal, a missing program: errors, never success")
    func failures() throws {
        #expect(throws: HelperClientError.self) { try HelperClient(path: try fakeHelper("echo ok; exit 1")).status(of: "a") }
        #expect(throws: HelperClientError.self) { try HelperClient(path: try fakeHelper("kill -KILL $$")).status(of: "a") }
        #expect(throws: HelperClientError.self) { try HelperClient(path: "/nonexistent/pingate-verify").status(of: "a") }
    }

    @Test("no descriptor is left open on any path, even when the helper cannot be run")
    func noDescriptorLeaks() throws {
        // The control: one descriptor leaked per round is seen.
        var leaked: [FileDescriptor] = []
        defer { for descriptor in leaked { descriptor.close() } }
        let controlLeft = try descriptorsLeft { leaked.append(try FileDescriptor.open("/dev/null", .readOnly)) }
        #expect(controlLeft >= 20, "the count missed a deliberate leak of 50")

        let answering = try fakeHelper("echo ok; exit 0")
        let left = try descriptorsLeft {
            _ = try? HelperClient(path: "/nonexistent/pingate-verify").status(of: "a")
            _ = try? HelperClient(path: answering).status(of: "a")
        }
        // A leak would be 2 to 4 per round, 100 or more in all; other suites
        // running meanwhile open a few at most.
        #expect(left < 20)
    }

    /// How many more descriptors are open after 50 rounds of `round` than before.
    func descriptorsLeft(after round: () throws -> Void) throws -> Int {
        let before = try openDescriptors()
        for _ in 0..<50 { try round() }
        return try openDescriptors() - before
    }

    /// The entries of /proc/self/fd; never fewer than stdin, stdout and stderr.
    func openDescriptors() throws -> Int {
        let count = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
        try #require(count >= 3, "/proc/self/fd lists \(count) descriptors")
        return count
    }
}
