import PinGateCore
import PinGateLock

/// Asks the setgid helper for the user's own status through the core's
/// client (the module's way: request on stdin, one answer line, an empty
/// environment, a deadline), and makes it the offer. Only to choose what to
/// show: the decision to unlock is PAM's alone.
enum HelperQuery {
    /// Seconds; a stopped or hung helper costs the screen no more.
    static let deadlineSeconds = 5

    static func offer(user: String) -> CredentialOffer {
        let request = HelperRequest(operation: .status, user: user, service: Authenticator.service)
        do {
            return CredentialOffer(try HelperClient(timeoutSeconds: deadlineSeconds).send(request))
        } catch {
            return .unavailable(reason: error.description)
        }
    }
}
