import CPinGateContract

/// Reads a service's auth stack exactly as the installed libpam — Debian
/// 12's Linux-PAM 1.5.2 or Debian 13's 1.7.0 (`PAMDialect`; `_pam_init_handlers`,
/// `_pam_parse_conf_file`, `_pam_load_conf_file`) — builds its list of auth rules; `Tests/IntegrationTests/stack_reader_test.sh`
/// checks it against libpam itself. What libpam does, and so this reader:
///
/// - The service's file is /etc/pam.d/SERVICE, else /usr/lib/pam.d/SERVICE
///   (SERVICE lower-cased, without a directory). "other" is read as well,
///   and its auth rules are used when the service has none.
/// - Lines: `PAMLineAssembler` (comments, continuations; 1.5.2's 1024 bytes);
///   words: `PAMTokenizer` (`[...]` is one word, `]` ends it).
/// - The type is case-insensitive; a leading `-` only keeps a missing
///   module out of the log. Another type's rules are skipped; an unknown
///   type, a missing control or module makes a rule that always fails.
/// - `include`, `substack` (one level deeper, at most 16; 1.7.0: includes
///   of any kind nested at most 16 deep, a 16th `@include` aborting) and Debian's
///   `@include NAME` (every type, its own line) read NAME at their place:
///   relative to /etc/pam.d always (Debian's libpam does not look in
///   /usr/lib/pam.d or the application's configuration directory for it),
///   or the absolute path. One that cannot be read is a rule that always
///   fails; an `@include` read with every type that cannot be read makes
///   libpam give up on the whole service.
/// - A file libpam stops reading part-way keeps the rules read before.
/// - Module paths are absolute or under /lib/MULTIARCH/security/.
///
/// Where this reader stops short of libpam: it follows at most 32 nested
/// files (libpam 1.5.2 follows an include loop until it runs out of descriptors)
/// and reads files of at most 1 MiB; either is a rule that always fails.
/// `$ISA` in a module path is not expanded.
public struct PAMStackReader: Sendable {
    public static let configurationDirectory = "/etc/pam.d"
    public static let distributionDirectory = "/usr/lib/pam.d"
    /// Debian 12's DEFAULT_MODULE_PATH (each dialect has its own).
    public static let securityDirectory = PAMDialect.linuxPAM15.securityDirectory
    static let substackLevelLimit = 16
    static let fileSizeLimit = 1 << 20

    /// A staged root the paths are read under ("" for this system).
    public let root: String
    /// Files read from here instead of the disk (paths without the root):
    /// the stack as it would be once `pingate enable` has written them.
    public let pending: [String: [UInt8]]
    /// The libpam whose reading this follows: by default the one installed
    /// under the root.
    public let dialect: PAMDialect

    public init(root: String = "", pending: [String: [UInt8]] = [:], dialect: PAMDialect? = nil) {
        var root = root
        while root.hasSuffix("/") { root.removeLast() }
        self.root = root
        self.pending = pending
        self.dialect = dialect ?? .installed(root: root)
    }

    public func authStack(service: String) -> PAMStack {
        let name = String(service.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
        let service = String(decoding: Array(name.utf8).map(asciiLowercased), as: UTF8.self)
        var reading = StackReading(reader: self, serviceIsOther: Array(service.utf8).equalsIgnoringCase("other"))
        var file: String?
        var failure: PAMStackFailure?
        let candidates = [Self.configurationDirectory, Self.distributionDirectory].map { "\($0)/\(service)" }
        if let (path, bytes) = candidates.lazy.compactMap({ path in readFile(path).map { (path, $0) } }).first {
            file = path
            if case let .failure(problem) = reading.parse(bytes, path: path, requested: nil, level: 0, depth: 0,
                                                          intoOther: reading.serviceIsOther, statementLine: nil) {
                failure = problem
            }
        }
        let otherCandidates = [Self.configurationDirectory, Self.distributionDirectory].map { "\($0)/other" }
        if failure == nil {
            if let (path, bytes) = otherCandidates.lazy.compactMap({ path in readFile(path).map { (path, $0) } }).first {
                if case let .failure(problem) = reading.parse(bytes, path: path, requested: nil, level: 0, depth: 0,
                                                              intoOther: true, statementLine: nil) {
                    failure = problem
                }
            } else if file == nil {
                failure = PAMStackFailure(reason: .noStack, origin: nil)
            }
        }
        let fromOther = reading.serviceRules.isEmpty
        return PAMStack(service: service, file: file, rules: failure != nil ? [] : fromOther ? reading.otherRules : reading.serviceRules,
                        fromOther: fromOther, failure: failure, dialect: dialect)
    }

    /// The bytes libpam's `fopen` and `fgets` would get from `path` (under
    /// the root): a directory opens and reads as empty; nil if it cannot be opened.
    func readFile(_ path: String) -> [UInt8]? {
        if let bytes = pending[path] { return bytes }
        do {
            return try readSmallFileBytes(root + path, limit: Self.fileSizeLimit)
        } catch let error as Errno where error == .isDirectory {
            return []
        } catch {
            return nil
        }
    }

    func modulePath(_ written: String) -> PAMModulePath {
        let resolved = written.hasPrefix("/") ? written : dialect.securityDirectory + written
        let installed = (try? FileStatus(following: root + resolved))?.isRegularFile ?? false
        return PAMModulePath(written: written, resolved: resolved, installed: installed)
    }
}

/// The four rule types.
enum PAMRuleType: Equatable {
    case auth, account, password, session

    init?(_ word: [UInt8]) {
        guard let type = [PAMRuleType.auth, .account, .password, .session].first(where: { word.equalsIgnoringCase("\($0)") }) else { return nil }
        self = type
    }
}
