import CPinGateContract

/// A request to pingate-verify, parsed from its stdin. The wire format is
/// documented in pam/pingate_protocol.h (the C side of the same contract).
///
/// `~Copyable`, as the `Secret`s it carries: a request is lent to whoever
/// reads it (`borrowing`) and handed on whole, never duplicated.
public struct HelperRequest: ~Copyable, Sendable {
    public enum Operation: String, Sendable {
        case status, verify, change

        /// `init(rawValue:)` by hand: the synthesised one searches an array
        /// of the names, whose metadata the helper would build at every start.
        init?(name: String) {
            switch name {
            case "status": self = .status
            case "verify": self = .verify
            case "change": self = .change
            default: return nil
            }
        }
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
    /// A status's `then=verify`: the caller may send the verify that follows
    /// on PINGATE_FOLLOW_UP_FD, in the same run (pingate_protocol.h, FOLLOW-UP).
    public var followUp: Operation?
    public var secret: Secret?
    public var newKind: CredentialKind?
    public var newGridSize: Int?
    public var newSecret: Secret?
    /// verify, change: the caller showed the owner this many failed
    /// attempts before the secret was typed (the notice a status reported),
    /// the first at `shownSince`; a success spends the notice when exactly
    /// that is what is unseen. Nothing else ever spends it: not a status,
    /// not a success where it was not shown. 0: nothing was shown.
    ///
    /// Kept after the two `Secret?` fields: declared before them (where the
    /// Bool it replaced stood), the release build of pingate-lock's UI
    /// crashed in `Secret`'s deinit on a request that holds no secret —
    /// swiftc 6.3.1 with optimisation; the debug build was fine. Not reduced
    /// yet; `lock_test.sh` catches it.
    public var shownFailures = 0
    /// The Unix time of the first of them (the status's since=T).
    public var shownSince: Int64 = 0

