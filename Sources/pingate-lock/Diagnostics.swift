import Glibc
import PinGateCore

/// Lines on stderr: errors always, and with PINGATE_LOCK_DEBUG=1 a trace of
/// what the lock screen does and shows (never what is typed), for tests and
/// bug reports. Under xss-lock, stderr goes to the session's log.
enum Diagnostics {
    static let tracing = getenv("PINGATE_LOCK_DEBUG").map { String(cString: $0) == "1" } ?? false
    /// Which of the two processes speaks: the UI child is started with --ui-child.
    static let role = CommandLine.arguments.contains("--ui-child") ? "pingate-lock[ui]" : "pingate-lock"

    static func error(_ message: String) {
        write(line: "\(role): \(message)\n")
    }

    static func trace(_ message: @autoclosure () -> String) {
        guard tracing else { return }
        write(line: "\(role): \(message())\n")
    }

    static func fail(_ message: String, status: Int32 = 1) -> Never {
        error(message)
        exit(status)
    }

    private static func write(line: String) {
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}

/// The trace's timestamp: CLOCK_MONOTONIC in milliseconds, the same clock in
/// both processes, so a benchmark can subtract one line's time from another's
/// (packaging/benchmarks/lock_latency.sh).
func traceTime() -> String {
    "t=" + String(format3: monotonicSeconds() * 1000) + " ms"
}

private extension String {
    /// `value` with three decimals, without Foundation.
    init(format3 value: Double) {
        let thousandths = Int((value * 1000).rounded())
        let fraction = String(thousandths % 1000)
        self = "\(thousandths / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

/// Monotonic seconds, for animations and timeouts (a clock change moves none).
func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

func sleepSeconds(_ seconds: Double) {
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
    var remaining = timespec()
    while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
}

func setCloseOnExec(_ fd: Int32) {
    let flags = fcntl(fd, F_GETFD)
    if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
}

/// One line on stdout, unbuffered (help and version).
func printLine(_ text: String) {
    try? FileDescriptor.standardOutput.writeAll(Array((text + "\n").utf8))
}
