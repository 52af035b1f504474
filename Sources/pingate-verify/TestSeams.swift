import Glibc
import PinGateCore

/// Test-only controls, compiled into debug builds only and honoured only when
/// the real uid is 0: PINGATE_TEST_FAULT=STEP:kill|stop stops or kills the
/// verifier at a step of its order (see VerifierStep). Read before the
/// environment is cleared. Release builds contain none of this.
struct TestSeams {
    var faultHook: VerifierFaultHook?

    static func captureBeforeHardening() -> TestSeams {
        #if DEBUG
        guard getuid() == 0, let raw = getenv("PINGATE_TEST_FAULT") else { return TestSeams() }
        let parts = String(cString: raw).split(separator: ":").map(String.init)
        guard parts.count == 2, let step = VerifierStep(rawValue: parts[0]) else { return TestSeams() }
        let signalNumber = parts[1] == "stop" ? SIGSTOP : SIGKILL
        return TestSeams(faultHook: { reached in
            if reached == step { kill(getpid(), signalNumber) }
        })
        #else
        return TestSeams()
        #endif
    }
}
