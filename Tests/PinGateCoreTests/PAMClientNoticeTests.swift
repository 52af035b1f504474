import CPinGateContract
import Testing
@testable import PinGateCore

/// Which clients are told the failed-attempt notice: decided by the
/// application (pingate_protocol.h's PINGATE_NO_INFO_SERVICES), which the
/// module reads by PAM_SERVICE and `pingate enable` writes as `nonotice`.
@Suite("clients that show no info line")
struct PAMClientNoticeTests {
    @Test("the list is the header's one line")
    func listIsTheHeaders() {
        #expect(PAMClient.showsNoInfoLines == Set(PINGATE_NO_INFO_SERVICES.split(separator: " ").map(String.init)))
        #expect(PAMClient.showsNoInfoLines.isSuperset(of: ["i3lock", "swaylock", "hyprlock", "cinnamon-screensaver", "phosh"]))
        #expect(PAMClient.showsNoInfoLines.isDisjoint(with: ["sudo", "login", "polkit-1", "gdm-password", "kde", "pingate-lock"]))
    }

    @Test("enable writes nonotice on exactly the listed clients' lines, once, as 0.2.0 did")
    func nonoticeFollowsTheList() {
        for client in PAMClient.known {
            let options = client.enableLine.split(separator: " ").map(String.init)
            let listed = PAMClient.showsNoInfoLines.contains(client.service)
            #expect(options.filter { $0 == "nonotice" }.count == (listed ? 1 : 0), "\(client.service): \(client.enableLine)")
            // What doctor asks of a line: never nonotice (the module applies it by service).
            #expect(!client.moduleOptions.contains("nonotice"), "\(client.service)")
        }
        #expect(PAMClient.forService("swaylock").enableLine == "auth       sufficient pam_pingate.so forward_pass nonotice")
        #expect(PAMClient.forService("i3lock").enableLine == "auth       sufficient pam_pingate.so nonotice")
        #expect(PAMClient.forService("phosh").enableLine.hasSuffix(" nonotice"))
        #expect(PAMClient.forService("sudo").enableLine == "auth       sufficient pam_pingate.so")
        // A client whose own options already say it is not given it twice.
        let own = PAMClient(service: "phosh", name: "phosh", programs: [], moduleOptions: ["again_or_password", "nonotice"])
        #expect(own.enableLine.hasSuffix("again_or_password nonotice"))
    }
}
