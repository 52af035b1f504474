import Testing
@testable import PinGateCore

/// What the helper's request reader refuses, and why: each request here is
/// one line away from a good one, and the reason names that line's problem.
@Suite("malformed requests are refused with their reason")
struct RequestRefusalTests {
    static let good = "pingate-verify/1\nop=verify\nuser=pgalice\nsecret=4821\n"

    func reason(_ text: String) -> String? {
        reason(Array(text.utf8))
    }

    func reason(_ bytes: [UInt8]) -> String? {
        do {
            try bytes.withUnsafeBytes { raw -> Void in _ = try HelperRequest.parsing(raw) }
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("the good request parses, with or without its last newline")
    func goodRequest() {
        #expect(reason(Self.good) == nil)
        #expect(reason(String(Self.good.dropLast())) == nil)
    }

    @Test("each malformed line is refused with its reason", arguments: [
        ("", "the first line must be"),
        ("pingate-verify/2\nop=status\nuser=a\n", "the first line must be"),
        ("op=status\nuser=a\n", "the first line must be"),
        ("pingate-verify/1\nop=status\nop=status\nuser=a\n", "'op' appears twice"),
        ("pingate-verify/1\nop=verify\nuser=a\nsecret=1\nsecret=2\n", "'secret' appears twice"),
        ("pingate-verify/1\nop=status\nuser=a\n\n", "not key=value"),
        ("pingate-verify/1\nop=status\nuser\n", "not key=value"),
        ("pingate-verify/1\nop=status\nuser=a\nshell=/bin/sh\n", "unknown key 'shell'"),
        ("pingate-verify/1\nop=status\nuser=a\ttab\n", "holds control characters"),
        ("pingate-verify/1\nop=status\nuser=a\r\n", "holds control characters"),
        ("pingate-verify/1\nop=unlock\nuser=a\n", "op must be status, verify or change"),
        // notice=N: how many failed attempts the owner was shown, on an attempt only.
        ("pingate-verify/1\nop=status\nuser=a\nnotice=1\n", "notice must be the number of failed attempts shown"),
        ("pingate-verify/1\nop=verify\nuser=a\nnotice=0\nsecret=1\n", "notice must be the number of failed attempts shown"),
        ("pingate-verify/1\nop=verify\nuser=a\nnotice=02\nsecret=1\n", "notice must be the number of failed attempts shown"),
        // notice_since=T: when the first of them was, with notice=N only.
        ("pingate-verify/1\nop=verify\nuser=a\nnotice_since=5\nsecret=1\n", "notice_since must be the Unix time"),
        ("pingate-verify/1\nop=verify\nuser=a\nnotice=1\nnotice_since=-5\nsecret=1\n", "notice_since must be the Unix time"),
        ("pingate-verify/1\nop=verify\nuser=a\nnotice=1\nnotice_since=05\nsecret=1\n", "notice_since must be the Unix time"),
        ("pingate-verify/1\nuser=a\n", "op must be status, verify or change"),
        ("pingate-verify/1\nop=status\n", "user is missing"),
        ("pingate-verify/1\nop=status\nuser=\n", "user is missing"),
        ("pingate-verify/1\nop=status\nuser=a\nsecret=1\n", "status takes no secret"),
        ("pingate-verify/1\nop=verify\nuser=a\n", "verify needs secret="),
        ("pingate-verify/1\nop=change\nuser=a\nsecret=1\nnew=2\n", "change needs secret=, new= and new_kind"),
        ("pingate-verify/1\nop=change\nuser=a\nsecret=1\nnew=2\nnew_kind=pin\nnew_grid=9\n", "new_grid must be 3 to 6"),
    ])
    func refused(request: String, why: String) {
        let reason = reason(request)
        #expect(reason?.contains(why) == true, "\(reason ?? "accepted")")
    }

    @Test("a text field that is not UTF-8 is refused; a secret may hold any byte but controls")
    func bytes() {
        let head = Array("pingate-verify/1\nop=verify\nuser=".utf8)
        #expect(reason(head + [0xFF, 0x0A] + Array("secret=1\n".utf8))?.contains("'user' is not UTF-8") == true)
        #expect(reason(Array("pingate-verify/1\nop=verify\nuser=a\nsecret=".utf8) + [0xFF, 0xC0, 0x0A]) == nil)
    }

    @Test("a request over the size limit is refused unread")
    func tooLarge() {
        let padding = String(repeating: "x", count: HelperRequest.maximumSize)
        #expect(reason(Self.good + padding)?.contains("larger than") == true)
    }
}
