import Foundation
@testable import PinGateCLI
import PinGateCore
import Testing

/// `pingate stack`: who may read what, and the lines install.sh reads.
@Suite struct StackCommandTests {
    func error(_ words: [String], uid: UInt32) -> CLIError? {
        do {
            guard case let .command(command, parsed) = try RootCommand.invocation(words) else { return nil }
            try RootCommand.authorize(command, parsed, caller: Caller(uid: uid))
        } catch let error as CLIError {
            return error
        } catch {
            return CLIError(status: .storeOrConfig, message: "\(error)")
        }
        return nil
    }

    @Test func anyoneReadsThisSystemsStacksOnlyRootAStagedRoot() {
        #expect(error(["stack", "sudo"], uid: 1000) == nil)
        #expect(error(["stack", "sudo", "--root", "/stage"], uid: 1000)?.status == .permission)
        #expect(error(["stack", "sudo", "--root", "/stage"], uid: 0) == nil)
    }

    @Test func usageErrorsNameTheArgument() {
        #expect(error(["stack"], uid: 0)?.message.hasPrefix("missing SERVICE") == true)
        #expect(error(["stack", "../sudo"], uid: 0)?.message == "'../sudo' is not a PAM service name")
        #expect(error(["stack", "sudo", "--root", "stage"], uid: 0)?.message == "--root needs an absolute path, got 'stage'")
    }

    @Test func theLinesInstallShReads() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pingate-stack-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/etc/pam.d", withIntermediateDirectories: true)
        try "auth [success=1 default=ignore] pam_unix.so\nauth requisite pam_deny.so\n"
            .write(toFile: root + "/etc/pam.d/common-auth", atomically: true, encoding: .utf8)
        try "auth requisite pam_nologin.so\n@include common-auth\n# u2f \\\nauth required pam_u2f.so cue\n"
            .write(toFile: root + "/etc/pam.d/sudo", atomically: true, encoding: .utf8)
        let lines = StackReport(PAMStackReader(root: root).authStack(service: "sudo")).lines
        #expect(Array(lines.dropFirst()) == [
            "rule = /etc/pam.d/sudo:1 requisite pam_nologin.so (not installed: \(PAMStackReader.securityDirectory)pam_nologin.so)",
            "rule = /etc/pam.d/common-auth:1 [success=1 default=ignore] pam_unix.so (not installed: \(PAMStackReader.securityDirectory)pam_unix.so)",
            "rule = /etc/pam.d/common-auth:2 requisite pam_deny.so (not installed: \(PAMStackReader.securityDirectory)pam_deny.so)",
            "rule = /etc/pam.d/sudo:4 required pam_u2f.so cue (not installed: \(PAMStackReader.securityDirectory)pam_u2f.so)",
            "insert_before = 2",
            "guard = pam_u2f /etc/pam.d/sudo:4",
            "enable_line = auth       sufficient pam_pingate.so",
        ])
    }

    /// A lock screen Debian ships no stack for: install.sh may create it, with
    /// the line made for that screen (PAMClient's table).
    @Test func aMissingKdeStackMayBeCreatedWithItsOwnLine() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pingate-stack-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/etc/pam.d", withIntermediateDirectories: true)
        try "auth required pam_unix.so\n".write(toFile: root + "/etc/pam.d/other", atomically: true, encoding: .utf8)
        let kde = StackReport(PAMStackReader(root: root).authStack(service: "kde")).lines
        #expect(kde.contains("enable_line = " + PAMClient.forService("kde").enableLine))
        #expect(kde.contains("create_from_other = yes"))
        try "auth required pam_unix.so\n".write(toFile: root + "/etc/pam.d/kde", atomically: true, encoding: .utf8)
        #expect(!StackReport(PAMStackReader(root: root).authStack(service: "kde")).lines.contains("create_from_other = yes"))
        let other = StackReport(PAMStackReader(root: root).authStack(service: "xlock")).lines
        #expect(!other.contains("create_from_other = yes"))
    }
}
