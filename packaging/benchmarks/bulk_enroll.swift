// bulk_enroll.swift — benchmark-only mass enrolment: gives uids FIRST...LAST
// the PIN 4821 through PinGateCore's own Administration.enroll (same record
// format, same temp file + fsync + rename + directory fsync as `pingate
// enroll`), without a process and a passwd lookup per user. run.sh compiles it
// against the release build's PinGateCore objects.
//
// usage: bulk_enroll FIRST LAST [WORKERS]   (root; /etc/pingate/pingate.conf,
//        /var/lib/pingate — run it inside the benchmark sandbox only)
import Glibc
import PinGateCore

let arguments = CommandLine.arguments
guard arguments.count >= 3, let first = UInt32(arguments[1]), let last = UInt32(arguments[2]), first <= last else {
    fputs("usage: bulk_enroll FIRST LAST [WORKERS]\n", stderr)
    exit(2)
}
let workers = arguments.count > 3 ? max(1, Int(arguments[3]) ?? 1) : 8

func enroll(_ uids: StrideThrough<UInt32>) -> Int32 {
    do {
        let policy = try ConfigParser.load()
        let administration = Administration(store: Store(location: try StoreLocation.system()), policy: policy)
        let pin = Array("4821".utf8)
        for uid in uids {
            let input = Secret(copying: pin)
            let credential = try Credential(parsing: input, kind: .pin, gridSize: policy.patternGrid, policy: policy)
            try administration.enroll(uid: uid, credential: credential, replacing: true)
        }
        return 0
    } catch {
        fputs("bulk_enroll: \(error)\n", stderr)
        return 1
    }
}

// One process per worker (uids interleaved): concurrent fsyncs share ext4
// journal commits, as they would for many admins enrolling at once.
var children: [pid_t] = []
for worker in 0..<workers {
    let start = first + UInt32(worker)
    guard start <= last else { break }
    let pid = fork()
    if pid == 0 { exit(enroll(stride(from: start, through: last, by: workers))) }
    children.append(pid)
}
var failed = false
for child in children {
    var status: Int32 = 0
    waitpid(child, &status, 0)
    if status != 0 { failed = true }
}
exit(failed ? 1 : 0)
