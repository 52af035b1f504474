import Glibc

/// syslog(3) under the ident `pingate`, facility authpriv (where auth.log and
/// the journal keep authentication records). Lines are English and never
/// carry a secret.
public enum SystemLog {
    public enum Priority {
        case info, notice, warning, error
        var raw: CInt {
            switch self {
            case .info: return LOG_INFO
            case .notice: return LOG_NOTICE
            case .warning: return LOG_WARNING
            case .error: return LOG_ERR
            }
        }
    }

    private static let opened: Bool = {
        openlog("pingate", LOG_PID, LOG_AUTHPRIV)
        return true
    }()

    public static func write(_ priority: Priority, _ message: String) {
        _ = opened
        // Controls are replaced so that a user name or tty cannot forge log lines.
        let clean = String(message.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        clean.withCString { text in withVaList([text]) { vsyslog(priority.raw, "%s", $0) } }
    }
}
