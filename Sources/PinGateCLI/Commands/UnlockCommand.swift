import PinGateCore

/// `pingate unlock USER`: root clears failures, a timeout and a disable.
struct UnlockCommand: RecordCommand {
    static let name = "unlock"
    static var abstract: String { L("clear a user's failures, timeout and disable (root)") }
    static var discussion: String {
        HelpText.paragraph(L("Sets the failure count to 0, ending any timeout and re-enabling a credential disabled after max_failures. The credential is unchanged."))
    }
    static var exitStatuses: String? {
        HelpText.paragraph(L("Exit status: 0 unlocked; 2 usage; 3 not root; 4 no such user or not enrolled; 5 store error."))
    }

    let userName: String
    let locations: Locations

    static func change(_ owner: RecordOwner, with administration: Administration) throws -> Bool {
        guard try administration.unlock(uid: owner.uid) else { return false }
        SystemLog.write(.notice, "unlock: failures cleared by root (user=\(owner.name) uid=\(owner.uid))")
        return true
    }

    static func nothingToChange(_ user: String) -> String { L("%s has no PIN or pattern; nothing to unlock", user) }
    static func changed(_ user: String) -> String { L("unlocked %s", user) }
}
