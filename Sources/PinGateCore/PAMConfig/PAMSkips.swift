extension Array where Element == PAMRule {
    /// The rules a success of the rule at `index` passes over, as libpam's
    /// `_pam_dispatch_aux` moves on: `done` (as `sufficient`) to the end of
    /// the rule's substack, or of the stack; a jump over that many rules of
    /// its level, a substack with all it holds counting as one. Nothing for
    /// any other action. (`done` ends the stack only when no rule before it
    /// failed; this is the case where it does.)
    public func skipped(bySuccessOf index: Int) -> [Int] {
        let rule = self[index]
        let action = rule.actions[.success]
        var last = index
        if action == .done {
            while last + 1 < count, self[last + 1].level >= rule.level { last += 1 }
        } else if var remaining = action.jump {
            while last + 1 < count, self[last + 1].level >= rule.level, remaining > 0 {
                repeat { last += 1 } while last + 1 < count && self[last + 1].level > rule.level
                remaining -= 1
            }
        }
        return [Int](index + 1 ..< last + 1)
    }
}