    /// The notice the caller showed, if any.
    public var shownNotice: FailureNotice? {
        shownFailures > 0 ? FailureNotice(failures: shownFailures, firstAt: shownSince) : nil
    }

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
    ///
    /// Read a line at a time into one slot per key, with no array of lines
    /// and no dictionary of fields: the helper parses one request per run,
    /// and the first `[String: String]` or `[Range<Int>]` of a run costs the
    /// Swift runtime a metadata and conformance search (about 200,000
    /// instructions, an eighth of a status run).
    public static func parsing(_ bytes: UnsafeRawBufferPointer) throws -> HelperRequest {
        guard bytes.count <= HelperRequest.maximumSize else { throw ParseError(description: "request larger than \(HelperRequest.maximumSize) bytes") }
        var fields = Fields()
        var sawVersion = false
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            start = end + 1
            if sawVersion {
                try fields.take(line)
            } else {
                guard String(decoding: line, as: UTF8.self) == HelperRequest.versionLine else { break }
                sawVersion = true
            }
        }
        guard sawVersion else { throw ParseError(description: "the first line must be \(HelperRequest.versionLine)") }
        guard let opName = fields.op, let operation = Operation(name: opName) else {
            throw ParseError(description: "op must be status, verify or change")
        }
        guard let user = fields.user, !user.isEmpty, user.count <= 256 else { throw ParseError(description: "user is missing") }
        var request = HelperRequest(operation: operation, user: user)
        request.service = fields.service
        request.tty = fields.tty
        request.remoteHost = fields.rhost
        if let text = fields.callerUID {
            guard let uid = UInt32(text), uid != UInt32.max else { throw ParseError(description: "caller_uid must be a uid") }
            request.callerUID = uid
        }
        if let text = fields.callerPID {
            guard let pid = Int32(text), pid > 0 else { throw ParseError(description: "caller_pid must be a process id") }
            request.callerPID = pid
        }
        if let text = fields.allowRemote {
            guard text == "1" else { throw ParseError(description: "allow_remote must be 1") }
            request.allowRemote = true
        }
        if let text = fields.notice {
            guard operation != .status, let count = Int(text), count > 0, count <= 1_000_000, String(count) == text else {
                throw ParseError(description: "notice must be the number of failed attempts shown (1 to 1000000), on a verify or change")
            }
            request.shownFailures = count
        }
        if let text = fields.noticeSince {
            guard request.shownFailures > 0, let since = Int64(text), since >= 0, String(since) == text else {
                throw ParseError(description: "notice_since must be the Unix time of the first attempt shown, after notice")
            }
            request.shownSince = since
        }
        if let text = fields.then {
            guard operation == .status, text == Operation.verify.rawValue else {
                throw ParseError(description: "then=verify is for a status only")
            }
            request.followUp = .verify
        }
        let secret = fields.secret.take()
        let newSecret = fields.new.take()
        switch operation {
        case .status:
            guard !secret.isPresent, !newSecret.isPresent else { throw ParseError(description: "status takes no secret") }
        case .verify:
            guard secret.isPresent, !newSecret.isPresent else { throw ParseError(description: "verify needs secret= and nothing new") }
        case .change:
            guard secret.isPresent, newSecret.isPresent, let kindName = fields.newKind, let kind = CredentialKind(name: kindName) else {
                throw ParseError(description: "change needs secret=, new= and new_kind=pin|pattern")
            }
            request.newKind = kind
            if let grid = fields.newGrid {
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

    /// The request's `key=value` lines as read: each key once, in its own
    /// slot, its value checked for controls and UTF-8 (secrets are bytes).
    private struct Fields: ~Copyable {
        var op: String?, user: String?, service: String?, tty: String?, rhost: String?
        var newKind: String?, newGrid: String?, callerUID: String?, callerPID: String?
        var allowRemote: String?, notice: String?, noticeSince: String?, then: String?
        var secret: Secret?, new: Secret?

        mutating func take(_ line: UnsafeRawBufferPointer) throws {
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else {
                throw ParseError(description: "a request line is not key=value")
            }
            let key = String(decoding: UnsafeRawBufferPointer(rebasing: line[0..<equals]), as: UTF8.self)
            let value = UnsafeRawBufferPointer(rebasing: line[(equals + 1)...])
            guard value.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else {
                throw ParseError(description: "the value of '\(key.prefix(20))' holds control characters")
            }
            switch key {
            case "secret": try Self.put(value, into: &secret, key)
            case "new": try Self.put(value, into: &new, key)
            case "op": try Self.put(value, into: &op, key)
            case "user": try Self.put(value, into: &user, key)
            case "service": try Self.put(value, into: &service, key)
            case "tty": try Self.put(value, into: &tty, key)
            case "rhost": try Self.put(value, into: &rhost, key)
            case "new_kind": try Self.put(value, into: &newKind, key)
            case "new_grid": try Self.put(value, into: &newGrid, key)
            case "caller_uid": try Self.put(value, into: &callerUID, key)
            case "caller_pid": try Self.put(value, into: &callerPID, key)
            case "allow_remote": try Self.put(value, into: &allowRemote, key)
            case "notice": try Self.put(value, into: &notice, key)
            case "notice_since": try Self.put(value, into: &noticeSince, key)
            case "then": try Self.put(value, into: &then, key)
            default:
                throw ParseError(description: "unknown key '\(key.prefix(20).filter { $0.isASCII && !$0.isNewline })'")
            }
        }

        private static func put(_ value: UnsafeRawBufferPointer, into slot: inout String?, _ key: String) throws {
            guard slot == nil else { throw ParseError(description: "'\(key.prefix(20))' appears twice") }
            guard let text = String(validating: value, as: UTF8.self) else {
                throw ParseError(description: "the value of '\(key)' is not UTF-8")
            }
            slot = text
        }

        private static func put(_ value: UnsafeRawBufferPointer, into slot: inout Secret?, _ key: String) throws {
            guard !slot.isPresent else { throw ParseError(description: "'\(key.prefix(20))' appears twice") }
            slot = Secret(copying: value)
        }
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
        if shownFailures > 0 { text.append(("notice", String(shownFailures))) }
        if shownFailures > 0 { text.append(("notice_since", String(shownSince))) }
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
