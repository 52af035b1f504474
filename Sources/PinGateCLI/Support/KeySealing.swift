import PinGateCore
import PinGateTPM

/// What `pingate key seal|load|unseal|status` do, in the order that keeps a
/// working key at every step: nothing is removed before its replacement is
/// in place and proven, and a failed load leaves no key loaded.
struct KeySealing {
    let store: Store
    let tcti: String

    private func connect(waitingSeconds: Int = 0) throws -> TPMConnection {
        let deadline = Deadline.after(milliseconds: waitingSeconds * 1000)
        var lastFailure: TPMFailure? = nil
        var connection: TPMConnection? = nil
        // At boot the TPM's device may appear after the unit starts: only an
        // unreachable TPM is worth another try, never a TPM that refused.
        _ = deadline.retry {
            do throws(TPMFailure) {
                connection = try TPMConnection(tcti: tcti)
                return true
            } catch {
                lastFailure = error
                return error.cause != .unreachable
            }
        }
        if let connection { return connection }
        throw failure(lastFailure ?? TPMFailure(cause: .unreachable, detail: ""))
    }

    /// The key `seal` seals: the key file, or the loaded key when it is
    /// sealed already (to new PCRs).
    private func keyToSeal() throws -> MachineKey {
        switch try storeCall({ try store.keyState() }) {
        case .missing:
            throw CLIError(status: .storeOrConfig, message: L("there is no machine key in %s to seal; run 'pingate init' first", store.location.directory))
        case .file: return try storeCall { try store.loadKeyFile() }
        case .sealedAndLoaded: return try storeCall { try store.loadKey() }
        case .sealedNotLoaded:
            throw CLIError(status: .storeOrConfig, message: L("the machine key is sealed and not loaded; run 'pingate key load' first, then seal it again"))
        }
    }

    /// The key `unseal` writes back as a file: the loaded one, else the
    /// TPM's; nil when it is a file already.
    private func keyToUnseal() throws -> MachineKey? {
        switch try storeCall({ try store.keyState() }) {
        case .file:
            return nil
        case .missing:
            throw CLIError(status: .storeOrConfig, message: L("there is no machine key in %s; run 'pingate init'", store.location.directory))
        case .sealedAndLoaded:
            return try storeCall { try store.loadKey() }
        case .sealedNotLoaded:
            return try unsealed(try storeCall { try store.readSealedKey() })
        }
    }

    /// The key the TPM unseals from `sealed`.
    private func unsealed(_ sealed: SealedKey, waitingSeconds: Int = 0) throws -> MachineKey {
        do {
            return try MachineKey(bytes: try connect(waitingSeconds: waitingSeconds).unseal(sealed.tpmBlob, pcrs: sealed.pcrs))
        } catch let error as TPMFailure {
            throw failure(error)
        }
    }

    /// Seals the key file (or, already sealed and loaded, the loaded key to
    /// new PCRs), proves the TPM gives it back, loads it, and only then
    /// overwrites and removes the key file.
    func seal(pcrs: [UInt8]) throws {
        let key = try keyToSeal()
        // The memory must be a ramfs before the only clear copy leaves the disk.
        _ = try storeCall { try store.prepareMemory() }
        let tpm = try connect()
        let blob: [UInt8]
        do {
            blob = try tpm.seal(key.bytes, pcrs: pcrs)
            guard try tpm.unseal(blob, pcrs: pcrs).constantTimeEquals(key.bytes) else {
                throw CLIError(status: .storeOrConfig, message: L("the TPM gave back another key than it sealed; nothing was changed"))
            }
        } catch let error as TPMFailure {
            throw failure(error)
        }
        try storeCall {
            try store.writeSealedKey(SealedKey(pcrs: pcrs, tpmBlob: blob))
            try store.storeLoadedKey(key)
        }
        Output.line(L("sealed the machine key into the TPM: %s (PCRs: %s)", store.location.sealedKeyPath, Self.describe(pcrs)))
        Output.line(L("loaded it into memory: %s", store.location.loadedKeyPath))
        if try storeCall({ try store.destroyKeyFile() }) {
            Output.line(L("overwrote and removed %s; backups taken before now still hold the key (re-enrol every user to make them useless)", store.location.keyPath))
        }
        SystemLog.write(.notice, "key seal: the machine key is sealed by the TPM (pcrs=\(Self.describe(pcrs)))")
    }

