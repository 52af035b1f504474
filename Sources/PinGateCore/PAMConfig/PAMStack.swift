/// Why libpam gives up on a whole service: pam_authenticate then returns
/// PAM_ABORT without calling any module (for `crash`, the application dies).
public struct PAMStackFailure: Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// Neither the service's file nor "other" can be read.
        case noStack
        /// The service's file or "other" stops part-way (a line problem).
        case unreadableLine(PAMLineProblem)
        /// An `@include` read with every type (in the service's own file, or
        /// in "other") names a stack libpam cannot read.
        case unreadableInclude(String)
        /// A module path whose name is empty or "?" (libpam's `extract_modulename`).
        case badModuleName(String)
        /// An include or substack without a name: Debian 12's libpam crashes.
        case includeWithoutName
        /// An `@include` nested deeper than Linux-PAM 1.7.0 follows (16).
        case includedTooDeep(String)
    }

    public let reason: Reason
    public let origin: PAMOrigin?

    public var description: String {
        let place = origin.map { " (\($0))" } ?? ""
        switch reason {
        case .noStack: return "no stack to read: neither the service's file nor \"other\" exists"
        case .unreadableLine(.unfinished): return "the file ends in a continuation (a last line ending in a backslash)" + place
        case .unreadableLine(.endless): return "a continuation that fills libpam's line buffer, where libpam 1.5.2 loops forever" + place
        case let .unreadableInclude(path): return "@include of \(path), which cannot be read" + place
        case let .badModuleName(path): return "a module path without a name: '\(path)'" + place
        case .includeWithoutName: return "an include without a stack name, which crashes libpam" + place
        case let .includedTooDeep(path): return "@include of \(path), nested deeper than libpam follows" + place
        }
    }
}

/// A service's auth stack as libpam reads it (`PAMStackReader`).
public struct PAMStack: Equatable, Sendable {
    /// The service as libpam names it: lower case, without a directory.
    public let service: String
    /// The file read for the service (without a staged root); nil when there
    /// is none and only "other" is read.
    public let file: String?
    /// The auth rules libpam runs, in order: the service's, or "other"'s
    /// when the service has none.
    public let rules: [PAMRule]
    public let fromOther: Bool
    /// Set when libpam would run none of it.
    public let failure: PAMStackFailure?
    /// The libpam whose reading this is.
    public var dialect: PAMDialect = .linuxPAM15
}
