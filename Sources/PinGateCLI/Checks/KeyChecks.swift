import PinGateCore

/// Doctor's checks of the machine key where it lives (`MachineKeyState`):
/// the key file, or the key sealed by the TPM and the copy `pingate key
/// load` put in memory for this boot — on a ramfs, which is never swapped.
extension Doctor {
    /// The key where it lives (`MachineKeyState`): the file, or the sealed
    /// key and the copy loaded into memory for this boot.
    mutating func checkKey(_ location: StoreLocation) {
        let store = Store(location: location)
        guard let state = try? store.keyState() else {
            _ = report(.key, what: L("machine key"), location.inspect(.key), location: location)
            return
        }
        switch state {
        case .file, .missing:
            _ = report(.key, what: L("machine key"), location.inspect(.key), location: location)
            if state == .file, fileStatus(Doctor.tpmDevice) != nil {
                add(.note, L("this machine has a TPM (%s): 'pingate key seal' moves the machine key into it, so that a copy of the disk or a backup no longer holds it", Doctor.tpmDevice),
                    fix: "pingate key seal")
            }
            return
        case .sealedAndLoaded, .sealedNotLoaded:
            break
        }
        if report(.sealedKey, what: L("sealed machine key"), location.inspect(.sealedKey), location: location) {
            add(.ok, L("the machine key is sealed by the TPM: %s", location.sealedKeyPath))
        }
        if fileStatus(location.keyPath) != nil {
            add(.problem, L("a clear key file %s is still there beside the sealed key; it is not used, but a copy of the disk holds it", location.keyPath),
                fix: "pingate key seal   # overwrites and removes it")
        }
        guard case .sealedAndLoaded = state else {
            if case let .sealedNotLoaded(failure) = state, let failure {
                add(.problem, L("the machine key is not loaded, so no PIN or pattern is offered (the password works): the last 'pingate key load' failed (%s): %s", failure.cause,
                                KeySealing.advice(failure, sealedPath: location.sealedKeyPath, tcti: (try? ConfigParser.load(path: configPath))?.tpmTCTI ?? Policy.defaultTPMTCTI)),
                    fix: failure.cause == "pcr-changed" || failure.cause == "sealed-elsewhere" ? L("see the message; then 'pingate key load'") : "pingate key load")
            } else {
                add(.problem, L("the machine key is sealed and not loaded since boot, so no PIN or pattern is offered (the password works)"),
                    fix: "pingate key load   # the pingate-key service does this at boot")
            }
            return
        }
        _ = report(.loadedKeyDirectory, what: L("loaded-key directory"), location.inspect(.loadedKeyDirectory), location: location)
        if report(.loadedKey, what: L("loaded machine key"), location.inspect(.loadedKey), location: location) {
            add(.ok, L("loaded machine key %s is root:%s %s", location.loadedKeyPath, location.expectedGroupName, octal(StoreLocation.keyMode)))
        }
        switch store.loadedKeyFileSystem() {
        case .ramfs?:
            add(.ok, L("the loaded key is on a ramfs: never written to swap"))
        case let kind:
            add(.problem, L("the loaded key is on %s, which can be written to swap", kind?.description ?? "?"),
                fix: "pingate key load   # mounts a ramfs on \(location.loadedKeyDirectory)")
        }
        if Doctor.canHibernate() {
            add(.note, L("this machine can hibernate: a hibernation image holds all of memory, the loaded key too; encrypt swap or turn hibernation off"))
        }
    }

    static let tpmDevice = "/dev/tpmrm0"

    /// Swap is on and the kernel offers suspend to disk.
    static func canHibernate() -> Bool {
        let swaps = ((try? readSmallFile("/proc/swaps", limit: 1 << 16)) ?? nil) ?? ""
        let disk = ((try? readSmallFile("/sys/power/state", limit: 4096)) ?? nil) ?? ""
        return swaps.split(separator: "\n").count > 1 && disk.contains("disk")
    }
}
