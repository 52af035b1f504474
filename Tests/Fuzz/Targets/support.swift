// Shared by every fuzz target. PinGateCore is built once for fuzzing with
// -enable-testing, so `@testable import` reaches internal types such as
// RecordCodec. An invariant that does not hold traps: libFuzzer reports it
// as a crash and keeps the input that caused it.
@testable import PinGateCore

/// Stops the run on a broken invariant, naming it (the input is saved by libFuzzer).
func invariant(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("invariant broken: \(message())") }
}

/// The fuzzer's bytes as a buffer (libFuzzer may pass a null pointer for size 0).
func withInput<Result>(_ data: UnsafePointer<UInt8>?, _ size: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
    guard let data, size > 0 else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
    return body(UnsafeRawBufferPointer(start: data, count: size))
}

extension Secret {
    /// The bytes as an Array, for comparing (fuzzing only: a copy of the secret).
    var bytes: [UInt8] { withUnsafeBytes { Array($0) } }
}

/// A secret's bytes, or nil when there is none.
func bytes(of secret: borrowing Secret?) -> [UInt8]? {
    switch secret {
    case let .some(secret): return secret.bytes
    case .none: return nil
    }
}

extension Pattern {
    /// The cells as integers, for comparing (fuzzing only: a copy of the secret).
    var cellNumbers: [Int] { cells.withUnsafeBytes { $0.map(Int.init) } }
}

/// A PIN's digits, or nil when none parsed (a noncopyable optional is read
/// by a borrowing switch, not by optional chaining).
func digitBytes(of pin: borrowing PIN?) -> [UInt8]? {
    switch pin {
    case let .some(pin): return pin.digits.bytes
    case .none: return nil
    }
}

/// A pattern's cells as integers, or nil when none parsed.
func cellNumbers(of pattern: borrowing Pattern?) -> [Int]? {
    switch pattern {
    case let .some(pattern): return pattern.cellNumbers
    case .none: return nil
    }
}

/// A pattern's canonical text, or nil when none parsed.
func canonicalBytes(of pattern: borrowing Pattern?) -> [UInt8]? {
    switch pattern {
    case let .some(pattern): return pattern.canonicalText().bytes
    case .none: return nil
    }
}
