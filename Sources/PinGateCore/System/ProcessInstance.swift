/// One process, told apart from a later one given the same number: its pid
/// and its start time (`starttime`, field 22 of /proc/PID/stat: clock ticks
/// after boot). The kernel reuses a pid only after its process is gone, and
/// the next one with it starts later, so the pair names one process of one boot.
public struct ProcessInstance: Equatable, Sendable {
    public let pid: ProcessID
    public let startTicks: UInt64

    public init(pid: ProcessID, startTicks: UInt64) {
        self.pid = pid
        self.startTicks = startTicks
    }

    /// Process `pid` as it runs now; nil when none does (or /proc cannot say).
    public static func running(_ pid: ProcessID) -> ProcessInstance? {
        guard pid > 0, let stat = (try? readSmallFile("/proc/\(pid)/stat", limit: 4096)) ?? nil,
              let start = startTicks(inStat: stat) else { return nil }
        return ProcessInstance(pid: pid, startTicks: start)
    }

    /// Whether this very process still runs (not another given its pid since).
    public var isRunning: Bool { ProcessInstance.running(pid) == self }

    /// `starttime` from the text of /proc/PID/stat: "PID (COMM) STATE PPID …".
    /// The fields are counted from the last ')', since COMM is whatever
    /// name the process gave itself and may hold spaces and parentheses.
    static func startTicks(inStat stat: String) -> UInt64? {
        guard let end = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ", omittingEmptySubsequences: true)
        // fields[0] is field 3 (STATE), so field 22 is fields[19].
        guard fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }
}
