import CPinGateContract
import PinGateCore

/// The checks behind `pingate doctor`, in the order an installation is built:
/// group, store, key, records, config, helper, module, PAM stacks.
struct Doctor {
    let storeDirectory: String
    let configPath: String
    private(set) var findings: [Finding] = []
    private var group: SystemGroup? = nil
    /// The accounts of the readable records, for the checks of each user's sudo.
    private(set) var enrolledUsers: [String] = []
    /// pingate.conf as the helper reads it; the defaults when it cannot be read.
    private(set) var policy = Policy()
    /// The stacks as the installed libpam reads them (one look at dpkg's
    /// status for every check that reads a stack).
    let stackReader = PAMStackReader()

    static let helperPath = HelperClient.installedPath
    static let pamDirectory = "/etc/pam.d"
    static let moduleDirectory = "/usr/lib/\(PINGATE_MULTIARCH)/security"
    static let polkitSandboxUnit = "/usr/lib/systemd/system/polkit-agent-helper@.service"


    init(storeDirectory: String, configPath: String) {
        self.storeDirectory = storeDirectory
        self.configPath = configPath
    }

    mutating func checkAll() {
        checkGroup()
        // The store refuses to open a directory with a problem: the key and
        // records wait for the fix.
        if let group, checkStore(StoreLocation(directory: storeDirectory, owner: 0, group: group.gid)) {
            checkRecords(group: group)
        }
        checkConfig()
        _ = checkPath(Doctor.helperPath, what: L("helper"), type: .regular, mode: FileMode(PINGATE_HELPER_MODE), group: group,
                      create: "install -o root -g \(StoreLocation.groupName) -m \(String(PINGATE_HELPER_MODE, radix: 8)) .build/release/pingate-verify \(Doctor.helperPath)")
        let module = Doctor.moduleDirectory + "/pam_pingate.so"
        _ = checkPath(module, what: L("PAM module"), type: .regular, mode: 0o644, group: SystemGroup.lookup(gid: 0),
                      create: "make -C pam && install -o root -g root -m 0644 pam/build/pam_pingate.so \(module)")
        checkStacks()
        checkSudo(users: enrolledUsers)
        checkDesktops()
    }

    mutating func add(_ level: Finding.Level, _ message: String, fix: String? = nil) {
        findings.append(Finding(level: level, message: message, fix: fix))
    }

    private mutating func checkGroup() {
        group = SystemGroup.lookup(name: StoreLocation.groupName)
        if let group {
            add(.ok, L("group %s exists (gid %d)", group.name, group.gid))
            let members = group.members
            if !members.isEmpty {
                add(.problem, InitCommand.membersProblem(group: group.name, members: members),
                    fix: members.map { "gpasswd -d \($0) \(group.name)  # or usermod -g OTHER \($0) for a primary group" }.joined(separator: "; "))
            }
        } else {
            add(.problem, L("group %s does not exist", StoreLocation.groupName), fix: "groupadd --system \(StoreLocation.groupName)")
        }
    }

    /// Checks that `path` exists, is not a symbolic link, has `type`, owner
    /// root, `group` and exactly `mode`. Returns true if all of that holds.
    private mutating func checkPath(_ path: String, what: String, type: FileStatus.FileType, mode: FileMode, group: SystemGroup?, create: String) -> Bool {
        guard let status = fileStatus(path) else {
            add(.problem, L("%s %s is missing", what, path), fix: create)
            return false
        }
        if status.isSymbolicLink {
            add(.problem, L("%s %s is a symbolic link", what, path), fix: "rm \(path) && " + create)
            return false
        }
        guard status.type == type else {
            add(.problem, type == .directory ? L("%s %s is not a directory", what, path) : L("%s %s is not a regular file", what, path), fix: "rm -r \(path) && " + create)
            return false
        }
        let groupName = group?.name ?? StoreLocation.groupName
        var problems: [String] = []
        var fixes: [String] = []
        if status.owner != 0 || (group.map { status.group != $0.gid } ?? false) {
            let owner = SystemUser.lookup(uid: status.owner)?.name ?? String(status.owner)
            let actualGroup = SystemGroup.lookup(gid: status.group)?.name ?? String(status.group)
            problems.append(L("is owned by %s:%s, expected root:%s", owner, actualGroup, groupName))
            fixes.append("chown root:\(groupName) \(path)")
        }
        if status.permissions != mode {
            problems.append(L("has mode %s, expected %s", octal(status.permissions), octal(mode)))
            // chown clears the setgid bit, so chmod comes after it.
            fixes.append("chmod \(octal(mode)) \(path)")
        }
        if problems.isEmpty {
            add(.ok, L("%s %s is root:%s %s", what, path, groupName, octal(mode)))
            return true
        }
        add(.problem, L("%s %s %s", what, path, problems.joined(separator: L(" and "))), fix: fixes.joined(separator: " && "))
        return false
    }

