import Foundation
import Testing
@testable import PinGateCore

/// `pingate enable` and `pingate disable` on staged roots: what they write,
/// what they refuse, and that disabling gives back the stacks as they were.
@Suite("turning the PIN on and off for a service")
struct PAMServiceSwitchTests {
    static func root() throws -> StagedPAMRoot {
        let root = try PAMEnableFactsTests.root()
        try root.stack("common-account", "account required pam_unix.so")
        try root.stack("other", "@include common-auth")
        try root.stack("sudo", "#%PAM-1.0", "session required pam_limits.so", "@include common-auth", "@include common-account")
        return root
    }

    static func text(_ root: StagedPAMRoot, _ path: String) -> String? {
        try? String(contentsOfFile: root.path + path, encoding: .utf8)
    }

    /// Every file under the root's /etc/pam.d with its text.
    static func files(_ root: StagedPAMRoot) throws -> [String: String] {
        let directory = root.path + "/etc/pam.d"
        return try Dictionary(uniqueKeysWithValues: FileManager.default.contentsOfDirectory(atPath: directory).map {
            ($0, try String(contentsOfFile: directory + "/" + $0, encoding: .utf8))
        })
    }

    static func apply(_ change: PAMServiceSwitch, _ switcher: PAMServiceSwitcher) throws {
        for file in change.changes { try switcher.apply(file) }
    }

