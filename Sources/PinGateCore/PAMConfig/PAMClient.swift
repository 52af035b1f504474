import CPinGateContract

/// A program that asks PAM for a sign-in, known by its service name: how it
/// shows PAM's questions decides which module options its stack line needs.
/// `pingate enable` takes the line from here (`pingate stack` prints it
/// as `enable_line`), and `pingate doctor` checks each installed one against
/// it, so the two cannot drift.
public struct PAMClient: Equatable, Sendable {
    /// The PAM service it asks for (its file in /etc/pam.d).
    public let service: String
    /// What a person calls it, for doctor: "KDE Plasma lock screen".
    public let name: String
    /// Where its program is installed; it is there if any of them exists.
    public let programs: [String]
    /// The control of the line `--enable` writes: `sufficient`, or for a
    /// one-field lock screen `wrongPINEndsTheTry` (see `known`).
    public let control: String
    /// The options after `pam_pingate.so` its line needs (`enableLine` adds
    /// `nonotice`, which the module applies by service anyway).
    public let moduleOptions: [String]
    /// Debian may ship no /etc/pam.d file for it (Plasma 5's kde, sudo-rs's
    /// sudo), so libpam reads `other`: `--enable` creates one from other's stack.
    public let createdFromOther: Bool
    /// A display manager: the same stack signs in at boot, where the first
    /// sign-in takes the password (pingate.conf `password_first_services`).
    public let isLoginScreen: Bool
    /// Other services the same program asks through, which `pingate
    /// enable` and `disable` switch along with this one (where they exist):
    /// `sudo -i` and `sudo --login` ask as sudo-i, and a PIN for sudo that
    /// `sudo -i` never offered would read as broken.
    public let companions: [String]

    /// The control of a client that asks PAM's questions as they come
    /// (sudo, sudo -i): it needs no line of its own.
    public static let plainControl = "sufficient"

    public init(service: String, name: String, programs: [String], control: String = plainControl,
                moduleOptions: [String] = [], createdFromOther: Bool = false, isLoginScreen: Bool = false,
                companions: [String] = []) {
        self.service = service
        self.name = name
        self.programs = programs
        self.control = control
        self.moduleOptions = moduleOptions
        self.createdFromOther = createdFromOther
        self.isLoginScreen = isLoginScreen
        self.companions = companions
    }

    /// Whether its way of asking needs a line of its own — a control or
    /// options beyond the plain line (the one-field lock screens). One that
    /// does not (sudo) works with any PinGate line: the Debian profile's
    /// `forward_pass` in common-auth, a line written by hand or by 0.2.0.
    public var needsItsOwnLine: Bool { control != PAMClient.plainControl || !moduleOptions.isEmpty }

    /// The companions of `services` that are not named among them, in order.
    public static func companions(of services: [String]) -> [String] {
        var added: [String] = []
        for companion in services.flatMap({ forService($0).companions })
        where !services.contains(companion) && !added.contains(companion) {
            added.append(companion)
        }
        return added
    }

    /// The auth line `pingate enable` puts in front of the password:
    /// always just the module, so that anything but a correct PIN goes on
    /// through the stack as before.
    public var enableLine: String {
        (["auth      ", control, "pam_pingate.so"] + moduleOptions + noticeOption).joined(separator: " ")
    }

    /// `nonotice` for a client that shows no info line: the module would
    /// tell it no notice without it (by PAM_SERVICE), but a copy of the
    /// file under another service name keeps the rule, and the lines stay
    /// those of 0.2.0.
    private var noticeOption: [String] {
        PAMClient.showsNoInfoLines.contains(service) && !moduleOptions.contains("nonotice") ? ["nonotice"] : []
    }

    /// The known client for `service`, or one with the default options.
    public static func forService(_ service: String) -> PAMClient {
        known.first { $0.service == service } ?? PAMClient(service: service, name: service, programs: [])
    }

