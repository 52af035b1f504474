// pingate-verify — the setgid helper between pam_pingate.so and the store.
// See pam/pingate_protocol.h for the request and answer, and docs/design.md for
// why it exists (a screen locker runs PAM as the user, who cannot read the
// store). It is small on purpose: harden, read, check the caller, verify.
import Glibc

let testSeams = TestSeams.captureBeforeHardening()
ProcessHardening.apply()
let answer = HelperMain.run(arguments: Array(CommandLine.arguments.dropFirst()), seams: testSeams)
answer.line.utf8CString.withUnsafeBufferPointer { line in
    _ = fputs(line.baseAddress!, stdout)
}
fputs("\n", stdout)
fflush(stdout)
exit(answer.exitCode.rawValue)
