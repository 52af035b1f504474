// Fuzz target: PIN(parsing:minimumLength:maximumLength:) and the weak-PIN
// check. The first byte picks the length bounds (any pair in 1…16, so bounds
// outside the policy's 4…12 are exercised too); the rest is the typed input.
// An accepted PIN is digits only, within bounds, and re-parses to itself.
@testable import PinGateCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPINParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    withInput(data, size) { input in
        guard let selector = input.first else { return }
        let minimum = Int(selector & 0x0F) + 1
        let maximum = max(minimum, Int(selector >> 4) + 1)
        let typed = Secret(copying: UnsafeRawBufferPointer(rebasing: input.dropFirst()))
        guard let pin = try? PIN(parsing: typed, minimumLength: minimum, maximumLength: maximum) else { return }
        let digits = pin.digits.bytes
        invariant(digits.allSatisfy { (0x30...0x39).contains($0) }, "non-digit in an accepted PIN")
        invariant((minimum...maximum).contains(digits.count), "length \(digits.count) outside \(minimum)...\(maximum)")
        _ = pin.weakness()
        let again = try? PIN(parsing: Secret(copying: digits), minimumLength: minimum, maximumLength: maximum)
        let againDigits = digitBytes(of: again)
        invariant(againDigits == digits, "an accepted PIN does not re-parse to itself")
    }
    return 0
}
