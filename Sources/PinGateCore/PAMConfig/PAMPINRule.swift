/// A pam_pingate.so rule already in a stack, and what its success skips.
public struct PAMPINRule: Equatable, Sendable {
    public let rule: PAMRule
    /// Guards its success passes over (`[Array<PAMRule>].skipped(bySuccessOf:)`):
    /// a module added after PinGate was enabled, which a PIN now skips.
    public let skippedGuards: [PAMGuard]

    /// Every pam_pingate.so rule of `stack`, in order.
    public static func all(in stack: PAMStack) -> [PAMPINRule] {
        stack.rules.indices.filter { PAMPasswordModules.isPinGate(stack.rules[$0]) }.map { index in
            PAMPINRule(rule: stack.rules[index],
                       skippedGuards: PAMPasswordModules.guards(at: stack.rules.skipped(bySuccessOf: index), of: stack.rules))
        }
    }
}
