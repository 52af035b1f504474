@testable import PinGateCLI
import Testing

/// The `--json` writer: escaping, nulls, nesting and stable key order.
@Suite struct JSONTests {
    @Test func scalars() {
        #expect(JSON.null.text == "null")
        #expect(JSON.bool(true).text == "true")
        #expect(JSON.bool(false).text == "false")
        #expect(JSON.int(-42).text == "-42")
        #expect(JSON.string("alice").text == "\"alice\"")
    }

    @Test func optionalsAndTimesBecomeNull() {
        #expect(JSON.optional(nil).text == "null")
        #expect(JSON.optional("x").text == "\"x\"")
        #expect(JSON.time(0).text == "null")
        #expect(JSON.time(1_700_000_000).text == "1700000000")
    }

    @Test func quotesBackslashesAndControlCharactersAreEscaped() {
        #expect(JSON.string("a\"b\\c").text == #""a\"b\\c""#)
        #expect(JSON.string("line\nnext\r\ttab").text == #""line\nnext\r\ttab""#)
        #expect(JSON.string("\u{01}\u{1F}\u{7F}").text == #""\u0001\u001f\u007f""#)
    }

    @Test func utf8PassesThroughUnchanged() {
        #expect(JSON.string("使用者 ●").text == "\"使用者 ●\"")
    }

    @Test func arraysAndObjectsNestWithoutSpaces() {
        let value = JSON.object([("a", .array([.int(1), .null, .object([])])), ("b", .array([]))])
        #expect(value.text == #"{"a":[1,null,{}],"b":[]}"#)
    }

    @Test func objectKeysKeepTheirOrder() {
        #expect(JSON.object([("z", .int(1)), ("a", .int(2))]).text == #"{"z":1,"a":2}"#)
    }

    @Test func keysAreEscapedToo() {
        #expect(JSON.object([("k\"", .null)]).text == #"{"k\"":null}"#)
    }

    @Test func statusJSONHasTheDocumentedKeysInOrder() {
        let report = StatusReport(user: "alice", uid: 1000, now: 100)
        #expect(report.json.text == #"{"user":"alice","uid":1000,"enrolled":false,"kind":null,"grid":null,"failures":0,"attempts_left":null,"locked_seconds":0,"locked_until":null,"disabled":false,"created":null,"changed":null,"last_failure":null,"last_success":null,"unseen_failures":0,"unseen_since":null,"error":null}"#)
    }

    @Test func statusJSONOfALockedPatternFillsItsFields() {
        var report = StatusReport(user: nil, uid: 7, now: 1_000)
        report.enrolled = true
        report.kind = .pattern
        report.grid = 4
        report.failures = 5
        report.lockedSeconds = 60
        report.created = 900
        #expect(report.json.text == #"{"user":null,"uid":7,"enrolled":true,"kind":"pattern","grid":4,"failures":5,"attempts_left":null,"locked_seconds":60,"locked_until":1060,"disabled":false,"created":900,"changed":null,"last_failure":null,"last_success":null,"unseen_failures":0,"unseen_since":null,"error":null}"#)
    }
}
