// pingate-verify — the setgid helper between pam_pingate.so and the store.
// See pam/pingate_protocol.h for the request and answer, and docs/design.md for
// why it exists (a screen locker runs PAM as the user, who cannot read the
// store). It is small on purpose: harden, read, check the caller, verify.
import Glibc
import PinGateCore

ProcessHardening.takeRootsRealUID()
let testSeams = TestSeams.captureBeforeHardening()
ProcessHardening.apply()
let served = HelperMain.run(arguments: argumentsAfterTheName(), seams: testSeams)
served.link.send(served.answer)
// A status asked with then=verify may be followed by its verify (FollowUp.swift).
let followUpAnswer = served.followUp?.answer(seams: testSeams)
if let followUpAnswer { served.link.send(followUpAnswer) }
exit(served.link.exitStatus(for: followUpAnswer ?? served.answer))

/// argv after the program name. Read from argv itself: `CommandLine.arguments`
/// is built by the standard library's unspecialised `map`, which costs every
/// start of the helper a round of Swift metadata lookups.
func argumentsAfterTheName() -> [String] {
    var arguments: [String] = []
    var index = 1
    while index < Int(CommandLine.argc), let argument = CommandLine.unsafeArgv[index] {
        arguments.append(String(cString: argument))
        index += 1
    }
    return arguments
}
