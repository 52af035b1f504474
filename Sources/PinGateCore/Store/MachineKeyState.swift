/// Where the machine key lives now: the one answer the helper, enrolment,
/// `pingate init`, doctor and `pingate key status` all read.
///
/// The sealed blob decides. When `machine.key.sealed` is in the store, the
/// key is the one `pingate key load` unsealed into memory this boot, and a
/// clear `machine.key` beside it is never read (a stale copy a backup put
/// back must not bring back a key the TPM now guards, or a different one).
public enum MachineKeyState: Equatable, Sendable {
    /// Neither a key file nor a sealed key: `pingate init` makes one.
    case missing
    /// `machine.key` in the store, as installed.
    case file
    /// Sealed by the TPM and unsealed into memory this boot.
    case sealedAndLoaded
    /// Sealed by the TPM and not in memory: no PIN can be checked.
    /// `failure` is what the last `pingate key load` recorded (nil: none ran).
    case sealedNotLoaded(failure: KeyLoadFailure?)

    /// A word for `pingate key status --json`.
    public var name: String {
        switch self {
        case .missing: return "missing"
        case .file: return "file"
        case .sealedAndLoaded: return "sealed-loaded"
        case .sealedNotLoaded: return "sealed-not-loaded"
        }
    }

    /// True when a key exists somewhere (a file or sealed): nothing may create one.
    public var keyExists: Bool { self != .missing }
}

/// Why the last `pingate key load` found no key, as it recorded it in
/// memory next to where the key would be (`load-failure`: `cause=` and
/// `detail=` lines), so that doctor and the helper's error can name it.
/// Facts only, in no one's language: doctor turns the cause into its advice
/// in the reader's, the helper's error (English, like the protocol) quotes it.
public struct KeyLoadFailure: Equatable, Sendable {
    /// A stable word: `tpm-unreachable`, `sealed-elsewhere`, `pcr-changed`,
    /// `blob-damaged`, `tpm-error`, `store-error`.
    public let cause: String
    /// What the TPM or the store said (tpm2-tss's decoded response code).
    public let detail: String

    public init(cause: String, detail: String) {
        self.cause = cause
        self.detail = detail.filter { $0 != "\n" }
    }

    /// "pcr-changed: tpm:session(1):a policy check failed, 0x99d"
    public var summary: String { detail.isEmpty ? cause : "\(cause): \(detail)" }

    var encoded: String { "cause=\(cause)\ndetail=\(detail)\n" }

    init?(encoded text: String) {
        var fields: [Substring: Substring] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[line[..<equals]] = line[line.index(after: equals)...]
        }
        guard let cause = fields["cause"], let detail = fields["detail"] else { return nil }
        self.init(cause: String(cause), detail: String(detail))
    }
}

extension Store {
    /// Where the key lives now (see `MachineKeyState`). Reads only names and
    /// the small failure note; never the key.
    public func keyState() throws -> MachineKeyState {
        let directory = try openDirectory()
        defer { directory.close() }
        return keyState(in: directory)
    }

    func keyState(in directory: FileDescriptor) -> MachineKeyState {
        if (try? FileStatus(notFollowing: StoreLocation.sealedKeyFileName, relativeTo: directory)) != nil {
            if (try? FileStatus(notFollowing: location.loadedKeyPath)) != nil { return .sealedAndLoaded }
            return .sealedNotLoaded(failure: lastLoadFailure())
        }
        if (try? FileStatus(notFollowing: StoreLocation.keyFileName, relativeTo: directory)) != nil { return .file }
        return .missing
    }

    /// What the last failed `pingate key load` recorded, if it is there.
    public func lastLoadFailure() -> KeyLoadFailure? {
        guard let file = try? FileDescriptor.open(location.loadFailurePath, [.readOnly, .noFollow, .nonBlocking, .noControllingTerminal]) else {
            return nil
        }
        defer { file.close() }
        var buffer = [UInt8](repeating: 0, count: 2048)
        guard let count = try? buffer.withUnsafeMutableBytes({ try file.read(fromAbsoluteOffset: 0, into: $0) }) else { return nil }
        return KeyLoadFailure(encoded: String(decoding: buffer[..<count], as: UTF8.self))
    }
}
