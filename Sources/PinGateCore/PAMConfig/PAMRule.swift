/// A line of a stack file: the file as the system names it (without a
/// staged root) and the physical line the rule starts on.
public struct PAMOrigin: Hashable, Sendable, CustomStringConvertible {
    public let file: String
    public let line: Int

    public var description: String { "\(file):\(line)" }
}

/// A module path as written on a rule, and the file libpam loads for it.
public struct PAMModulePath: Equatable, Sendable {
    public let written: String
    /// Absolute as written, or under the system's security directory.
    public let resolved: String
    /// A regular file is there (under the staged root when reading one).
    public let installed: Bool

    /// libpam's module name (`extract_modulename`): the last path component
    /// without its last extension, `pam_unix` for `/lib/.../pam_unix.so`.
    public var name: String { Self.moduleName(written) ?? written }

    /// `extract_modulename`; nil for an empty name or "?", which libpam
    /// refuses by abandoning the whole file.
    static func moduleName(_ path: String) -> String? {
        let last = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        let name = last.lastIndex(of: ".").map { String(last[..<$0]) } ?? last
        return name.isEmpty || name == "?" ? nil : name
    }
}

/// Why a rule always fails: libpam keeps a line it cannot use as a rule that
/// returns PAM_PERM_DENIED (a "must fail" handler) and reads on.
public enum PAMRuleFailure: Equatable, Sendable, CustomStringConvertible {
    /// The type is none of auth, account, password, session.
    case unknownType(String)
    case missingControl
    case missingModule
    /// An include or substack whose file libpam could not read to its end.
    case unreadableStack(String)
    /// An include or substack nested deeper than libpam (substacks: 16
    /// levels) or this reader (32 files, where an include loop would end)
    /// follows.
    case nestedTooDeep(String)

    public var description: String {
        switch self {
        case let .unknownType(type): return "unknown type '\(type)'"
        case .missingControl: return "no control"
        case .missingModule: return "no module"
        case let .unreadableStack(path): return "\(path) cannot be read"
        case let .nestedTooDeep(path): return "\(path) is nested too deep"
        }
    }
}

/// One rule of an auth stack, in the order libpam keeps them once includes
/// and substacks are read in (its handler list).
public struct PAMRule: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// A module libpam calls; `silent`: its type was written with a
        /// leading `-`, which only keeps a missing module out of the log
        /// (PAM_MODULE_UNKNOWN is still its result).
        case module(PAMModulePath, silent: Bool)
        /// Where a substack starts. libpam calls nothing here, but a jump
        /// counts it, with all it holds, as one rule.
        case substack(String)
        /// A rule that always returns PAM_PERM_DENIED.
        case failing(PAMRuleFailure)
    }

    public let kind: Kind
    /// The control word as written, brackets removed; nil when there is none.
    public let control: String?
    public let actions: PAMActions
    public let arguments: [String]
    /// 0 in the service's stack, one more inside each substack.
    public let level: Int
    public let origin: PAMOrigin
    /// The line of the service's own file that brought this rule in: its own
    /// line, or the include that read it.
    public let statementLine: Int
    /// Brought in by an include, substack or `@include` of the service's
    /// file (the rule of a failed one included), rather than written there.
    public let throughInclude: Bool
    /// Which reading of a file the rule came from (a file included twice is
    /// read twice): "earlier in its file" means the same reading.
    public let reading: Int

    public var module: PAMModulePath? {
        if case let .module(path, _) = kind { return path }
        return nil
    }

    /// `[success=1 default=ignore]` or `sufficient`, as the rule is written.
    public var writtenControl: String {
        guard let control else { return "" }
        let isWord = ["required", "requisite", "optional", "sufficient", "include", "substack"].contains(control.lowercased())
        return isWord ? control : "[\(control)]"
    }
}