    @Test("enable puts the marked line before the include and keeps a backup; disable restores the file exactly")
    func enableThenDisable() throws {
        let root = try Self.root()
        let before = try Self.files(root)
        let switcher = PAMServiceSwitcher(root: root.path)
        let change = try switcher.enabling("sudo", force: false)
        #expect(change.outcome == .enabled && change.line == "auth       sufficient pam_pingate.so")
        try Self.apply(change, switcher)
        #expect(Self.text(root, "/etc/pam.d/sudo") == """
            #%PAM-1.0
            session required pam_limits.so
            \(PAMEnableText.marker)
            auth       sufficient pam_pingate.so
            @include common-auth
            @include common-account

            """)
        #expect(Self.text(root, "/etc/pam.d/sudo.pingate-backup") == before["sudo"])
        #expect(root.read("sudo").rules.first?.module?.written == "pam_pingate.so")
        #expect(try switcher.enabling("sudo", force: false).outcome == .alreadyOn(inCommonAuth: false))
        #expect(switcher.enabledServices() == ["sudo"])

        let undo = switcher.disabling("sudo")
        #expect(undo.outcome == .restored)
        try Self.apply(undo, switcher)
        #expect(try Self.files(root) == before)
        #expect(switcher.disabling("sudo").outcome == .unchanged)
    }

    @Test("a service only the distribution ships (/usr/lib/pam.d) is copied to /etc/pam.d with the line, and disable deletes the copy")
    func distributionFile() throws {
        let root = try Self.root()
        let before = try Self.files(root)
        try root.stack("/usr/lib/pam.d/kde", "auth requisite pam_nologin.so", "@include common-auth")
        let switcher = PAMServiceSwitcher(root: root.path)
        let change = try switcher.enabling("kde", force: false)
        #expect(change.outcome == .created(from: "/usr/lib/pam.d/kde"))
        try Self.apply(change, switcher)
        let lines = (Self.text(root, "/etc/pam.d/kde") ?? "").split(separator: "\n").map(String.init)
        #expect(lines.first == PAMEnableText.createdMarker(from: "/usr/lib/pam.d/kde"))
        #expect(lines.dropFirst(2).first == PAMEnableText.marker)
        #expect(lines.dropFirst(3).first == PAMClient.forService("kde").enableLine)
        #expect(root.read("kde").file == "/etc/pam.d/kde")
        // The distribution updates its file meanwhile: disable still removes
        // the copy, so that libpam reads the update.
        try root.stack("/usr/lib/pam.d/kde", "auth requisite pam_nologin.so", "auth optional pam_kwallet5.so", "@include common-auth")
        let undo = switcher.disabling("kde")
        #expect(undo.outcome == .removed(source: "/usr/lib/pam.d/kde"))
        try Self.apply(undo, switcher)
        #expect(try Self.files(root) == before)
        #expect(root.read("kde").file == "/usr/lib/pam.d/kde")
    }

    @Test("Plasma 5's kde, which nobody ships, is made from other's stack; a service with no file at all is refused")
    func fromOther() throws {
        let root = try Self.root()
        let switcher = PAMServiceSwitcher(root: root.path)
        #expect(try switcher.enabling("kde", force: false).outcome == .created(from: "/etc/pam.d/other"))
        #expect(throws: PAMEnableRefusal.noStackFile) { try switcher.enabling("i3lock", force: false) }
    }

    @Test("Phosh's lock screen, which Debian ships no file for, is made from other's stack with a one-field screen's line")
    func phoshFromOther() throws {
        let root = try Self.root()
        let switcher = PAMServiceSwitcher(root: root.path)
        let change = try switcher.enabling("phosh", force: false)
        #expect(change.outcome == .created(from: "/etc/pam.d/other"))
        // A wrong PIN ends the try, nothing goes on to pam_unix but a
        // password, and no notice: the keypad shows none of PAM's lines.
        #expect(change.line == "auth       [success=done new_authtok_reqd=done auth_err=die default=ignore] pam_pingate.so again_or_password nonotice")
        try Self.apply(change, switcher)
        let lines = (Self.text(root, "/etc/pam.d/phosh") ?? "").split(separator: "\n").map(String.init)
        #expect(lines.first == PAMEnableText.createdMarker(from: "/etc/pam.d/other"))
        #expect(lines.suffix(2) == [change.line, "@include common-auth"])
        #expect(root.read("phosh").file == "/etc/pam.d/phosh")
        #expect(Policy().services.contains("phosh"))
    }

    @Test("greetd is a login screen: listed, and its first sign-in of a boot takes the password")
    func greetd() {
        let client = PAMClient.forService("greetd")
        #expect(client.isLoginScreen && !client.createdFromOther && client.control == "sufficient")
        #expect(Policy().services.contains("greetd") && Policy().passwordFirstServices.contains("greetd"))
        #expect(!Policy().passwordFirstServices.contains("phosh"))
    }

    @Test("the conversations nobody sees never get a PIN", arguments: ["kde-fingerprint", "kde-smartcard", "gdm-fingerprint", "gdm-smartcard"])
    func unseen(service: String) throws {
        let root = try Self.root()
        try root.stack(service, "@include common-auth")
        #expect(throws: PAMEnableRefusal.unseenConversation) { try PAMServiceSwitcher(root: root.path).enabling(service, force: false) }
    }

    @Test("a jump above the line that would pass over it is refused, on any return value; one that lands before it is not")
    func crossingJumps() throws {
        let root = try Self.root()
        let switcher = PAMServiceSwitcher(root: root.path)
        try root.stack("sudo", "auth [success=1 default=ignore] pam_succeed_if.so quiet user = pgbob", "@include common-auth")
        #expect(throws: PAMEnableRefusal.crossingJumps([PAMOrigin(file: "/etc/pam.d/sudo", line: 1)])) {
            try switcher.enabling("sudo", force: false)
        }
        try root.stack("sudo", "auth [success=ok default=2] pam_succeed_if.so quiet user = pgbob", "@include common-auth")
        #expect(throws: PAMEnableRefusal.crossingJumps([PAMOrigin(file: "/etc/pam.d/sudo", line: 1)])) {
            try switcher.enabling("sudo", force: false)
        }
        let forced = try switcher.enabling("sudo", force: true)
        #expect(forced.warnings == [.forcedPastJumps([PAMOrigin(file: "/etc/pam.d/sudo", line: 1)])])
        // The jump lands on the include's first rule: the PIN line, put there, is where it lands.
        try root.stack("sudo", "auth [success=1 default=ignore] pam_succeed_if.so quiet user = pgbob",
                       "auth requisite pam_deny.so", "@include common-auth")
        #expect(try switcher.enabling("sudo", force: false).outcome == .enabled)
    }

    @Test("a second factor behind the line is refused, and named with --force")
    func guards() throws {
        let root = try Self.root()
        try root.stack("sudo", "@include common-auth", "auth required pam_u2f.so")
        let switcher = PAMServiceSwitcher(root: root.path)
        #expect(throws: PAMEnableRefusal.self) { try switcher.enabling("sudo", force: false) }
        let forced = try switcher.enabling("sudo", force: true)
        #expect(forced.warnings.count == 1)
    }

    @Test("disable takes out only the marked lines when the file changed after enable, and keeps the backup")
    func changedAfterEnable() throws {
        let root = try Self.root()
        let switcher = PAMServiceSwitcher(root: root.path)
        try Self.apply(try switcher.enabling("sudo", force: false), switcher)
        let enabled = Self.text(root, "/etc/pam.d/sudo") ?? ""
        try root.write("/etc/pam.d/sudo", enabled + "auth optional pam_echo.so admin's line\n")
        let undo = switcher.disabling("sudo")
        #expect(undo.outcome == .disabled)
        #expect(undo.warnings == [.changedSinceBackup(backup: "/etc/pam.d/sudo.pingate-backup")])
        try Self.apply(undo, switcher)
        let text = Self.text(root, "/etc/pam.d/sudo") ?? ""
        #expect(!text.contains("pam_pingate") && text.contains("admin's line"))
    }

    @Test("the block an older install.sh wrote, with its pam_unix line, is recognised and taken out")
    func olderBlock() throws {
        let root = try Self.root()
        try root.stack("swaylock", PAMEnableText.olderMarkers[0], "auth       sufficient pam_pingate.so forward_pass",
                       PAMEnableText.olderLockerUnixLine, "auth include login")
        let switcher = PAMServiceSwitcher(root: root.path)
        #expect(try switcher.enabling("swaylock", force: false).warnings == [.olderLockerUnixLine, .olderLine(wanted: PAMClient.forService("swaylock").enableLine)])
        try Self.apply(switcher.disabling("swaylock"), switcher)
        #expect(Self.text(root, "/etc/pam.d/swaylock") == "auth include login\n")
    }

    @Test("xfce4-screensaver on Debian 13's stack gets MATE's one-field line before the include; pam_gnome_keyring stays after it")
    func xfceScreensaver() throws {
        let root = try Self.root()
        try root.stack("xfce4-screensaver", "auth include common-auth", "auth optional pam_gnome_keyring.so")
        let switcher = PAMServiceSwitcher(root: root.path)
        let change = try switcher.enabling("xfce4-screensaver", force: false)
        let line = "auth       [success=done new_authtok_reqd=done auth_err=die default=ignore] pam_pingate.so retries=2 again_or_password"
        #expect(change.outcome == .enabled && change.warnings.isEmpty && change.line == line)
        #expect(PAMClient.forService("xfce4-screensaver").enableLine == PAMClient.forService("mate-screensaver").enableLine)
        try Self.apply(change, switcher)
        #expect(Self.text(root, "/etc/pam.d/xfce4-screensaver")
                == "\(PAMEnableText.marker)\n\(line)\nauth include common-auth\nauth optional pam_gnome_keyring.so\n")
    }

    @Test("a one-field screen's bracketed control is found and removed as one word")
    func bracketedControl() {
        let line = PAMClient.forService("mate-screensaver").enableLine
        let text = "#%PAM-1.0\n\(PAMEnableText.marker)\n\(line)\n@include common-auth\n"
        #expect(PAMEnableText.removingInsertedLines(from: text) == "#%PAM-1.0\n@include common-auth\n")
        // Without the marker, a PinGate line is the admin's own: kept.
        #expect(PAMEnableText.removingInsertedLines(from: "\(line)\n") == "\(line)\n")
    }
}
