import CPinGateContract

/// A request to pingate-verify, parsed from its stdin. The wire format is
/// documented in pam/pingate_protocol.h (the C side of the same contract).
///
/// `~Copyable`, as the `Secret`s it carries: a request is lent to whoever
/// reads it (`borrowing`) and handed on whole, never duplicated.
public struct HelperRequest: ~Copyable, Sendable {
    public enum Operation: String, Sendable {
        case status, verify, change
    }

    public static let versionLine = PINGATE_PROTOCOL_VERSION_LINE
    /// Larger input is refused unread.
    public static let maximumSize = Int(PINGATE_REQUEST_MAX)

    public var operation: Operation
    public var user: String
    public var service: String?
    public var tty: String?
    public var remoteHost: String?
    /// From a root caller: the real uid and pid of the process it acts for
    /// (the module's caller), for the locality rule. Ignored from anyone else.
    public var callerUID: UInt32?
    public var callerPID: Int32?
    /// From a root caller: the module's `allow_remote`.
    public var allowRemote = false
    /// The caller shows the owner a notice of unseen failures now (a
    /// conversation that shows messages, the owner's own CLI): hand it over
    /// with a success or a status, which spends it.
    public var wantsNotice = false
    /// A status's `then=verify`: the caller may send the verify that follows
    /// on PINGATE_FOLLOW_UP_FD, in the same run (pingate_protocol.h, FOLLOW-UP).
    public var followUp: Operation?
    public var secret: Secret?
    public var newKind: CredentialKind?
    public var newGridSize: Int?
    public var newSecret: Secret?

    /// A request to send. `service`, `tty` and `remoteHost` are for the
    /// helper's log; a non-root sender's are logged as claims.
    public init(operation: Operation, user: String, service: String? = nil, tty: String? = nil,
                remoteHost: String? = nil, secret: consuming Secret? = nil, newKind: CredentialKind? = nil,
                newGridSize: Int? = nil, newSecret: consuming Secret? = nil) {
        self.operation = operation
        self.user = user
        self.service = service
        self.tty = tty
        self.remoteHost = remoteHost
        self.secret = secret
        self.newKind = newKind
        self.newGridSize = newGridSize
        self.newSecret = newSecret
    }

    public struct ParseError: Error, Equatable, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Parses the request bytes. Values may hold any byte but NUL, CR, LF and
    /// other controls; secrets are copied straight into a `Secret` each.
    ///
    /// A function, not an init: a throwing init may not leave a noncopyable
    /// value half made, so the request is made whole at once and filled in
    /// as it is checked.
    public static func parsing(_ bytes: UnsafeRawBufferPointer) throws -> HelperRequest {
        guard bytes.count <= HelperRequest.maximumSize else { throw ParseError(description: "request larger than \(HelperRequest.maximumSize) bytes") }
        var lines: [Range<Int>] = []
        var start = 0
        for index in 0..<bytes.count where bytes[index] == 0x0A {
            lines.append(start..<index)
            start = index + 1
        }
        if start < bytes.count { lines.append(start..<bytes.count) }
        guard let first = lines.first,
              String(decoding: UnsafeRawBufferPointer(rebasing: bytes[first]), as: UTF8.self) == HelperRequest.versionLine
        else { throw ParseError(description: "the first line must be \(HelperRequest.versionLine)") }

        var fields: [String: String] = [:]
        var secret: Secret? = nil
        var newSecret: Secret? = nil
        for line in lines.dropFirst() {
            let content = UnsafeRawBufferPointer(rebasing: bytes[line])
            guard let equals = content.firstIndex(of: UInt8(ascii: "=")) else {
                throw ParseError(description: "a request line is not key=value")
            }
            let key = String(decoding: UnsafeRawBufferPointer(rebasing: content[0..<equals]), as: UTF8.self)
            let value = UnsafeRawBufferPointer(rebasing: content[(equals + 1)...])
            guard value.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else {
                throw ParseError(description: "the value of '\(key.prefix(20))' holds control characters")
            }
            guard fields[key] == nil, !(key == "secret" && secret.isPresent), !(key == "new" && newSecret.isPresent) else {
                throw ParseError(description: "'\(key.prefix(20))' appears twice")
            }
            switch key {
            case "secret":
                secret = Secret(copying: value)
            case "new":
                newSecret = Secret(copying: value)
            case "op", "user", "service", "tty", "rhost", "new_kind", "new_grid", "caller_uid", "caller_pid", "allow_remote", "notice", "then":
                guard let text = String(validating: value, as: UTF8.self) else {
                    throw ParseError(description: "the value of '\(key)' is not UTF-8")
                }
                fields[key] = text
            default:
                throw ParseError(description: "unknown key '\(key.prefix(20).filter { $0.isASCII && !$0.isNewline })'")
            }
        }
        guard let opName = fields["op"], let operation = Operation(rawValue: opName) else {
            throw ParseError(description: "op must be status, verify or change")
        }
        guard let user = fields["user"], !user.isEmpty, user.count <= 256 else { throw ParseError(description: "user is missing") }
        var request = HelperRequest(operation: operation, user: user)
        request.service = fields["service"]
        request.tty = fields["tty"]
        request.remoteHost = fields["rhost"]
        if let text = fields["caller_uid"] {
            guard let uid = UInt32(text), uid != UInt32.max else { throw ParseError(description: "caller_uid must be a uid") }
            request.callerUID = uid
        }
        if let text = fields["caller_pid"] {
            guard let pid = Int32(text), pid > 0 else { throw ParseError(description: "caller_pid must be a process id") }
            request.callerPID = pid
        }
        if let text = fields["allow_remote"] {
            guard text == "1" else { throw ParseError(description: "allow_remote must be 1") }
            request.allowRemote = true
        }
        if let text = fields["notice"] {
            guard text == "1" else { throw ParseError(description: "notice must be 1") }
            request.wantsNotice = true
        }
        if let text = fields["then"] {
            guard operation == .status, text == Operation.verify.rawValue else {
                throw ParseError(description: "then=verify is for a status only")
            }
            request.followUp = .verify
        }
        switch operation {
        case .status:
            guard !secret.isPresent, !newSecret.isPresent else { throw ParseError(description: "status takes no secret") }
        case .verify:
            guard secret.isPresent, !newSecret.isPresent else { throw ParseError(description: "verify needs secret= and nothing new") }
        case .change:
            guard secret.isPresent, newSecret.isPresent, let kindName = fields["new_kind"], let kind = CredentialKind(name: kindName) else {
                throw ParseError(description: "change needs secret=, new= and new_kind=pin|pattern")
            }
            request.newKind = kind
            if let grid = fields["new_grid"] {
                guard let size = Int(grid), PatternGrid.supportedSizes.contains(size) else {
                    throw ParseError(description: "new_grid must be 3 to 6")
                }
                request.newGridSize = size
            }
        }
        request.secret = secret
        request.newSecret = newSecret
        return request
    }
}

