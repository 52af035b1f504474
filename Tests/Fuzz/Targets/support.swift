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
