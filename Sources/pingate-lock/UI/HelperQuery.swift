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
    /// store error (a sealed key not loaded yet after a resume) or a helper
    /// that could not answer (missing, stopped, past its deadline). Not an
    /// answer that holds for the whole lock: not at the machine, password
    /// first, no credential, not offered.
    static func offer(user: String) -> (offer: CredentialOffer, mayChange: Bool) {
        let request = HelperRequest(operation: .status, user: user, service: Authenticator.service)
        do {
            let answer = try HelperClient(timeoutSeconds: deadlineSeconds).send(request)
            let offer = CredentialOffer(answer)
            switch answer.statusOutcome {
            case .disabled, .storeError: return (offer, true)
            default: return (offer, false)
            }
        } catch {
            return (.unavailable(reason: error.description), true)
        }
    }
}
