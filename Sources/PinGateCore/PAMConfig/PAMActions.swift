/// A module's return value, by its name in pam.d(5)'s `[value=action]`
/// syntax, in the order of the PAM_* codes (libpam's pam_tokens.h).
public enum PAMReturn: Int, CaseIterable, Sendable {
    case success, openErr, symbolErr, serviceErr, systemErr, bufErr, permDenied, authErr, credInsufficient,
         authinfoUnavail, userUnknown, maxtries, newAuthtokReqd, acctExpired, sessionErr, credUnavail, credExpired,
         credErr, noModuleData, convErr, authtokErr, authtokRecoverErr, authtokLockBusy, authtokDisableAging,
         tryAgain, ignore, abort, authtokExpired, moduleUnknown, badItem, convAgain, incomplete

    /// "success", "auth_err", ...: the word pam.d(5) uses.
    public var name: String { Self.names[rawValue] }

    static let names = [
        "success", "open_err", "symbol_err", "service_err", "system_err", "buf_err", "perm_denied", "auth_err",
        "cred_insufficient", "authinfo_unavail", "user_unknown", "maxtries", "new_authtok_reqd", "acct_expired",
        "session_err", "cred_unavail", "cred_expired", "cred_err", "no_module_data", "conv_err", "authtok_err",
        "authtok_recover_err", "authtok_lock_busy", "authtok_disable_aging", "try_again", "ignore", "abort",
        "authtok_expired", "module_unknown", "bad_item", "conv_again", "incomplete",
    ]
}

/// What libpam does with one return value: its `_PAM_ACTION_*` number.
/// Zero and the negative numbers are the named actions, a positive one jumps
/// over that many rules. Stored as libpam stores it, overflow included, so
/// that a number no action has (from `success=99999999999`) stays what it is.
public struct PAMAction: Equatable, Hashable, Sendable {
    public let rawValue: Int32

    public static let ignore = PAMAction(rawValue: 0)
    public static let ok = PAMAction(rawValue: -1)
    public static let done = PAMAction(rawValue: -2)
    public static let bad = PAMAction(rawValue: -3)
    public static let die = PAMAction(rawValue: -4)
    public static let reset = PAMAction(rawValue: -5)
    static let undefined = PAMAction(rawValue: -6)

    static let names = ["ignore", "ok", "done", "bad", "die", "reset"]

    /// How many rules a jump passes over; nil for the named actions.
    public var jump: Int? { rawValue > 0 ? Int(rawValue) : nil }

    /// "ok", "die", "2" (a jump), as pam.d(5) writes it.
    public var description: String {
        (-5...0).contains(rawValue) ? Self.names[Int(-rawValue)] : String(rawValue)
    }
}

/// A rule's action for each of the 32 return values.
public struct PAMActions: Equatable, Sendable {
    private var table: [PAMAction]

    /// The action of every return value, in PAMReturn's order.
    public var all: [PAMAction] { table }

    static var undefined: PAMActions { PAMActions(table: Array(repeating: .undefined, count: PAMReturn.allCases.count)) }

    public subscript(_ value: PAMReturn) -> PAMAction {
        get { table[value.rawValue] }
        set { table[value.rawValue] = newValue }
    }

    /// `_pam_set_default_control`: every value still undefined gets `action`.
    mutating func setDefault(_ action: PAMAction) {
        for index in table.indices where table[index] == .undefined { table[index] = action }
    }

    /// The actions of a control word (`required`, ... case-insensitive), or of
    /// the contents of a `[value=action ...]` control, as libpam sets them
    /// before the line's other words are read. Nil for `include` and `substack`.
    static func parsing(control word: [UInt8], dialect: PAMDialect = .linuxPAM15) -> PAMActions? {
        var actions = PAMActions.undefined
        if word.equalsIgnoringCase("required") || word.equalsIgnoringCase("requisite") || word.equalsIgnoringCase("optional") {
            let required = !word.equalsIgnoringCase("optional")
            actions[.success] = .ok
            actions[.newAuthtokReqd] = .ok
            if required { actions[.ignore] = .ignore }
            actions.setDefault(word.equalsIgnoringCase("required") ? .bad : word.equalsIgnoringCase("requisite") ? .die : .ignore)
        } else if word.equalsIgnoringCase("sufficient") {
            actions[.success] = .done
            actions[.newAuthtokReqd] = .done
            actions.setDefault(.ignore)
        } else if word.equalsIgnoringCase("include") || word.equalsIgnoringCase("substack") {
            return nil
        } else {
            actions.parse(word, dialect: dialect)
            actions.setDefault(.bad)
        }
        return actions
    }

    /// `_pam_parse_control`: `value=action` pairs in order, `default` filling
    /// what is still undefined; names matched as prefixes, in libpam's order;
    /// any error makes every value `bad` — in 1.7.0 also a jump over INT_MAX,
    /// which 1.5.2 lets wrap around.
    private mutating func parse(_ text: [UInt8], dialect: PAMDialect) {
        var index = 0
        func at(_ position: Int) -> UInt8 { position < text.count ? text[position] : 0 }
        func skipSpace() { while isCSpace(at(index)) { index += 1 } }
        func hasPrefix(_ word: String, at position: Int) -> Bool {
            let bytes = Array(word.utf8)
            return position + bytes.count <= text.count && Array(text[position..<position + bytes.count]) == bytes
        }
        while at(index) != 0 {
            skipSpace()
            if at(index) == 0 { break }
            // The return value, or "default" (libpam's index 32).
            let values = PAMReturn.names + ["default"]
            guard let value = values.firstIndex(where: { hasPrefix($0, at: index) }) else { return failParse() }
            index += values[value].utf8.count
            guard at(index) != 0 else { return failParse() }
            skipSpace()
            guard at(index) == UInt8(ascii: "=") else { return failParse() }
            index += 1
            skipSpace()
            guard at(index) != 0 else { return failParse() }
            var action: PAMAction
            if let named = PAMAction.names.firstIndex(where: { hasPrefix($0, at: index) }) {
                action = PAMAction(rawValue: -Int32(named))
                index += PAMAction.names[named].utf8.count
            } else {
                guard isDigit(at(index)) else { return failParse() }
                var number: Int32 = 0
                repeat {
                    let digit = Int32(at(index) - UInt8(ascii: "0"))
                    if dialect == .linuxPAM17, number > Int32.max / 10 || number * 10 > Int32.max - digit { return failParse() }
                    number = number &* 10 &+ digit
                    index += 1
                } while isDigit(at(index))
                guard number != 0 else { return failParse() }
                action = PAMAction(rawValue: number)
            }
            if value < PAMReturn.allCases.count {
                table[value] = action
            } else {
                setDefault(action)
            }
        }
    }

    private mutating func failParse() {
        table = Array(repeating: .bad, count: table.count)
    }
}

/// C's isspace and isdigit in the C locale.
private func isCSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
