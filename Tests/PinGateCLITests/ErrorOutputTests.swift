import Glibc
@testable import PinGateCLI
import PinGateCore
import Testing

/// An error line can carry text from outside (a user or process name, a
/// path, the helper's words): on root's terminal its control characters
/// must show, not act.
@Suite struct ErrorOutputTests {
    @Test("an error line shows terminal escapes and other controls as escapes: one line, no control byte")
    func controlsAreEscaped() throws {
        let written = try errorOutput("held by process 7 (x\u{1B}]0;pwned\u{07}y)\nforged line\u{9B}31m\u{202E}")
        #expect(written == "pingate: held by process 7 (x\\u{1B}]0;pwned\\u{07}y)\\u{0A}forged line\\u{9B}31m\\u{202E}\n")
        #expect(!written.dropLast().utf8.contains { $0 < 0x20 || $0 == 0x7F })
    }

    @Test("ordinary text, translations included, is written as it is")
    func ordinaryTextIsUnchanged() throws {
        #expect(try errorOutput("record /var/lib/pingate/1000.record is busy; réessayez") ==
                "pingate: record /var/lib/pingate/1000.record is busy; réessayez\n")
    }

    /// What `Output.error` writes, read back through a pipe.
    private func errorOutput(_ text: String) throws -> String {
        let pipe = try FileDescriptor.pipe()
        defer { pipe.read.close() }
        Output.error(text, to: pipe.write)
        pipe.write.close()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = try buffer.withUnsafeMutableBytes { try pipe.read.read(into: $0) }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }
}
