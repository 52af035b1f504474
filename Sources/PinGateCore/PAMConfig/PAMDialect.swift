import CPinGateContract

/// Which Linux-PAM's way of reading stacks `PAMStackReader` follows: the
/// library installed (on this system or under a staged root), so that
/// `pingate stack`, `enable` and `doctor` see what that libpam will run.
/// The two differ where Linux-PAM 1.6 rewrote the line reader
/// (`_pam_line_assemble` in libpam_internal/pam_line.c) and bounded includes
/// and jumps:
///
/// | | 1.5.2 (Debian 12) | 1.7.0 (Debian 13) |
/// |---|---|---|
/// | a line | `fgets` into 1024 bytes: a longer one is cut, its rest read as a line | `getline`: any length |
/// | a comment or blank line inside a continuation | skipped: the continuation goes on | ends the continuation |
/// | includes nested | until descriptors run out (this reader: 32) | 16: the 16th `include` is a rule that always fails, the 16th `@include` aborts the service |
/// | a jump over INT_MAX | wraps around | a parse error: every value `bad` |
/// | modules | /lib/MULTIARCH/security | /usr/lib/MULTIARCH/security |
public enum PAMDialect: Sendable, Equatable {
    case linuxPAM15
    case linuxPAM17

    /// The dialect of the libpam dpkg has installed under `root` (package
    /// libpam0g); Debian 12's when dpkg's status cannot be read or names none.
    public static func installed(root: String) -> PAMDialect {
        guard let status = try? readSmallFileBytes(root + "/var/lib/dpkg/status", limit: 64 << 20),
              let version = installedVersion(of: "libpam0g", inStatus: status) else { return .linuxPAM15 }
        return forVersion(version)
    }

    /// 1.5.x and older read the 1.5 way; 1.6 and later the 1.7 way.
    static func forVersion(_ version: String) -> PAMDialect {
        let parts = version.split(separator: ":").last.map(String.init)?.split(separator: ".").prefix(2).map { Int($0.prefix { $0.isNumber }) ?? 0 } ?? []
        guard parts.count == 2 else { return .linuxPAM15 }
        return (parts[0], parts[1]) >= (1, 6) ? .linuxPAM17 : .linuxPAM15
    }

    /// The Version of `package` in dpkg's status file, if its Status says installed.
    static func installedVersion(of package: String, inStatus bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        for paragraph in text.split(separator: "\n\n", omittingEmptySubsequences: true) {
            var fields: [Substring: Substring] = [:]
            for line in paragraph.split(separator: "\n") where !line.hasPrefix(" ") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                fields[line[..<colon]] = line[line.index(after: colon)...].drop { $0 == " " }
            }
            guard fields["Package"] == Substring(package), let status = fields["Status"], status.hasSuffix(" installed"),
                  let version = fields["Version"] else { continue }
            return String(version)
        }
        return nil
    }

    /// libpam's DEFAULT_MODULE_PATH.
    public var securityDirectory: String {
        switch self {
        case .linuxPAM15: return "/lib/\(PINGATE_MULTIARCH)/security/"
        case .linuxPAM17: return "/usr/lib/\(PINGATE_MULTIARCH)/security/"
        }
    }

    /// How deep includes nest before the next one is refused: 1.7's
    /// PAM_SUBSTACK_MAX_LEVEL for every include; 1.5 follows a loop until
    /// it runs out of descriptors, where this reader stops at 32.
    var fileDepthLimit: Int {
        switch self {
        case .linuxPAM15: return 32
        case .linuxPAM17: return 16
        }
    }

    /// "Linux-PAM 1.5.2", for what `pingate stack` says it reads like.
    public var name: String {
        switch self {
        case .linuxPAM15: return "Linux-PAM 1.5.2"
        case .linuxPAM17: return "Linux-PAM 1.7.0"
        }
    }
}
