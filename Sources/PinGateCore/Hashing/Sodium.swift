import CSodium

/// libsodium must be initialised once before use; `sodium_init` is idempotent
/// and thread-safe, and this lazy global makes every caller pay for it once.
let sodiumInitialised: Bool = sodium_init() >= 0

func requireSodium() {
    precondition(sodiumInitialised, "libsodium failed to initialise")
}
