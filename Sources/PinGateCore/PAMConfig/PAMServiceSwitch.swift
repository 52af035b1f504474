/// A file `pingate enable` or `disable` writes, by its path on the system
/// (without a staged root): its text before and after (nil: no file).
public struct PAMFileChange: Equatable, Sendable {
    public let path: String
    public let before: String?
    public let after: String?
}

/// What enabling or disabling one service did, or would do (`--dry-run`).
public struct PAMServiceSwitch: Equatable, Sendable {
    public enum Outcome: Equatable, Sendable {
        /// The PinGate line was put into the service's own file.
        case enabled
        /// /etc/pam.d/SERVICE was made from the file libpam read for the
        /// service until now (`other`, or the distribution's in /usr/lib/pam.d),
        /// with the PinGate line.
        case created(from: String)
        /// A pam_pingate.so rule is already in the service's file, or in
        /// common-auth (pam-auth-update's profile): nothing was written.
        case alreadyOn(inCommonAuth: Bool)
        /// The PinGate lines were taken out of the file.
        case disabled
        /// The file is back as it was before `enable` (its backup).
        case restored
        /// The file `enable` created is gone: libpam reads its source again.
        case removed(source: String?)
        /// `disable` found no PinGate line to take out.
        case unchanged
        /// `disable` found no /etc/pam.d file for the service.
        case missing
    }

    public enum Warning: Equatable, Sendable {
        /// The pam_unix line an older install.sh added for swaylock/hyprlock.
        case olderLockerUnixLine
        /// Our line, but not the one this client needs now (`wanted`).
        case olderLine(wanted: String)
        /// `--force`: a correct PIN skips these, which do more than the password.
        case forcedPastGuards([PAMGuard])
        /// `--force`: these jumps now land one rule earlier.
        case forcedPastJumps([PAMOrigin])
        /// The file changed since its backup was made: both are kept.
        case changedSinceBackup(backup: String)
    }

    public let service: String
    /// /etc/pam.d/SERVICE.
    public let file: String
    public let outcome: Outcome
    /// In the order they are written: a backup before the file it keeps.
    public let changes: [PAMFileChange]
    /// The line `enable` wrote.
    public let line: String?
    public let warnings: [Warning]
}

/// Why `pingate enable` leaves a service alone: nothing is written for any
/// service when one of them is refused.
public enum PAMEnableRefusal: Error, Equatable, Sendable {
    /// A conversation no person sees (Plasma's kde-fingerprint, GDM's
    /// gdm-smartcard): a PIN question there would wait unseen.
    case unseenConversation
    /// No file of its own, and no file to make one from: not installed?
    case noStackFile
    /// The file brings in no auth rule to put the PIN in front of.
    case noAuthLine
    /// A correct PIN would skip these, which do more than the password.
    case guards([PAMGuard])
    /// These rules' jumps pass over the insertion line: the PinGate line
    /// there would move where they land.
    case crossingJumps([PAMOrigin])
}

/// Turns the PIN on and off for a PAM service: the one implementation, for
/// `pingate enable`/`disable`, install.sh and the package's removal.
///
/// Enabling writes the line `PAMClient` names for the service into
/// /etc/pam.d/SERVICE before the password (`PAMEnableFacts`), under a marker
/// comment, and keeps the file as it was in SERVICE.pingate-backup. Where
/// libpam reads the service from another file — the distribution's
/// /usr/lib/pam.d/SERVICE (Debian 13: polkit-1, Plasma 6's kde), or
/// `other` for a lock screen nobody ships a file for (Plasma 5's kde) —
/// /etc/pam.d/SERVICE is made as that file plus the line, marked as made;
/// disabling deletes it again, so libpam reads the distribution's file, with
/// any update it had meanwhile. Disabling restores the backup when the file
/// holds nothing else new, and otherwise takes out only the marked lines.
public struct PAMServiceSwitcher: Sendable {
    public static let backupSuffix = ".pingate-backup"
    static let fileLimit = 1 << 20

