import PinGateCore

/// `pingate doctor`'s line for each lock screen and login screen installed
/// here (`PAMClient.known`): whether a PIN is offered there, and if not, the
/// one thing that is missing — the module in its stack, the service in
/// pingate.conf, or the options its way of asking needs.
extension Doctor {
    mutating func checkDesktops() {
        let reader = stackReader
        for client in PAMClient.known where client.programs.contains(where: { fileStatus($0) != nil }) {
            checkDesktop(client, stack: reader.authStack(service: client.service))
        }
    }

    private mutating func checkDesktop(_ client: PAMClient, stack: PAMStack) {
        let enable = "pingate enable \(client.service)"
        guard let rule = PAMPINRule.all(in: stack).first?.rule else {
            let file = stack.file ?? "/etc/pam.d/other"
            add(.note, L("%s: no PIN is offered (no pam_pingate.so in the auth stack of %s, %s)", client.name, client.service, file),
                fix: enable)
            return
        }
        guard policy.allows(service: client.service) else {
            add(.problem, L("%s: pam_pingate.so is in the stack of %s, but pingate.conf's services do not name it: no PIN is offered", client.name, client.service),
                fix: L("add %s to services in %s", client.service, configPath))
            return
        }
        // The options that fit how this screen asks, and its control (a
        // one-field screen's ends the try on a wrong PIN): a line written by
        // hand, or by an older release (`sufficient`), may lack them. A
        // client that needs no line of its own takes any (the profile's).
        let missing = client.moduleOptions.filter { !rule.arguments.contains($0) }
        guard !client.needsItsOwnLine || (missing.isEmpty && rule.writtenControl == client.control) else {
            add(.problem, L("%s: the pam_pingate.so line at %s is not the one this screen needs (it shows PAM's questions its own way): %s",
                            client.name, rule.origin.description, client.enableLine.split(separator: " ").joined(separator: " ")),
                fix: "pingate disable \(client.service) && \(enable)")
            return
        }
        if client.isLoginScreen && Policy.lists(client.service, in: policy.passwordFirstServices) {
            add(.ok, L("%s: a PIN is offered (service %s) while the user has a session; the first sign-in takes the password", client.name, client.service))
        } else {
            add(.ok, L("%s: a PIN is offered (service %s)", client.name, client.service))
        }
    }
}
