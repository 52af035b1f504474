import CSodium

/// libsodium must be initialised once before use; `sodium_init` is idempotent
/// and thread-safe, and this lazy global makes every caller pay for it once.
let sodiumInitialised: Bool = sodium_init() >= 0

func requireSodium() {
    precondition(sodiumInitialised, "libsodium failed to initialise")
}

/// Constant-time equality of two digests (`sodium_memcmp`); lengths are not secret.
func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    a.count == b.count && a.withUnsafeBytes { x in b.withUnsafeBytes { y in sodium_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 } }
}
