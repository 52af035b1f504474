import Testing
@testable import PinGateCore

// The first sign-in of a boot takes the password at a display manager's
// login: it unlocks the keyring and an encrypted home. A PIN only while the
// user already has a session there (unlocking, switching back).
@Suite("The first sign-in at a login screen takes the password")
struct FirstSignInRuleTests {
    let rule = { (logind: FakeLogind, service: String) in
        FirstSignInRule(logind: logind).passwordRequired(service: service, uid: 1000, policy: Policy())
    }

    @Test("gdm-password, lightdm and sddm with no session of the user: the password", arguments: ["gdm-password", "lightdm", "sddm"])
    func firstSignIn(service: String) {
        var logind = FakeLogind()
        logind.add("c1", uid: 120, class: "greeter")   // the greeter's own session is not hers
        #expect(rule(logind, service) != nil)
    }

    @Test("with a session of hers (unlocking, switching back): a PIN may be offered")
    func withASession() {
        var logind = FakeLogind()
        logind.add("3", uid: 1000)
        #expect(rule(logind, "gdm-password") == nil)
    }

    @Test("her user manager's own session, an ssh login, a cron job or an unreadable session is no sign-in at the seat")
    func onlyASeatSessionCounts() {
        var logind = FakeLogind()
        logind.add("m1", uid: 1000, seat: nil, class: "manager")
        logind.add("s1", uid: 1000, seat: nil, remote: true)
        logind.add("c1", uid: 1000, class: "background")
        logind.add("u1", uid: 1000)
        logind.unreadable = ["u1"]
        #expect(rule(logind, "lightdm") != nil)
    }

    @Test("other services are not affected, and without logind a login screen takes the password")
    func otherServicesAndNoLogind() {
        #expect(rule(FakeLogind(), "sudo") == nil)
        #expect(rule(FakeLogind(), "pingate-lock") == nil)
        #expect(rule(FakeLogind(logindRuns: false), "gdm-password") != nil)
        #expect(rule(FakeLogind(logindRuns: false), "sudo") == nil)
    }

    @Test("the list is pingate.conf's password_first_services")
    func configurable() throws {
        var policy = Policy()
        try policy.set("password_first_services", to: "lightdm")
        #expect(FirstSignInRule(logind: FakeLogind()).passwordRequired(service: "gdm-password", uid: 1000, policy: policy) == nil)
        #expect(FirstSignInRule(logind: FakeLogind()).passwordRequired(service: "lightdm", uid: 1000, policy: policy) != nil)
    }
}
