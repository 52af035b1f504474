extension Array where Element == PAMRule {
    /// The rules a success of the rule at `index` passes over, as libpam's
    /// `_pam_dispatch_aux` moves on: `done` (as `sufficient`) to the end of
    /// the rule's substack, or of the stack; a jump over that many rules of
    /// its level, a substack with all it holds counting as one. Nothing for
    /// any other action. (`done` ends the stack only when no rule before it
    /// failed; this is the case where it does.)
    public func skipped(bySuccessOf index: Int) -> [Int] {
        skipped(by: self[index].actions[.success], of: index)
    }

    /// The rules `action`, taken by the rule at `index`, passes over.
    public func skipped(by action: PAMAction, of index: Int) -> [Int] {
        let level = self[index].level
        var last = index
        if action == .done {
            while last + 1 < count, self[last + 1].level >= level { last += 1 }
        } else if var remaining = action.jump {
            while last + 1 < count, self[last + 1].level >= level, remaining > 0 {
                repeat { last += 1 } while last + 1 < count && self[last + 1].level > level
                remaining -= 1
            }
        }
        return [Int](index + 1 ..< last + 1)
    }

    /// The rules before `position` with a jump, on any return value, that
    /// passes over the rule at `position`: a line inserted there would be
    /// counted by the jump, which would then land one rule earlier than it
    /// does today (`[success=1] pam_succeed_if` over common-auth's pam_unix
    /// would land on pam_unix instead of pam_deny). A jump that lands exactly
    /// at `position` still lands at the start of what follows it.
    public func jumps(across position: Int) -> [Int] {
        indices.filter { index in
            index < position && Set(self[index].actions.all).contains { action in
                action.jump != nil && skipped(by: action, of: index).contains(position)
            }
        }
    }
}
