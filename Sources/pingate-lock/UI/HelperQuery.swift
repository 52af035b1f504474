import PinGateCore
import PinGateLock

/// Asks the setgid helper for the user's own status through the core's
/// client (the module's way: request on stdin, one answer line, an empty
/// environment, a deadline), and makes it the offer. Only to choose what to
/// show: the decision to unlock is PAM's alone.
enum HelperQuery {
    /// Seconds; a stopped or hung helper costs the screen no more.
    static let deadlineSeconds = 5

    /// The offer, and whether it may change while the screen stays locked
    /// without anything done here: a PIN disabled (root may unlock it), a
    /// store error (a sealed key not loaded yet after a resume), not at the
    /// machine (the session comes back to the front, a remote session ends),
    /// password first (logind could not be read), or a helper that could not
    /// answer (missing, stopped, past its deadline). Not: a usable or locked
    /// PIN (the lockout's own countdown asks again), none, not offered.
    static func offer(user: String) -> (offer: CredentialOffer, mayChange: Bool) {
        let request = HelperRequest(operation: .status, user: user, service: Authenticator.service)
        do {
            let answer = try HelperClient(timeoutSeconds: deadlineSeconds).send(request)
            let offer = CredentialOffer(answer)
            switch answer.statusOutcome {
            case .disabled, .storeError, .notLocal, .passwordFirst: return (offer, true)
            case .enrolled, .locked, .notEnrolled, .notOffered: return (offer, false)
            }
        } catch {
            return (.unavailable(reason: error.description), true)
        }
    }
}
