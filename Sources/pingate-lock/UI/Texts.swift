import PinGateCore
import PinGateLock

/// The lock screen's own words (the module's info lines are shown as it
/// writes them). Each is a literal passed straight to L or LP, for po/.
enum Texts {
    static func prompt(for mode: LockScreen.Mode) -> String {
        switch mode {
        case .pin: return L("Enter your PIN")
        case .pattern: return L("Draw your pattern")
        case .password: return L("Enter your password")
        }
    }

    static func switchLabel(mode: LockScreen.Mode, credential: LockScreen.Mode?) -> String? {
        switch (mode, credential) {
        case (.password, .pin?): return L("Use PIN")
        case (.password, .pattern?): return L("Use pattern")
        case (.password, _): return nil
        default: return L("Use password")
        }
    }

    /// Why the PIN or pattern is not offered now, with the time left; nil when
    /// there is nothing to explain (no credential enrolled).
    static func fallbackReason(_ offer: CredentialOffer, secondsLeft: Int) -> String? {
        switch offer {
        case let .locked(_, _, isPattern):
            let time = duration(secondsLeft)
            return isPattern ? L("Pattern locked for %s after too many attempts — use your password", time)
                             : L("PIN locked for %s after too many attempts — use your password", time)
        case let .disabled(_, isPattern):
            return isPattern ? L("Pattern disabled after too many attempts — use your password; an administrator can run: pingate unlock")
                             : L("PIN disabled after too many attempts — use your password; an administrator can run: pingate unlock")
        case .unavailable:
            return L("PIN sign-in is unavailable right now — use your password")
        case .notOffered:
            return notAskedByStack()
        case .pin, .pattern, .notEnrolled:
            return nil
        }
    }

    static func notAskedByStack() -> String {
        L("The lock screen's PAM service did not ask for your PIN or pattern (is pingate-lock in services of pingate.conf?) — use your password")
    }

    static func wrong(_ mode: LockScreen.Mode) -> String {
        switch mode {
        case .pin: return L("Wrong PIN")
        case .pattern: return L("Wrong pattern")
        case .password: return L("Wrong password")
        }
    }

    static func checking() -> String { L("Checking…") }

    static func accountProblem(_ reason: String) -> String {
        L("Your account cannot sign in now: %s", reason)
    }

    static func passwordPlaceholder() -> String { L("Password") }

    /// "45 s", "4 min", "1 h 30 min", rounded up so it never says 0.
    static func duration(_ seconds: Int) -> String {
        if seconds < 60 { return LP("%d second", "%d seconds", max(1, seconds)) }
        let minutes = (seconds + 59) / 60
        if minutes < 60 { return LP("%d minute", "%d minutes", minutes) }
        return L("%d h %d min", minutes / 60, minutes % 60)
    }
}
