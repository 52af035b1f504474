import PinGateCore

extension FailureNotice {
    /// "2 failed PIN attempts since your last PIN sign-in, the first at
    /// 2026-12-02 14:02:11 UTC": the module's words (one translation).
    func text(kind: CredentialKind) -> String {
        let when = Output.time(firstAt)
        return kind == .pattern
            ? LP("%d failed pattern attempt since your last pattern sign-in, at %s",
                 "%d failed pattern attempts since your last pattern sign-in, the first at %s", failures, when)
            : LP("%d failed PIN attempt since your last PIN sign-in, at %s",
                 "%d failed PIN attempts since your last PIN sign-in, the first at %s", failures, when)
    }
}