    /// Conversations no person sees a PIN question of (pingate_protocol.h,
    /// PINGATE_UNSEEN_SERVICES: Plasma 6's kde-fingerprint and kde-smartcard
    /// beside kde, GDM's gdm-fingerprint beside gdm-password, gdm-smartcard
    /// asking for the card's own PIN): `pingate enable` refuses them, and
    /// the module offers no PIN there whatever `services` says.
    public static let unseenConversations = Set(PINGATE_UNSEEN_SERVICES.split(separator: " ").map(String.init))

    /// Applications that show no informational line (pingate_protocol.h,
    /// PINGATE_NO_INFO_SERVICES: i3lock, swaylock, hyprlock, Cinnamon's lock
    /// screen, phosh). The module tells them no failed-attempt notice
    /// whatever line reaches it (an `include` of login, the pam-auth-update
    /// profile, a line of an older release), so it waits for a sign-in that
    /// shows it; `enableLine` writes `nonotice` on their lines too.
    public static let showsNoInfoLines = Set(PINGATE_NO_INFO_SERVICES.split(separator: " ").map(String.init))

    /// The control of every one-field lock screen's line: a correct PIN
    /// ends the stack (as `sufficient`), a wrong one ends the try
    /// (`auth_err=die`), and anything else — a password handed on, no PIN,
    /// a locked PIN, a broken helper — goes on to the password as before.
    public static let wrongPINEndsTheTry = "[success=done new_authtok_reqd=done auth_err=die default=ignore]"

