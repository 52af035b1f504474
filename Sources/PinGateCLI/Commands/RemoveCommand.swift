import PinGateCore

/// `pingate remove USER`: root deletes a user's credential and counters.
struct RemoveCommand: RecordCommand {
    static let name = "remove"
    static var abstract: String { L("delete a user's PIN or pattern (root)") }
    static var discussion: String {
        HelpText.paragraph(L("Deletes the user's record: their PIN or pattern and its failure count. The user then authenticates with the password only, until enrolled again."))
    }
    static var exitStatuses: String? {
        HelpText.paragraph(L("Exit status: 0 removed; 2 usage; 3 not root; 4 no such user or not enrolled; 5 store error."))
    }

    let userName: String
    let locations: Locations

    static func change(_ owner: RecordOwner, with administration: Administration) throws -> Bool {
        try administration.remove(uid: owner.uid)
    }

    static func nothingToChange(_ user: String) -> String { L("%s has no PIN or pattern; nothing to remove", user) }
    static func changed(_ user: String) -> String { L("removed the credential of %s", user) }
}