    /// Unseals into memory, replacing what was loaded. The old copy goes
    /// first, so a failure leaves no key loaded; the cause is recorded.
    func load(waitingSeconds: Int = 0) throws {
        switch try storeCall({ try store.keyState() }) {
        case .file:
            Output.line(L("the machine key is a file (%s); there is nothing to load", store.location.keyPath))
            return
        case .missing:
            throw CLIError(status: .storeOrConfig, message: L("there is no machine key in %s; run 'pingate init'", store.location.directory))
        case .sealedAndLoaded, .sealedNotLoaded: break
        }
        _ = try storeCall { try store.prepareMemory() }
        try storeCall { try store.discardLoadedKey() }
        do {
            let sealed = try storeCall { try store.readSealedKey() }
            let key = try unsealed(sealed, waitingSeconds: waitingSeconds)
            try storeCall { try store.storeLoadedKey(key) }
            Output.line(L("loaded the machine key into memory: %s", store.location.loadedKeyPath))
            SystemLog.write(.info, "key load: the machine key is loaded")
        } catch let error as CLIError {
            try? store.recordLoadFailure(KeyLoadFailure(cause: error.cause ?? "store-error", detail: error.detail ?? error.message))
            SystemLog.write(.error, "key load failed: \(error.message)")
            throw error
        }
    }

    /// Back to a key file: from memory if loaded, else from the TPM.
    func unseal() throws {
        guard let key = try keyToUnseal() else {
            Output.line(L("the machine key is already a file: %s", store.location.keyPath))
            return
        }
        if try !storeCall({ try store.writeKeyFile(key) }) {
            // A clear file beside the sealed key: keep it only if it is this key.
            guard try storeCall({ try store.loadKeyFile() }).bytes.constantTimeEquals(key.bytes) else {
                throw CLIError(status: .storeOrConfig, message: L("%s is there and holds another key than the sealed one; move it away and run 'pingate key unseal' again", store.location.keyPath))
            }
        }
        try storeCall {
            try store.removeSealedKey()
            try store.discardLoadedKey()
        }
        store.forgetLoadFailure()
        Output.line(L("wrote the machine key back to %s (root:%s 0640) and removed the sealed key", store.location.keyPath, StoreLocation.groupName))
        SystemLog.write(.notice, "key unseal: the machine key is a file again")
    }

    static func describe(_ pcrs: [UInt8]) -> String {
        pcrs.isEmpty ? L("none") : pcrs.map(String.init).joined(separator: ",")
    }

    /// The TPM's failure as an error that says what happened and what to do.
    func failure(_ error: TPMFailure) -> CLIError {
        CLIError(status: .storeOrConfig, message: Self.advice(error.cause, detail: error.description, sealedPath: store.location.sealedKeyPath, tcti: tcti),
                 cause: error.cause.rawValue, detail: error.description)
    }

