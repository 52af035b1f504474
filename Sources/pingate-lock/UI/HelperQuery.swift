import PinGateCore
import PinGateLock

/// Asks the setgid helper for the user's own status through the core's
/// client (the module's way: request on stdin, one answer line, an empty
/// environment, a deadline), and makes it the offer. Only to choose what to
/// show: the decision to unlock is PAM's alone.
enum HelperQuery {
    /// Seconds; a stopped or hung helper costs the screen no more.
    static let deadlineSeconds = 5

    static func offer(user: String) -> CredentialOffer { ask(user: user, tellingNotice: false).offer }

    /// The offer, and with `tellingNotice` the failed attempts since the last
    /// success that the owner has not been told of, marked seen: the dialog
    /// shows them as its first line.
    static func ask(user: String, tellingNotice: Bool) -> (offer: CredentialOffer, notice: FailureNotice?) {
        var request = HelperRequest(operation: .status, user: user, service: Authenticator.service)
        request.wantsNotice = tellingNotice
        do {
            let answer = try HelperClient(timeoutSeconds: deadlineSeconds).send(request)
            return (CredentialOffer(answer), answer.notice)
        } catch {
            return (.unavailable(reason: error.description), nil)
        }
    }
}
