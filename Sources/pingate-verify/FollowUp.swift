import CPinGateContract
import Glibc
import PinGateCore

/// The verify that follows a status in the same run (pingate_protocol.h,
/// FOLLOW-UP; on descriptor 3, or as the next message of the socket): the module asks with then=verify, and a sign-in costs one
/// helper start instead of two — the start, not the checks, is most of what
/// the helper costs besides the KDF. Offered only after an `enrolled` status.
struct FollowUp {
    let user: String
    let options: RootOptions
    let link: CallerLink

    /// The verify's answer, or nil if none came: the caller closed the
    /// descriptor without one (nothing typed, or a password), or
    /// PINGATE_FOLLOW_UP_SECONDS passed. While it waits the helper holds no
    /// record lock and no secret (the status closed its record), so nothing
    /// else waits for it; the request is then judged from the start, as any is.
    func answer(seams: TestSeams) -> HelperAnswer? {
        let callerUID = link.callerUID
        let descriptor = link.followUpDescriptor
        guard !descriptor.isTerminal else {
            return HelperMain.refuse("descriptor \(PINGATE_FOLLOW_UP_FD) is a terminal: pingate-verify is a helper for pam_pingate.so", detail: "uid \(callerUID)")
        }
        // While the user types, what the verify needs that holds no secret
        // and takes no record lock is made ready: the log's time zone, and
        // empty locked pages for the verify's secrets. The module prompts
        // meanwhile, so neither is paid between the last digit and the answer.
        SystemLog.prepare()
        Secret.prepareRoom()
        let deadline = Deadline.after(milliseconds: Int(PINGATE_FOLLOW_UP_SECONDS) * 1000)
        let input = link.readRequest(from: descriptor, until: deadline)
        if input.isEmpty { return nil }
        switch HelperMain.parse(input, callerUID: callerUID) {
        case let .failure(refusal):
            return refusal.answer
        case let .success(request):
            guard request.operation == .verify, request.user == user else {
                return HelperMain.refuse("a follow-up must be a verify for the user of the status", detail: "uid \(callerUID)")
            }
            return HelperMain.answer(request, options: options, link: link, seams: seams)
        }
    }
}