    /// What a failure of `cause` means and what to do, in the reader's
    /// language (the load-failure note keeps only the cause and the detail).
    static func advice(_ cause: TPMFailureCause, detail: String, sealedPath path: String, tcti: String) -> String {
        let message: String
        switch cause {
        case .unreachable:
            message = L("no TPM answered at '%s' (%s); check that the TPM is on in the firmware and tpm_tcti in pingate.conf. The password works meanwhile.", tcti, detail)
        case .sealedElsewhere:
            message = L("this TPM cannot open the sealed key %s (%s): another machine's TPM sealed it, or this TPM was cleared. If it was cleared the key is gone: move the file away, run 'pingate init' and re-enrol every user. The password works meanwhile.", path, detail)
        case .pcrChanged:
            message = L("the TPM refused to unseal %s: the PCRs it is bound to read differently now (a firmware, Secure Boot or boot loader change; %s). Boot the previous configuration and run 'pingate key unseal', or move the file away, run 'pingate init' and re-enrol every user. The password works meanwhile.", path, detail)
        case .damaged:
            message = L("%s is not a sealed key this program can read (%s); restore it from a backup, or move it away, run 'pingate init' and re-enrol every user", path, detail)
        case .tpmError:
            message = L("the TPM refused (%s); see 'pingate doctor'. The password works meanwhile.", detail)
        }
        return message
    }

    /// A recorded load failure as advice: the TPM's causes in full, a store error as it was.
    static func advice(_ failure: KeyLoadFailure, sealedPath: String, tcti: String) -> String {
        guard let cause = TPMFailureCause(rawValue: failure.cause) else { return failure.summary }
        return advice(cause, detail: failure.detail, sealedPath: sealedPath, tcti: tcti)
    }
}

/// `pingate key status`: where the key lives and whether it is loaded.
struct KeyReport {
    let state: MachineKeyState
    let location: StoreLocation
    let pcrs: [UInt8]?
    let memory: FileSystemKind?
    let tcti: String

    var json: JSON {
        let sealed: Bool
        let failure: KeyLoadFailure?
        switch state {
        case .sealedAndLoaded: (sealed, failure) = (true, nil)
        case let .sealedNotLoaded(recorded): (sealed, failure) = (true, recorded)
        case .file, .missing: (sealed, failure) = (false, nil)
        }
        return .object([
            ("state", .string(state.name)),
            ("key_file", state == .file ? .string(location.keyPath) : .null),
            ("sealed_key", sealed ? .string(location.sealedKeyPath) : .null),
            ("pcrs", pcrs.map { .array($0.map { .int(Int64($0)) }) } ?? .null),
            ("loaded_key", state == .sealedAndLoaded ? .string(location.loadedKeyPath) : .null),
            ("memory", state == .sealedAndLoaded ? memory.map { .string($0.description) } ?? .null : .null),
            ("load_failure", failure.map { .object([("cause", .string($0.cause)), ("detail", .string($0.detail))]) } ?? .null),
            ("tcti", .string(tcti)),
        ])
    }

    var text: String {
        switch state {
        case .missing:
            return L("machine key: missing in %s; run 'pingate init'", location.directory)
        case .file:
            return L("machine key: a file, %s (not sealed; 'pingate key seal' moves it into the TPM)", location.keyPath)
        case .sealedAndLoaded:
            return L("machine key: sealed by the TPM, %s (PCRs: %s)", location.sealedKeyPath, KeySealing.describe(pcrs ?? []))
                + "\n" + L("loaded: yes, %s (%s)", location.loadedKeyPath, memory?.description ?? "?")
        case let .sealedNotLoaded(failure):
            return L("machine key: sealed by the TPM, %s (PCRs: %s)", location.sealedKeyPath, KeySealing.describe(pcrs ?? []))
                + "\n" + (failure.map { L("loaded: no — the last load failed (%s): %s", $0.cause, KeySealing.advice($0, sealedPath: location.sealedKeyPath, tcti: tcti)) }
                    ?? L("loaded: no — no load has run since boot; run 'pingate key load'"))
        }
    }
}

extension KeySealing {
    func report() throws -> KeyReport {
        let state = try storeCall { try store.keyState() }
        let pcrs: [UInt8]?
        switch state {
        case .sealedAndLoaded, .sealedNotLoaded: pcrs = try? store.readSealedKey().pcrs
        case .file, .missing: pcrs = nil
        }
        return KeyReport(state: state, location: store.location, pcrs: pcrs, memory: store.loadedKeyFileSystem(), tcti: tcti)
    }
}
