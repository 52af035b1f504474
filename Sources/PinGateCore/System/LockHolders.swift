import Glibc

/// The process holding a lock on a file, for an error that says what to do
/// ("held by process 1234 (pingate-verify), stopped; kill it or try again").
///
/// Found in /proc/locks, which anyone may read: one line per lock, e.g.
///
///     2: FLOCK  ADVISORY  WRITE 13369 fe:00:16222471 0 EOF
///     3: -> FLOCK  ADVISORY  WRITE 13370 fe:00:16222471 0 EOF   (a waiter)
///
/// with the pid that took the lock and the device (hex major:minor) and inode
/// of the file. The command and state come from /proc/PID/comm and stat,
/// also readable by anyone.
public struct LockHolder: Sendable, Equatable, CustomStringConvertible {
    /// nil when the kernel does not say: it shows -1 for OFD locks (they
    /// belong to an open file description, not a process) and 0 for a process
    /// outside this PID namespace. Finding an OFD lock's owner would mean
    /// reading every process's /proc/PID/fdinfo, which only root may do, and
    /// no message needs it: a verification stuck in flight is answered
    /// `locked`, not named.
    public let processID: Int32?
    /// /proc/PID/comm: the command name, cut to 15 bytes by the kernel, and
    /// here to printable ASCII (`printableCommand`).
    public let command: String?
    /// Stopped by a signal (state T) or by a debugger (t): it will not let go
    /// by itself.
    public let isStopped: Bool

    public init(processID: Int32?, command: String?, isStopped: Bool) {
        self.processID = processID
        self.command = command
        self.isStopped = isStopped
    }

    /// "process 1234 (pingate-verify), stopped", or "another process".
    public var description: String {
        guard let processID else { return "another process" }
        return "process \(processID) (\(command ?? "?"))" + (isStopped ? ", stopped" : "")
    }

    /// The kinds of lock /proc/locks lists that PinGate takes.
    public enum Kind: String, Sendable {
        case flock = "FLOCK"
        case openFileDescription = "OFDLCK"
    }

    /// The holders of `kind` locks on `file` (waiters excluded), best effort:
    /// an unreadable /proc gives none. A file is matched by device and inode
    /// both, never by inode alone: the message may say "kill it", so it must
    /// never name an unrelated process.
    public static func holders(of file: FileStatus, kind: Kind) -> [LockHolder] {
        guard let table = (try? readSmallFile("/proc/locks", limit: 16 << 20)) ?? nil else { return [] }
        return processIDs(inLocksTable: table, kind: kind, device: file.device, inode: file.inode).map { processID in
            guard let processID else { return LockHolder(processID: nil, command: nil, isStopped: false) }
            return describe(processID: processID)
        }
    }

    /// The pids (nil: not said) of `kind` lock holders on device:inode in the
    /// text of /proc/locks.
    static func processIDs(inLocksTable table: String, kind: Kind, device: UInt64, inode: UInt64) -> [Int32?] {
        let file = "\(String(deviceMajor(device), radix: 16)):\(String(deviceMinor(device), radix: 16)):\(inode)"
        return table.split(separator: "\n").compactMap { line -> Int32?? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // "N:" KIND ADVISORY|MANDATORY READ|WRITE PID MAJ:MIN:INODE START END
            guard fields.count >= 6, fields[1] == kind.rawValue, normalized(fields[5]) == file else { return nil }
            let processID = Int32(fields[4]) ?? -1
            return .some(processID > 0 ? processID : nil)
        }
    }

    /// The command and state of a live process.
    static func describe(processID: Int32) -> LockHolder {
        let command = ((try? readSmallFile("/proc/\(processID)/comm", limit: 4096)) ?? nil)?
            .split(separator: "\n").first.map { printableCommand($0) }
        // "PID (comm) STATE …": the state follows the last ')', as comm may
        // itself hold one.
        let stat = ((try? readSmallFile("/proc/\(processID)/stat", limit: 4096)) ?? nil) ?? ""
        let state = stat.lastIndex(of: ")").flatMap { stat[$0...].dropFirst().drop(while: { $0 == " " }).first }
        return LockHolder(processID: processID, command: command, isStopped: state == "T" || state == "t")
    }

    /// `command` with everything but printable ASCII (0x20–0x7E) replaced by
    /// "?". A process's name is whatever file name it was started under,
    /// chosen by whoever started it: a symlink named with terminal escapes
    /// would otherwise write them into the message root reads on a terminal.
    static func printableCommand(_ command: some StringProtocol) -> String {
        String(command.unicodeScalars.map { (0x20...0x7E).contains($0.value) ? Character($0) : "?" })
    }

    /// "fe:00:123" → "fe:0:123": /proc/locks pads major and minor to two
    /// hex digits; compare without the padding.
    private static func normalized(_ field: Substring) -> String {
        field.split(separator: ":").enumerated().map { index, part in
            index < 2 ? String(UInt64(part, radix: 16) ?? UInt64.max, radix: 16) : String(part)
        }.joined(separator: ":")
    }

    /// glibc's major(3) and minor(3), which are macros Swift cannot call.
    static func deviceMajor(_ device: UInt64) -> UInt64 { ((device >> 32) & 0xffff_f000) | ((device >> 8) & 0xfff) }
    static func deviceMinor(_ device: UInt64) -> UInt64 { ((device >> 12) & 0xffff_ff00) | (device & 0xff) }
}
