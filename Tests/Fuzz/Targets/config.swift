// Fuzz target: ConfigParser.parse, the reader of pingate.conf. An accepted
// configuration validates, and printing every key with `value(of:)` gives a
// file that parses to the same policy.
@testable import PinGateCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfigParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    withInput(data, size) { input in
        let text = String(decoding: input, as: UTF8.self)
        let policy: Policy
        do {
            policy = try ConfigParser.parse(text, path: "/fuzz/pingate.conf")
        } catch let error as ConfigError {
            invariant(error.description.hasPrefix("/fuzz/pingate.conf"), "error does not name the file")
            return
        } catch {
            invariant(false, "parse threw \(type(of: error)), not ConfigError")
            return
        }
        invariant((try? policy.validate()) != nil, "accepted policy does not validate")
        let printed = Policy.keys.map { "\($0) = \(policy.value(of: $0))" }.joined(separator: "\n")
        let reparsed = try? ConfigParser.parse(printed, path: "/fuzz/printed.conf")
        invariant(reparsed == policy, "printed policy does not parse back:\n\(printed)")
    }
    return 0
}
