import PinGateCore

/// `pingate policy calibrate`: times Argon2id on this machine. Memory is
/// raised first (it is what makes GPU and ASIC guessing expensive), doubling
/// from 8 MiB up to a quarter of RAM (at most 1 GiB); then passes, until one
/// hash takes at least the target.
struct PolicyCalibration {
    static let defaultTargetMilliseconds = 100
    let targetMilliseconds: Int

    func run() throws {
        let hasher = { (parameters: KDFParameters) in CredentialHasher(key: MachineKey.generate(), parameters: parameters) }
        let sample = Credential.pin(try PIN(parsing: Secret(copying: "4829".utf8), minimumLength: 4, maximumLength: 4))
        let memoryLimit = min(1 << 30, physicalMemory() / 4)
        Output.line(L("# Argon2id on this machine, target %d ms per attempt", targetMilliseconds))
        var parameters = KDFParameters(operations: 2, memoryBytes: 8 << 20)
        var elapsed = 0.0
        while true {
            elapsed = try measure { _ = try hasher(parameters).hash(sample, uid: 0) }
            Output.line(L("#   %s, %d passes: %d ms", formatByteSize(parameters.memoryBytes), Int(parameters.operations), Int(elapsed.rounded())))
            if elapsed >= Double(targetMilliseconds) { break }
            if parameters.memoryBytes * 2 <= memoryLimit {
                parameters.memoryBytes *= 2
            } else if parameters.operations < KDFParameters.operationsRange.upperBound {
                parameters.operations += 1
            } else {
                break
            }
        }
        var calibrated = Policy()
        calibrated.kdf = parameters
        for key in ["kdf_operations", "kdf_memory"] { Output.line("\(key) = \(calibrated.value(of: key))") }
    }

    private func measure(_ body: () throws -> Void) throws -> Double {
        let start = monotonicNanoseconds()
        do { try body() } catch { throw CLIError.store(error) }
        return Double(monotonicNanoseconds() - start) / 1_000_000
    }

    /// The machine's RAM; 1 GiB if unknown.
    private func physicalMemory() -> Int { physicalMemoryBytes() ?? 1 << 30 }
}
