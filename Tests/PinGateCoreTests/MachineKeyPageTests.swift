import Testing
@testable import PinGateCore

/// Issue 40, item 6: the machine key is read onto a locked page, or onto an
/// unlocked one only where mlock is refused by something the caller of the
/// setgid helper cannot set; a limit the caller lowered refuses the key.
@Suite("MachineKeyPage: where the machine key may be read")
struct MachineKeyPageTests {
    let page = 4096

    @Test("a locked page is read onto, whatever the limit")
    func locked() {
        #expect(MachineKeyPage.judge(lockRefusal: nil, limitBytes: 0, pageBytes: page) == .locked)
    }

    @Test("RLIMIT_MEMLOCK spent (ENOMEM) refuses the key")
    func limitSpent() {
        #expect(MachineKeyPage.judge(lockRefusal: .outOfMemory, limitBytes: 8192, pageBytes: page) == .refused(refusal: .outOfMemory))
        #expect(MachineKeyPage.judge(lockRefusal: .outOfMemory, limitBytes: UInt64.max, pageBytes: page) == .refused(refusal: .outOfMemory))
    }

    @Test("EPERM under a limit below one page (the kernel's answer to a limit of 0) refuses the key")
    func limitZero() {
        #expect(MachineKeyPage.judge(lockRefusal: .notPermitted, limitBytes: 0, pageBytes: page) == .refused(refusal: .notPermitted))
        #expect(MachineKeyPage.judge(lockRefusal: .notPermitted, limitBytes: 4095, pageBytes: page) == .refused(refusal: .notPermitted))
        #expect(MachineKeyPage.judge(lockRefusal: .notPermitted, limitBytes: nil, pageBytes: page) == .refused(refusal: .notPermitted))
    }

    @Test("any refusal but EPERM (EAGAIN from a delegated memory cgroup) refuses the key, whatever the limit")
    func notAFilter() {
        #expect(MachineKeyPage.judge(lockRefusal: .wouldBlock, limitBytes: 8 << 20, pageBytes: page)
            == .refused(refusal: .wouldBlock))
        #expect(MachineKeyPage.judge(lockRefusal: .invalidArgument, limitBytes: UInt64.max, pageBytes: page)
            == .refused(refusal: .invalidArgument))
    }

    @Test("EPERM with room under the limit (a container's seccomp filter) reads the key unlocked")
    func seccomp() {
        #expect(MachineKeyPage.judge(lockRefusal: .notPermitted, limitBytes: 8 << 20, pageBytes: page) == .unlocked(refusal: .notPermitted))
        #expect(MachineKeyPage.judge(lockRefusal: .notPermitted, limitBytes: UInt64.max, pageBytes: page) == .unlocked(refusal: .notPermitted))
    }
}
