/// What `pingate enable` needs to know about a service's auth stack
/// before it puts `auth sufficient pam_pingate.so` in front of the password.
public struct PAMEnableFacts: Equatable, Sendable {
    /// Every rule that runs pam_pingate.so, in the service's file or in one
    /// it includes (enable counts the service's own and common-auth's,
    /// where pam-auth-update puts it).
    public let pinGateRules: [PAMOrigin]
    /// The line of the service's file the PinGate line goes before; nil when
    /// the file brings in no auth rule. In front of the password: before the
    /// first include, substack or `@include` that brings in auth rules (so
    /// that requisite checks such as pam_nologin above it keep their place),
    /// otherwise before the first auth rule.
    public let insertionLine: Int?
    /// What a correct PIN there would skip that is more than the password:
    /// every rule from that line on (a `sufficient` rule at the top of the
    /// stack ends it), judged by `PAMPasswordModules`. A stack libpam cannot
    /// use at all is one guard.
    public let guards: [PAMGuard]
    /// Rules above the insertion line whose jump (on any return value)
    /// passes over it: the PinGate line there would move where they land.
    public let crossingJumps: [PAMOrigin]

    public init(_ stack: PAMStack) {
        pinGateRules = stack.rules.filter(PAMPasswordModules.isPinGate).map(\.origin)
        let own = stack.fromOther ? [] : stack.rules
        let insertionIndex = own.firstIndex(where: \.throughInclude) ?? own.indices.first
        insertionLine = insertionIndex.map { own[$0].statementLine }
        crossingJumps = insertionIndex.map { own.jumps(across: $0).map { own[$0].origin } } ?? []
        if let failure = stack.failure {
            guards = [PAMPasswordModules.guardFor(failure, file: stack.file)]
        } else if let insertionLine {
            guards = PAMPasswordModules.guards(at: own.indices.filter { own[$0].statementLine >= insertionLine }, of: own)
        } else {
            guards = []
        }
    }
}