    /// Why each has its options:
    /// - swaylock and hyprlock answer every question with the same typed
    ///   buffer: `forward_pass` asks one "PIN or password" question and leaves
    ///   a password as PAM_AUTHTOK for the stack's own pam_unix.
    /// - i3lock, swaylock and hyprlock show no informational line: they are
    ///   in `showsNoInfoLines`, which keeps the failed-attempt notice for a
    ///   sign-in that shows it (their lines say `nonotice` as well).
    /// - KDE's, MATE's, Xfce's (xfce4-screensaver), Cinnamon's and GNOME's
    ///   lock screens keep one field for every question (GNOME shows the
    ///   question only as the field's hint, Cinnamon as its placeholder, KDE
    ///   not at all), so whatever is asked, a person types the PIN. The PIN may never reach pam_unix, so
    ///   pam_unix must never ask while a PIN is offered: `again_or_password`
    ///   asks "PIN or password" and takes the password at PinGate's own
    ///   questions (it is handed on as PAM_AUTHTOK and pam_unix takes it
    ///   without asking; a password shaped like the PIN when it is typed
    ///   again, the helper's `repeated`), and `wrongPINEndsTheTry` ends the conversation when the
    ///   module has asked all it may. With `sufficient`, the second wrong PIN
    ///   went on to pam_unix, which asked "Password" — and the right PIN
    ///   typed there was a wrong password, counted by pam_faillock where it
    ///   runs. Each of these programs then says the try failed and asks
    ///   afresh (mate_test.sh, xfce_test.sh, cinnamon_test.sh, gnome_test.sh:
    ///   two wrong PINs, then the right one; kde_test.sh).
    /// - How many PINs one try takes is what each shows best. MATE, GNOME and
    ///   xfce4-screensaver (a fork of MATE's; its dialog shows the question
    ///   and PAM's info line together under the field, and hides only
    ///   pam_unix's "Password: ") show "Wrong PIN — N attempts left" next to
    ///   the question, so `retries=2` asks "PIN or password" after a wrong PIN in the same try;
    ///   the second wrong PIN ends it. KDE's greeter clears its field only
    ///   when a try fails (a second question would find the wrong PIN's dots
    ///   still there), and Cinnamon clears every info line as soon as its
    ///   field takes keys again: there a wrong PIN ends the try at once, and
    ///   the failure the program shows ("Unlocking failed", "Incorrect
    ///   password") is the one sign the person sees of it.
    ///   gdm-password is GNOME's lock screen as well as its login.
    /// - KDE's field never shows the question: `announce` puts "Type your PIN,
    ///   or your password" above it.
    /// - The notice of failed attempts is said before the question (an info
    ///   line): MATE, Xfce's, KDE and GNOME show it above or below their
    ///   field before the person types. i3lock, swaylock and hyprlock show nothing before
    ///   their field, and Cinnamon puts its own "Incorrect password" where
    ///   the line would be (screenshot: cinnamon_test.sh): they are in
    ///   `showsNoInfoLines`, and the notice waits, unspent, for a sign-in that shows it.
    /// - Phosh's lock screen (0.46) is one field as well: its keypad page
    ///   answers every question with what was typed and shows none of PAM's
    ///   lines, and after a failed try it asks again on the same PAM handle.
    ///   Its line is Cinnamon's: a wrong PIN ends the try (the dots clear,
    ///   "Enter Passcode" again) and never goes on to pam_unix; it is in
    ///   `showsNoInfoLines`, as nothing would show the notice (phosh13_test.sh).
    /// - The first sign-in of a boot at a display manager takes the password:
    ///   the helper's first-sign-in rule decides that, not an option.
    public static let known: [PAMClient] = [
        // sudo-rs (Debian 13) uses the service sudo but ships no
        // /etc/pam.d/sudo: without the sudo package, libpam reads `other`.
        PAMClient(service: "sudo", name: "sudo", programs: ["/usr/bin/sudo", "/usr/lib/cargo/bin/sudo"],
                  createdFromOther: true, companions: ["sudo-i"]),
        // Debian's sudo package ships /etc/pam.d/sudo-i for `sudo -i`.
        PAMClient(service: "sudo-i", name: "sudo -i", programs: ["/usr/bin/sudo"]),
        PAMClient(service: "gdm-password", name: "GNOME (GDM login and lock screen)", programs: ["/usr/sbin/gdm3"],
                  control: wrongPINEndsTheTry, moduleOptions: ["retries=2", "again_or_password"], isLoginScreen: true),
        PAMClient(service: "kde", name: "KDE Plasma lock screen",
                  programs: ["/usr/lib/\(PINGATE_MULTIARCH)/libexec/kscreenlocker_greet"],
                  control: wrongPINEndsTheTry, moduleOptions: ["again_or_password", "announce"],
                  createdFromOther: true),
        PAMClient(service: "sddm", name: "KDE login (SDDM)", programs: ["/usr/bin/sddm"], isLoginScreen: true),
        PAMClient(service: "lightdm", name: "Xfce (LightDM login, light-locker)", programs: ["/usr/sbin/lightdm"],
                  isLoginScreen: true),
        PAMClient(service: "xscreensaver", name: "XScreenSaver", programs: ["/usr/bin/xscreensaver"]),
        PAMClient(service: "cinnamon-screensaver", name: "Cinnamon lock screen", programs: ["/usr/bin/cinnamon-screensaver"],
                  control: wrongPINEndsTheTry, moduleOptions: ["again_or_password"]),
        PAMClient(service: "mate-screensaver", name: "MATE lock screen", programs: ["/usr/bin/mate-screensaver"],
                  control: wrongPINEndsTheTry, moduleOptions: ["retries=2", "again_or_password"]),
        PAMClient(service: "xfce4-screensaver", name: "Xfce lock screen (xfce4-screensaver)",
                  programs: ["/usr/bin/xfce4-screensaver"],
                  control: wrongPINEndsTheTry, moduleOptions: ["retries=2", "again_or_password"]),
        PAMClient(service: "i3lock", name: "i3lock", programs: ["/usr/bin/i3lock"]),
        PAMClient(service: "swaylock", name: "swaylock", programs: ["/usr/bin/swaylock"],
                  moduleOptions: ["forward_pass"]),
        PAMClient(service: "hyprlock", name: "hyprlock", programs: ["/usr/bin/hyprlock"],
                  moduleOptions: ["forward_pass"]),
        // Debian's phosh ships no /etc/pam.d/phosh: libpam reads `other`.
        PAMClient(service: "phosh", name: "Phosh lock screen", programs: ["/usr/libexec/phosh"],
                  control: wrongPINEndsTheTry, moduleOptions: ["again_or_password"],
                  createdFromOther: true),
        PAMClient(service: "greetd", name: "greetd login (phrog, greetd's greeters)", programs: ["/usr/sbin/greetd"],
                  isLoginScreen: true),
    ]
}