    /// A staged root the files are under ("" for this system).
    public let root: String
    /// The installed libpam's reading of stacks, looked up once (dpkg's
    /// status) for every service switched.
    let dialect: PAMDialect

    public init(root: String = "") {
        var root = root
        while root.hasSuffix("/") { root.removeLast() }
        self.root = root
        dialect = .installed(root: root)
    }

    public static func file(of service: String) -> String { "\(PAMStackReader.configurationDirectory)/\(service)" }

    // MARK: - enable

    public func enabling(_ service: String, force: Bool) throws(PAMEnableRefusal) -> PAMServiceSwitch {
        guard !PAMClient.unseenConversations.contains(service) else { throw .unseenConversation }
        let client = PAMClient.forService(service)
        let path = Self.file(of: service)
        let current = read(path)
        let base: String
        var source: String? = nil
        if let current {
            base = current
        } else if let (from, text) = creationSource(service, client: client) {
            source = from
            base = PAMEnableText.createdMarker(from: from) + "\n" + text
        } else {
            throw .noStackFile
        }
        let stack = PAMStackReader(root: root, pending: [path: Array(base.utf8)], dialect: dialect).authStack(service: service)
        let facts = PAMEnableFacts(stack)
        if let inCommonAuth = alreadyOn(facts, path: path) {
            return PAMServiceSwitch(service: service, file: path, outcome: .alreadyOn(inCommonAuth: inCommonAuth), changes: [],
                                    line: nil, warnings: olderLineWarnings(current ?? "", client: client))
        }
        var warnings: [PAMServiceSwitch.Warning] = []
        if !facts.guards.isEmpty {
            guard force else { throw .guards(facts.guards) }
            warnings.append(.forcedPastGuards(facts.guards))
        }
        if !facts.crossingJumps.isEmpty {
            guard force else { throw .crossingJumps(facts.crossingJumps) }
            warnings.append(.forcedPastJumps(facts.crossingJumps))
        }
        guard let insertionLine = facts.insertionLine else { throw .noAuthLine }
        let backup = path + Self.backupSuffix
        var changes: [PAMFileChange] = []
        if read(backup) == nil { changes.append(PAMFileChange(path: backup, before: nil, after: base)) }
        changes.append(PAMFileChange(path: path, before: current,
                                     after: PAMEnableText.inserting(client.enableLine, before: insertionLine, into: base)))
        return PAMServiceSwitch(service: service, file: path, outcome: source.map { .created(from: $0) } ?? .enabled,
                                changes: changes, line: client.enableLine, warnings: warnings)
    }

    /// The file libpam reads for a service that has none in /etc/pam.d:
    /// the distribution's, or `other` for a client made from it.
    private func creationSource(_ service: String, client: PAMClient) -> (String, String)? {
        let distribution = "\(PAMStackReader.distributionDirectory)/\(service)"
        if let text = read(distribution) { return (distribution, text) }
        guard client.createdFromOther else { return nil }
        return [PAMStackReader.configurationDirectory, PAMStackReader.distributionDirectory]
            .map { "\($0)/other" }.lazy.compactMap { path in read(path).map { (path, $0) } }.first
    }

    /// A pam_pingate.so rule in the service's own file (false), or in
    /// common-auth, where pam-auth-update puts it (true). One in another
    /// included stack (i3lock's `auth include login`) is that stack's own.
    private func alreadyOn(_ facts: PAMEnableFacts, path: String) -> Bool? {
        if facts.pinGateRules.contains(where: { $0.file == path }) { return false }
        if facts.pinGateRules.contains(where: { $0.file == "\(PAMStackReader.configurationDirectory)/common-auth" }) { return true }
        return nil
    }

    /// Lines an older release wrote, which are not rewritten behind the
    /// admin's back, only named.
    private func olderLineWarnings(_ text: String, client: PAMClient) -> [PAMServiceSwitch.Warning] {
        let lines = PAMEnableText.splitLines(text)
        var warnings: [PAMServiceSwitch.Warning] = []
        if lines.contains(PAMEnableText.olderLockerUnixLine) { warnings.append(.olderLockerUnixLine) }
        if PAMEnableText.hasMarker(text), !lines.contains(client.enableLine) { warnings.append(.olderLine(wanted: client.enableLine)) }
        return warnings
    }

