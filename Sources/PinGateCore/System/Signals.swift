import Glibc

/// A signal number, with the few signals PinGate handles named.
public struct Signal: Sendable, Equatable {
    public let rawValue: CInt
    public init(rawValue: CInt) { self.rawValue = rawValue }

    /// SIGINT
    public static let interrupt = Signal(rawValue: SIGINT)
    /// SIGTERM
    public static let terminate = Signal(rawValue: SIGTERM)
    /// SIGHUP
    public static let hangUp = Signal(rawValue: SIGHUP)
    /// SIGQUIT
    public static let quit = Signal(rawValue: SIGQUIT)

    /// A disposition as signal(2) takes and returns it: a C function, or
    /// nil for SIG_DFL. A handler captures nothing and may call only
    /// async-signal-safe functions.
    public typealias Handler = (@convention(c) (CInt) -> Void)?

    /// signal(2): installs `handler` and returns the disposition it replaces,
    /// to be put back with this same call.
    @discardableResult
    public func setHandler(_ handler: Handler) -> Handler {
        signal(rawValue, handler)
    }

    /// signal(2) with SIG_DFL.
    public func resetToDefault() { _ = signal(rawValue, SIG_DFL) }

    /// raise(3): sends this signal to the calling thread.
    public func raise() { _ = Glibc.raise(rawValue) }
}
