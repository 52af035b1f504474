import CPinGateContract

/// Everything pingate.conf can set, with the defaults of docs/design.md and pingate.conf(5).
public struct Policy: Equatable, Sendable {
    public var pinMinLength = 4
    public var pinMaxLength = 4
    public var patternMinCells = 4
    /// Grid size for new pattern enrolments when none is given.
    public var patternGrid = 3
    public var lockout = LockoutSchedule()
    public var kdf = KDFParameters.default
    /// PAM services a PIN is offered in: the helper answers `not-offered`
    /// to a request from any other (`allows(service:)`).
    public var services: [String] = Policy.defaultServices
    /// Display managers' logins, where the first sign-in of a boot takes the
    /// password (`FirstSignInRule`).
    public var passwordFirstServices: [String] = Policy.defaultPasswordFirstServices
    /// Whether a caller outside any login session, under its own user
    /// manager (sudo in a desktop terminal, Plasma's lock screen), may be
    /// offered a PIN while its owner sits at the seat (`LocalityRule`). Such a
    /// caller may also be a job an ssh login left behind: `no` closes that
    /// door, and those callers get the password only.
    public var userManagerCallers = true
    /// How `pingate key` reaches the TPM (a tpm2-tss TCTI string). Only the
    /// CLI reads it; the helper never talks to the TPM.
    public var tpmTCTI = Policy.defaultTPMTCTI

    public init() {}

    /// PINGATE_DEFAULT_SERVICES of pam/pingate_protocol.h, a list as
    /// pingate.conf's `services` is written.
    public static let defaultServices = listItems(PINGATE_DEFAULT_SERVICES)
    public static let defaultPasswordFirstServices = ["gdm-password", "lightdm", "sddm", "greetd"]
    /// A text console's login (getty's child): besides the display
    /// managers' logins, the one service whose root process opens a seat
    /// session with the sign-in it asks for.
    public static let consoleLoginService = "login"

    /// The services whose root worker opens a logind session with the
    /// sign-in it asks for: the console's `login` and the display managers'
    /// logins, which are `passwordFirstServices` (so a display manager an
    /// admin adds there is one here too, and no second list can drift from
    /// it). Only their PIN successes are marked (`SessionOpenerRule`); sudo,
    /// su, polkit-1 and the lock screens open no session.
    public var sessionOpeningServices: [String] { [Policy.consoleLoginService] + passwordFirstServices }
    /// The kernel's resource manager, which flushes what a killed client left.
    public static let defaultTPMTCTI = "device:/dev/tpmrm0"

    /// Whether a request from `service` may be answered at all. The admin
    /// CLI names none (it is no PAM service); the module always names one.
    public func allows(service: String?) -> Bool {
        service.map { Policy.lists($0, in: services) } ?? true
    }

    /// Whether `names` holds `service`, byte for byte: a PAM service is a
    /// file's name, and no other form Unicode calls equal (U+212A KELVIN
    /// SIGN for "K") names the same file.
    public static func lists(_ service: String, in names: [String]) -> Bool {
        names.contains { $0.utf8.elementsEqual(service.utf8) }
    }

    public static let defaultPath = "/etc/pingate/pingate.conf"
}
