import Glibc
import PinGateCore

/// The checks behind `pingate doctor`, in the order an installation is built:
/// group, store, key, records, config, helper, module, PAM stacks.
struct Doctor {
    let storeDirectory: String
    let configPath: String
    private(set) var findings: [Finding] = []
    private var group: SystemGroup? = nil

    static let helperPath = HelperClient.path
    static let pamDirectory = "/etc/pam.d"
    static var moduleDirectory: String { "/lib/\(multiarch)/security" }
    static let polkitSandboxUnit = "/usr/lib/systemd/system/polkit-agent-helper@.service"

    /// Debian's multiarch triplet for this build's architecture.
    static var multiarch: String {
        #if arch(x86_64)
        return "x86_64-linux-gnu"
        #elseif arch(arm64)
        return "aarch64-linux-gnu"
        #elseif arch(i386)
        return "i386-linux-gnu"
        #elseif arch(arm)
        return "arm-linux-gnueabihf"
        #elseif arch(riscv64)
        return "riscv64-linux-gnu"
        #elseif arch(powerpc64le)
        return "powerpc64le-linux-gnu"
        #elseif arch(s390x)
        return "s390x-linux-gnu"
        #else
        return "unknown-linux-gnu"
        #endif
    }

    init(storeDirectory: String, configPath: String) {
        self.storeDirectory = storeDirectory
        self.configPath = configPath
    }

    mutating func checkAll() {
        checkGroup()
        let storeCorrect = checkPath(storeDirectory, what: "store", type: S_IFDIR, mode: StoreLocation.directoryMode,
                                    group: group, create: "install -d -o root -g \(StoreLocation.groupName) -m 0750 \(storeDirectory)")
        let keyPath = storeDirectory + "/machine.key"
        let keyCreate = "(umask 077 && head -c 32 /dev/urandom > \(keyPath)) && chown root:\(StoreLocation.groupName) \(keyPath) && chmod 0640 \(keyPath)  # then re-enrol every user"
        let storeIsDirectory = fileStatus(storeDirectory).map { $0.st_mode & S_IFMT == S_IFDIR } ?? false
        if storeIsDirectory, checkPath(keyPath, what: "machine key", type: S_IFREG, mode: StoreLocation.keyMode, group: group, create: keyCreate) {
            if let status = fileStatus(keyPath), status.st_size != MachineKey.byteCount {
                add(.problem, "machine key \(keyPath) is \(status.st_size) bytes, expected \(MachineKey.byteCount)", fix: "rm \(keyPath) && " + keyCreate)
            }
        }
        // The store refuses to open a directory with a problem: records wait for the fix.
        if storeCorrect, let group { checkRecords(group: group) }
        checkConfig()
        _ = checkPath(Doctor.helperPath, what: "helper", type: S_IFREG, mode: 0o2755, group: group,
                      create: "install -o root -g \(StoreLocation.groupName) -m 2755 .build/release/pingate-verify \(Doctor.helperPath)")
        let module = Doctor.moduleDirectory + "/pam_pingate.so"
        _ = checkPath(module, what: "PAM module", type: S_IFREG, mode: 0o644, group: SystemGroup.lookup(gid: 0),
                      create: "make -C pam && install -o root -g root -m 0644 pam/build/pam_pingate.so \(module)")
        checkStacks()
    }

    private mutating func add(_ level: Finding.Level, _ message: String, fix: String? = nil) {
        findings.append(Finding(level: level, message: message, fix: fix))
    }

    private mutating func checkGroup() {
        group = SystemGroup.lookup(name: StoreLocation.groupName)
        if let group {
            add(.ok, "group \(group.name) exists (gid \(group.gid))")
        } else {
            add(.problem, "group \(StoreLocation.groupName) does not exist", fix: "groupadd --system \(StoreLocation.groupName)")
        }
    }