    // MARK: - disable

    public func disabling(_ service: String) -> PAMServiceSwitch {
        let path = Self.file(of: service)
        let backupPath = path + Self.backupSuffix
        func result(_ outcome: PAMServiceSwitch.Outcome, _ changes: [PAMFileChange] = [],
                    _ warnings: [PAMServiceSwitch.Warning] = []) -> PAMServiceSwitch {
            PAMServiceSwitch(service: service, file: path, outcome: outcome, changes: changes, line: nil, warnings: warnings)
        }
        guard let current = read(path) else { return result(.missing) }
        let without = PAMEnableText.removingInsertedLines(from: current)
        let backup = read(backupPath)
        let dropBackup = PAMFileChange(path: backupPath, before: backup, after: nil)
        if let backup, without == backup {
            if PAMEnableText.isCreated(backup) {
                return result(.removed(source: PAMEnableText.createdSource(backup)),
                              [PAMFileChange(path: path, before: current, after: nil), dropBackup])
            }
            return result(.restored, [PAMFileChange(path: path, before: current, after: backup), dropBackup])
        }
        let kept: [PAMServiceSwitch.Warning] = backup == nil ? [] : [.changedSinceBackup(backup: backupPath)]
        if without == current { return result(.unchanged, [], kept) }
        return result(.disabled, [PAMFileChange(path: path, before: current, after: without)], kept)
    }

    /// Every service of /etc/pam.d that `enable` changed: its file holds a
    /// marker, or a backup of it is there.
    public func enabledServices() -> [String] {
        let directory = PAMStackReader.configurationDirectory
        guard let handle = try? FileDescriptor.open(root + directory, [.readOnly, .directory]) else { return [] }
        defer { handle.close() }
        let names = (try? handle.directoryEntryNames()) ?? []
        let services = names.compactMap { name -> String? in
            if name.hasSuffix(Self.backupSuffix) { return String(name.dropLast(Self.backupSuffix.count)) }
            guard !name.hasPrefix("."), let text = read("\(directory)/\(name)") else { return nil }
            return PAMEnableText.hasMarker(text) ? name : nil
        }
        return Array(Set(services)).sorted()
    }

    // MARK: - files

    func read(_ path: String) -> String? {
        guard let status = try? FileStatus(following: root + path), status.isRegularFile else { return nil }
        return try? readSmallFile(root + path, limit: Self.fileLimit)
    }

    /// Writes `change`: a new text by a temporary file in the same
    /// directory, fsynced and renamed over the old one (keeping its owner
    /// and mode; a new file is root's, 0644), or the file removed.
    public func apply(_ change: PAMFileChange) throws {
        let slash = change.path.lastIndex(of: "/")!
        let directoryPath = root + String(change.path[..<slash])
        let name = String(change.path[change.path.index(after: slash)...])
        let directory = try FileDescriptor.open(directoryPath, [.readOnly, .directory])
        defer { directory.close() }
        guard let text = change.after else {
            do { try directory.removeEntry(name) } catch let error as Errno where error == .noSuchFile {}
            return try directory.sync()
        }
        let existing = try? FileStatus(following: root + change.path)
        let temporary = ".\(name).pingate-new"
        try? directory.removeEntry(temporary)
        let file = try FileDescriptor.open(temporary, [.writeOnly, .create, .exclusiveCreate, .noFollow],
                                           permissions: 0o600, relativeTo: directory)
        do {
            defer { file.close() }
            try file.changeOwner(user: existing?.owner ?? 0, group: existing?.group ?? 0)
            try file.changeMode(existing?.permissions ?? 0o644)
            try file.writeAll(Array(text.utf8))
            try file.sync()
            try directory.renameEntry(temporary, to: name)
        } catch {
            try? directory.removeEntry(temporary)
            throw error
        }
        try directory.sync()
    }
}