extension HelperRequest {
    /// The request as the helper reads it: the version line, then one
    /// `key=value` line per field, in the order pam/pingate_protocol.h lists
    /// them. The secrets go straight from their `Secret` into this one, so
    /// no String ever holds them. `parsing(_:)` reads this back.
    public func encoded() -> Secret {
        var text: [(String, String)] = [("op", operation.rawValue), ("user", user)]
        if let service { text.append(("service", service)) }
        if let tty { text.append(("tty", tty)) }
        if let remoteHost { text.append(("rhost", remoteHost)) }
        if let callerUID { text.append(("caller_uid", String(callerUID))) }
        if let callerPID { text.append(("caller_pid", String(callerPID))) }
        if allowRemote { text.append(("allow_remote", "1")) }
        if wantsNotice { text.append(("notice", "1")) }
        if let followUp { text.append(("then", followUp.rawValue)) }
        if let newKind { text.append(("new_kind", newKind.description)) }
        if let newGridSize { text.append(("new_grid", String(newGridSize))) }
        var size = HelperRequest.versionLine.utf8.count + 1
        for (key, value) in text { size += key.utf8.count + value.utf8.count + 2 }
        size += Self.encodedSize("secret", secret) + Self.encodedSize("new", newSecret)
        var encoded = Secret(capacity: size)
        Self.put(HelperRequest.versionLine.utf8, into: &encoded); Self.put([0x0A], into: &encoded)
        for (key, value) in text {
            Self.put(key.utf8, into: &encoded); Self.put([0x3D], into: &encoded)
            Self.put(value.utf8, into: &encoded); Self.put([0x0A], into: &encoded)
        }
        Self.put("secret", secret, into: &encoded)
        Self.put("new", newSecret, into: &encoded)
        return encoded
    }

    private static func put<Bytes: Sequence>(_ part: Bytes, into encoded: inout Secret) where Bytes.Element == UInt8 {
        for byte in part { encoded.append(byte) }
    }

    /// The length of a secret's `key=value` line, 0 when there is none.
    private static func encodedSize(_ key: String, _ value: borrowing Secret?) -> Int {
        switch value {
        case let .some(value): return key.utf8.count + value.count + 2
        case .none: return 0
        }
    }

    /// A secret's `key=value` line, read from its `Secret` a byte at a time.
    private static func put(_ key: String, _ value: borrowing Secret?, into encoded: inout Secret) {
        switch value {
        case let .some(value):
            put(key.utf8, into: &encoded); put([0x3D], into: &encoded)
            for index in 0..<value.count { encoded.append(value[index]) }
            put([0x0A], into: &encoded)
        case .none:
            break
        }
    }
}

extension Optional where Wrapped: ~Copyable {
    /// Whether a value is held, asked without taking or copying it (`!= nil`
    /// needs a copyable value).
    public var isPresent: Bool {
        switch self {
        case .some: return true
        case .none: return false
        }
    }
}
