import Glibc

/// Wall-clock seconds. Lockout timeouts are wall-clock because they must
/// survive a reboot; rollback is handled by the verifier, not trusted away.
public protocol Clock: Sendable {
    func now() -> Int64
}

public struct SystemClock: Clock {
    public init() {}
    public func now() -> Int64 { Int64(time(nil)) }
}

/// A clock tests set by hand.
public final class ManualClock: Clock, @unchecked Sendable {
    private var seconds: Int64
    public init(_ seconds: Int64) { self.seconds = seconds }
    public func now() -> Int64 { seconds }
    public func set(_ seconds: Int64) { self.seconds = seconds }
    public func advance(by delta: Int64) { seconds += delta }
}