    /// The directory and the key, by the core's own rule (what the store
    /// would refuse, and nothing else). True if the directory is usable.
    private mutating func checkStore(_ location: StoreLocation) -> Bool {
        let problems = location.inspect(.directory)
        let directoryUsable = report(.directory, what: L("store"), problems, location: location)
        // A key in a directory with a wrong mode can be checked (and fixed) in the same pass.
        if problems.allSatisfy(\.violation.isRepairableInPlace) {
            checkKey(location)
        }
        return directoryUsable
    }

    /// One finding for `object`: ok, or its problems on one line with their fixes.
    mutating func report(_ object: StoreObject, what: String, _ problems: [StoreProblem], location: StoreLocation) -> Bool {
        let path = location.path(of: object)
        guard !problems.isEmpty else {
            if object.isDirectory || object == .key {
                add(.ok, L("%s %s is root:%s %s", what, path, location.expectedGroupName, octal(object.mode)))
            }
            return true
        }
        var fixes: [String] = []
        for problem in problems where !fixes.contains(problem.fix) { fixes.append(problem.fix) }
        add(.problem, Doctor.describe(problems, what: what, path: path, location: location), fix: fixes.joined(separator: " && "))
        return false
    }

    /// The core's problems in the reader's language.
    static func describe(_ problems: [StoreProblem], what: String, path: String, location: StoreLocation) -> String {
        var phrases: [String] = []
        for problem in problems {
            switch problem.violation {
            case .missing: return L("%s %s is missing", what, path)
            case .symbolicLink: return L("%s %s is a symbolic link", what, path)
            case .wrongType:
                return problem.object.isDirectory ? L("%s %s is not a directory", what, path) : L("%s %s is not a regular file", what, path)
            case .owner, .group:
                guard let status = fileStatus(path) else { continue }
                let owner = SystemUser.lookup(uid: status.owner)?.name ?? String(status.owner)
                let group = SystemGroup.lookup(gid: status.group)?.name ?? String(status.group)
                let phrase = L("is owned by %s:%s, expected root:%s", owner, group, location.expectedGroupName)
                if !phrases.contains(phrase) { phrases.append(phrase) }
            case let .mode(found):
                phrases.append(L("has mode %s, expected %s", octal(found), octal(problem.object.mode)))
            case let .linkCount(found):
                phrases.append(L("has %d hard links, expected 1", found))
            case let .size(found):
                phrases.append(L("is %d bytes, expected %d", found, problem.object.size ?? 0))
            }
        }
        return L("%s %s %s", what, path, phrases.joined(separator: L(" and ")))
    }

    private mutating func checkRecords(group: SystemGroup) {
        let store = Store(location: StoreLocation(directory: storeDirectory, owner: 0, group: group.gid))
        let uids: [UInt32]
        do { uids = try store.enrolledUIDs() } catch {
            add(.problem, L("cannot list the store: %s", "\(error)"), fix: L("see the store checks above"))
            return
        }
        var good = 0
        for uid in uids {
            guard report(.record(uid: uid), what: L("record"), store.location.inspect(.record(uid: uid)), location: store.location) else { continue }
            do {
                // The store refuses a record made for another account than
                // its uid's now (a deleted account's, whose uid was given to
                // another, or to no one yet): whoever has the uid would
                // otherwise sign in with its PIN.
                guard try store.readRecord(uid: uid) != nil else { continue }
                good += 1
                if let name = SystemUser.lookup(uid: uid)?.name { enrolledUsers.append(name) }
            } catch let error as StoreError {
                add(.problem, "\(error)", fix: Self.fix(for: error, uid: uid))
            } catch {
                add(.problem, "\(error)", fix: Self.fix(for: nil, uid: uid))
            }
        }
        add(.ok, LP("%2$d of %1$d record readable", "%2$d of %1$d records readable", uids.count, good))
    }

