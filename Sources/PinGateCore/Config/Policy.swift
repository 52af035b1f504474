/// Everything pingate.conf can set, with the defaults of docs/design.md and pingate.conf(5).
public struct Policy: Equatable, Sendable {
    public var pinMinLength = 4
    public var pinMaxLength = 4
    public var patternMinCells = 4
    /// Grid size for new pattern enrolments when none is given.
    public var patternGrid = 3
    public var lockout = LockoutSchedule()
    public var kdf = KDFParameters.default
    /// PAM services the module prompts for (read by the C module too).
    public var services: [String] = Policy.defaultServices

    public init() {}

    public static let defaultServices = [
        "sudo", "login", "polkit-1", "i3lock", "swaylock", "xscreensaver",
        "gdm-password", "lightdm", "sddm", "kde", "cinnamon-screensaver",
        "gnome-screensaver", "hyprlock", "pingate-lock",
    ]

    public static let defaultPath = "/etc/pingate/pingate.conf"
}
