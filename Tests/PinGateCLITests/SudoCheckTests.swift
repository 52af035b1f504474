import Foundation
import Testing
@testable import PinGateCLI

/// doctor's reading of root's `sudo -l -U USER` for passprompt_override
/// (the listings are sudo 1.9.13's, Debian 12, verbatim).
@Suite("doctor reads sudo's Defaults for passprompt_override")
struct SudoCheckTests {
    static let debian = """
        Matching Defaults entries for alice on vm:
            env_reset, mail_badpass,
            secure_path=/usr/local/sbin\\:/usr/local/bin\\:/usr/sbin\\:/usr/bin\\:/sbin\\:/bin,
            use_pty

        User alice may run the following commands on vm:
            (ALL : ALL) ALL
        """

    @Test("Debian's defaults, a user sudo does not list, and no listing at all hide nothing")
    func nothingHidden() {
        #expect(!Doctor.hidesQuestions(sudoListing: Self.debian))
        #expect(!Doctor.hidesQuestions(sudoListing: "User bob is not allowed to run sudo on vm.\n"))
        #expect(!Doctor.hidesQuestions(sudoListing: ""))
        // The word among the commands a user may run is no Default.
        #expect(!Doctor.hidesQuestions(sudoListing: Self.debian + "\n    (root) /usr/local/bin/passprompt_override\n"))
    }

    @Test("the last matching entry decides; a command's or runas Defaults setting it counts")
    func lastWordAndSpecificDefaults() {
        #expect(Doctor.hidesQuestions(sudoListing: "Matching Defaults entries for alice on vm:\n    env_reset, passprompt_override\n"))
        #expect(!Doctor.hidesQuestions(sudoListing: "Matching Defaults entries for alice on vm:\n    passprompt_override, !passprompt_override, env_reset\n"))
        #expect(Doctor.hidesQuestions(sudoListing: "Matching Defaults entries for alice on vm:\n    !passprompt_override,\n    passprompt_override\n"))
        // sudo wraps one entry onto the next line.
        let specific = """
            Matching Defaults entries for alice on vm:
                !lecture, passprompt_override, !passprompt_override, env_reset

            Runas and Command-specific defaults for alice:
                Defaults>root !passprompt_override    Defaults!/usr/bin/id
                passprompt_override

            User alice may run the following commands on vm:
                (ALL : ALL) ALL
            """
        #expect(Doctor.hidesQuestions(sudoListing: specific))
        #expect(!Doctor.hidesQuestions(sudoListing: specific.replacingOccurrences(of: "\n    passprompt_override", with: "\n    !passprompt_override")))
    }
}