    /// The fix of an unusable record: removing one that is not its uid's
    /// account's (by the uid alone when no account has it), migrating one
    /// of format 1, re-enrolling one that cannot be read.
    static func fix(for error: StoreError?, uid: UInt32) -> String {
        switch error {
        case let .recordAccountChanged(_, _, _, now)?:
            return "pingate remove \(now ?? String(uid))"
        case .recordNotMigrated?:
            return "pingate init --upgrade"
        default:
            let name = SystemUser.lookup(uid: uid)?.name ?? String(uid)
            return "pingate enroll --force \(name)   # or: pingate remove \(name)"
        }
    }

    private mutating func checkConfig() {
        guard let status = fileStatus(configPath) else {
            add(.ok, L("configuration %s does not exist: the defaults apply", configPath))
            return
        }
        if status.owner != 0 || status.permissions & 0o022 != 0 || !status.isRegularFile {
            add(.problem, L("configuration %s must be a file owned by root and writable only by root", configPath),
                fix: "chown root:root \(configPath) && chmod 0644 \(configPath)")
        }
        do {
            policy = try ConfigParser.load(path: configPath)
            add(.ok, L("configuration %s parses", configPath))
        } catch {
            add(.problem, L("configuration %s", (error as? ConfigError)?.localized ?? "\(error)"), fix: L("edit %s, then run 'pingate policy check'", configPath))
        }
    }

    /// The services whose auth stack, as libpam reads it, runs pam_pingate.so
    /// (a comment naming it is no rule); and for each, any guard a correct
    /// PIN now skips: --enable refuses those, so it came later (or --force).
    private mutating func checkStacks() {
        let reader = stackReader
        var users: [String] = []
        var reported: Set<PAMGuard> = []
        for name in directoryEntries(Doctor.pamDirectory) {
            let stack = reader.authStack(service: name)
            // A name libpam would not look up as it is (upper case), or a file without auth rules.
            guard stack.file == Doctor.pamDirectory + "/" + name, !stack.fromOther else { continue }
            let pinRules = PAMPINRule.all(in: stack)
            guard !pinRules.isEmpty else { continue }
            users.append(name)
            for skipped in pinRules.flatMap(\.skippedGuards) where reported.insert(skipped).inserted {
                add(.problem, L("a correct PIN now skips %s (%s), added after PinGate was enabled; move it before pam_pingate.so, or run pingate disable and pingate enable",
                                skipped.writtenModule ?? skipped.name, skipped.origin.description),
                    fix: L("see 'pingate stack %s' for the stack as libpam reads it", name))
            }
        }
        if users.isEmpty {
            // One recommended way: per program, with the line that fits how it
            // asks (the lines below name each one found here). The profile is
            // the other way, for every service of common-auth at once: pingate(8).
            add(.note, L("no file in %s uses pam_pingate.so yet: turn the PIN on per program with 'pingate enable SERVICE' (sudo, and each lock screen named below)", Doctor.pamDirectory))
        } else {
            add(.note, L("pam_pingate.so is used by %s/: %s", Doctor.pamDirectory, users.joined(separator: ", ")))
        }
        // polkit 127 and later: its agent helper runs with no_new_privs and
        // a read-only store, where only the verifier's socket can count.
        if fileStatus(Doctor.polkitSandboxUnit) != nil {
            if fileStatus(PINGATE_VERIFY_SOCKET)?.type == .socket {
                add(.ok, L("polkit runs its agent helper sandboxed; it reaches the verifier through pingate-verify.socket (%s)", PINGATE_VERIFY_SOCKET))
            } else {
                add(.problem, L("polkit runs its agent helper sandboxed, where the setgid helper cannot count attempts, and pingate-verify.socket is not listening: polkit prompts ask for the password only"),
                    fix: "systemctl enable --now pingate-verify.socket")
            }
        }
    }
}

/// The status of `path` itself, a final symbolic link not followed; nil if
/// it does not exist (or cannot be looked at).
func fileStatus(_ path: String) -> FileStatus? {
    try? FileStatus(notFollowing: path)
}

/// The names in a directory, sorted; empty if it cannot be read.
private func directoryEntries(_ path: String) -> [String] {
    guard let directory = try? FileDescriptor.open(path, [.readOnly, .directory]) else { return [] }
    defer { directory.close() }
    return ((try? directory.directoryEntryNames()) ?? []).sorted()
}
