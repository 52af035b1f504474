import PinGateCore

/// `pingate doctor`'s check of sudo's own settings, which the module cannot
/// see: sudoers' `passprompt_override` makes sudo ask its own "[sudo]
/// password for USER:" in place of every question a PAM module asks, so
/// PinGate's "PIN:" — and the notice of failed attempts put into it under
/// sudo's PAM_SILENT — never reaches the person, while a PIN typed there
/// still spends the notice. Named for each enrolled user whose sudo
/// reaches pam_pingate.so, from what root's `sudo -l -U USER` prints
/// (sudo's own reading of sudoers: includes, aliases, per-user and
/// per-host Defaults).
extension Doctor {
    /// The sudo services whose stacks may carry PinGate (sudo -i uses sudo-i).
    static let sudoServices = ["sudo", "sudo-i"]

    mutating func checkSudo(users: [String]) {
        guard !users.isEmpty,
              Doctor.sudoServices.contains(where: { service in
                  policy.allows(service: service) && !PAMPINRule.all(in: stackReader.authStack(service: service)).isEmpty
              }),
              let sudo = PAMClient.forService("sudo").programs.first(where: { fileStatus($0) != nil }) else { return }
        for user in users {
            guard let listing = ProgramOutput.run(sudo, ["-n", "-l", "-U", user]),
                  Doctor.hidesQuestions(sudoListing: listing) else { continue }
            add(.problem, L("sudoers sets passprompt_override for %s: sudo asks its own \"password\" question where PinGate asks for the PIN, so the PIN question and the notice of failed PIN attempts in it are never seen", user),
                fix: L("visudo: remove passprompt_override, or add \"Defaults:%s !passprompt_override\"; or take sudo out of services in %s", user, configPath))
        }
    }

    /// Whether `sudo -l -U USER` (C locale) shows passprompt_override in
    /// force: the last word of "Matching Defaults entries" (a later
    /// `!passprompt_override` turns it off), or any command- or
    /// runas-specific Defaults line setting it (some commands then hide it).
    static func hidesQuestions(sudoListing: String) -> Bool {
        enum Section { case matching, specific, other }
        var section = Section.other
        var matching = false, specific = false
        for line in sudoListing.split(separator: "\n", omittingEmptySubsequences: false) {
            guard let first = line.first else { continue }
            if first != " " && first != "\t" {
                let header = line.lowercased()
                section = header.hasPrefix("matching defaults entries") ? .matching :
                    header.contains("specific defaults") ? .specific : .other
                continue
            }
            let words = line.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" })
            for word in words {
                switch (section, word) {
                case (.matching, "passprompt_override"): matching = true
                case (.matching, "!passprompt_override"): matching = false
                case (.specific, "passprompt_override"): specific = true
                default: break
                }
            }
        }
        return matching || specific
    }
}