    /// Checks that `path` exists, is not a symbolic link, has `type`, owner
    /// root, `group` and exactly `mode`. Returns true if all of that holds.
    private mutating func checkPath(_ path: String, what: String, type: mode_t, mode: mode_t, group: SystemGroup?, create: String) -> Bool {
        guard let status = fileStatus(path) else {
            add(.problem, "\(what) \(path) is missing", fix: create)
            return false
        }
        if status.st_mode & S_IFMT == S_IFLNK {
            add(.problem, "\(what) \(path) is a symbolic link", fix: "rm \(path) && " + create)
            return false
        }
        guard status.st_mode & S_IFMT == type else {
            add(.problem, "\(what) \(path) is not a \(type == S_IFDIR ? "directory" : "regular file")", fix: "rm -r \(path) && " + create)
            return false
        }
        let groupName = group?.name ?? StoreLocation.groupName
        var problems: [String] = []
        var fixes: [String] = []
        if status.st_uid != 0 || (group.map { status.st_gid != $0.gid } ?? false) {
            let owner = SystemUser.lookup(uid: status.st_uid)?.name ?? String(status.st_uid)
            let actualGroup = SystemGroup.lookup(gid: status.st_gid)?.name ?? String(status.st_gid)
            problems.append("is owned by \(owner):\(actualGroup), expected root:\(groupName)")
            fixes.append("chown root:\(groupName) \(path)")
        }
        if status.st_mode & 0o7777 != mode {
            problems.append("has mode \(octal(status.st_mode & 0o7777)), expected \(octal(mode))")
            // chown clears the setgid bit, so chmod comes after it.
            fixes.append("chmod \(octal(mode)) \(path)")
        }
        if problems.isEmpty {
            add(.ok, "\(what) \(path) is root:\(groupName) \(octal(mode))")
            return true
        }
        add(.problem, "\(what) \(path) " + problems.joined(separator: " and "), fix: fixes.joined(separator: " && "))
        return false
    }

    private mutating func checkRecords(group: SystemGroup) {
        let store = Store(location: StoreLocation(directory: storeDirectory, owner: 0, group: group.gid))
        let uids: [UInt32]
        do { uids = try store.enrolledUIDs() } catch {
            add(.problem, "cannot list the store: \(error)", fix: "see the store checks above")
            return
        }
        var good = 0
        let names = SystemUser.names(forUIDs: uids)
        for uid in uids {
            let path = store.location.recordPath(forUID: uid)
            let name = names[uid] ?? String(uid)
            if let status = fileStatus(path), status.st_mode & S_IFMT == S_IFREG,
               status.st_uid != 0 || status.st_gid != group.gid || status.st_mode & 0o7777 != StoreLocation.recordMode {
                add(.problem, "record \(path) (\(name)) is not root:\(group.name) \(octal(StoreLocation.recordMode))",
                    fix: "chown root:\(group.name) \(path) && chmod \(octal(StoreLocation.recordMode)) \(path)")
                continue
            }
            do {
                guard try store.readRecord(uid: uid) != nil else { continue }
                good += 1
            } catch {
                add(.problem, "\(error)", fix: "pingate enroll --force \(name)   # or: pingate remove \(name)")
            }
        }
        add(.ok, "\(good) of \(uids.count) record\(uids.count == 1 ? "" : "s") readable")
    }

    private mutating func checkConfig() {
        guard let status = fileStatus(configPath) else {
            add(.ok, "configuration \(configPath) does not exist: the defaults apply")
            return
        }
        if status.st_uid != 0 || status.st_mode & 0o022 != 0 || status.st_mode & S_IFMT != S_IFREG {
            add(.problem, "configuration \(configPath) must be a file owned by root and writable only by root",
                fix: "chown root:root \(configPath) && chmod 0644 \(configPath)")
        }
        do {
            _ = try ConfigParser.load(path: configPath)
            add(.ok, "configuration \(configPath) parses")
        } catch {
            add(.problem, "configuration \(error)", fix: "edit \(configPath), then run 'pingate policy check'")
        }
    }

    private mutating func checkStacks() {
        let users = directoryEntries(Doctor.pamDirectory).filter { name in
            guard let text = readTextFile(Doctor.pamDirectory + "/" + name) else { return false }
            return text.split(separator: "\n").contains { line in
                !line.drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("#") && line.contains("pam_pingate.so")
            }
        }
        if users.isEmpty {
            add(.note, "no file in \(Doctor.pamDirectory) uses pam_pingate.so yet (enable it with 'pam-auth-update --enable pingate')")
        } else {
            add(.note, "pam_pingate.so is used by \(Doctor.pamDirectory)/: \(users.joined(separator: ", "))")
        }
        if fileStatus(Doctor.polkitSandboxUnit) != nil {
            add(.note, "polkit runs its agent helper in a sandboxed unit where the setgid helper cannot work; polkit prompts fall back to the password")
        }
    }
}

func octal(_ mode: mode_t) -> String {
    let text = String(mode, radix: 8)
    return String(repeating: "0", count: max(0, 4 - text.count)) + text
}
