/// The machine key as the TPM sealed it (`machine.key.sealed`): which PCRs
/// its policy reads (SHA-256 bank; none: no policy) and the TPM's own
/// blob (the sealed object's public and private parts, which only the TPM
/// that made them can load). The file is
///
///     "PGSEAL01"  PCR count (1 byte)  PCR indices (1 byte each)  TPM blob
///
/// PinGateCore only stores and reads it; the CLI's PinGateTPM talks to the TPM.
public struct SealedKey: Equatable, Sendable {
    static let magic = Array("PGSEAL01".utf8)
    public static let maximumSize = 4096

    public let pcrs: [UInt8]
    public let tpmBlob: [UInt8]

    public init(pcrs: [UInt8], tpmBlob: [UInt8]) {
        self.pcrs = pcrs
        self.tpmBlob = tpmBlob
    }

    public var encoded: [UInt8] { SealedKey.magic + [UInt8(pcrs.count)] + pcrs + tpmBlob }

    public init?(encoded bytes: [UInt8]) {
        let header = SealedKey.magic.count
        guard bytes.count > header, Array(bytes[..<header]) == SealedKey.magic else { return nil }
        let count = Int(bytes[header])
        guard bytes.count > header + 1 + count else { return nil }
        let pcrs = Array(bytes[(header + 1)..<(header + 1 + count)])
        guard pcrs.allSatisfy({ $0 < 24 }) else { return nil }
        self.init(pcrs: pcrs, tpmBlob: Array(bytes[(header + 1 + count)...]))
    }
}

extension Store {
    /// Reads the sealed key (root), through its rule: root:pingate 0600, no symlink.
    public func readSealedKey() throws -> SealedKey {
        let directory = try openDirectory()
        defer { directory.close() }
        let path = location.sealedKeyPath
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(StoreLocation.sealedKeyFileName, [.readOnly, .noFollow, .nonBlocking, .noControllingTerminal], relativeTo: directory)
        } catch let error as Errno {
            switch error {
            case .noSuchFile: throw StoreError.unsafe(StoreProblem(object: .sealedKey, path: path, violation: .missing, location: location))
            case .tooManySymbolicLinks: throw StoreError.unsafe(StoreProblem(object: .sealedKey, path: path, violation: .symbolicLink, location: location))
            default: throw StoreError.systemError(path: path, operation: "open", errno: error)
            }
        }
        defer { file.close() }
        do {
            if let problem = location.problems(of: .sealedKey, status: try file.status()).first { throw StoreError.unsafe(problem) }
            var bytes = [UInt8](repeating: 0, count: SealedKey.maximumSize + 1)
            let count = try bytes.withUnsafeMutableBytes { try file.read(fromAbsoluteOffset: 0, into: $0) }
            guard count <= SealedKey.maximumSize, let sealed = SealedKey(encoded: Array(bytes[..<count])) else {
                throw StoreError.sealedKeyDamaged(path: path)
            }
            return sealed
        } catch let error as Errno {
            throw StoreError.systemError(path: path, operation: "read", errno: error)
        }
    }

    /// Writes (or replaces, for new PCRs) the sealed key: root:pingate 0600.
    public func writeSealedKey(_ sealed: SealedKey) throws {
        let directory = try openDirectory()
        defer { directory.close() }
        _ = try publish(StoreLocation.sealedKeyFileName, in: directory, mode: StoreLocation.sealedKeyMode, placement: .replacing) { file in
            try file.writeAll(sealed.encoded)
        }
    }

    /// Overwrites the clear key file with zeros, syncs it, then removes it
    /// and syncs the directory. On a journaling file system or an SSD the
    /// old blocks may survive (design.md's threat table); backups keep it.
    /// Returns false if there was no key file.
    @discardableResult
    public func destroyKeyFile() throws -> Bool {
        let directory = try openDirectory()
        defer { directory.close() }
        let path = location.keyPath
        do {
            let file: FileDescriptor
            do {
                file = try FileDescriptor.open(StoreLocation.keyFileName, [.writeOnly, .noFollow, .nonBlocking, .noControllingTerminal], relativeTo: directory)
            } catch let error as Errno where error == .noSuchFile {
                return false
            }
            defer { file.close() }
            let status = try file.status()
            guard status.isRegularFile else {
                throw StoreError.unsafe(StoreProblem(object: .key, path: path, violation: .wrongType, location: location))
            }
            try [UInt8](repeating: 0, count: max(status.size, MachineKey.byteCount)).withUnsafeBytes {
                try file.write(toAbsoluteOffset: 0, $0)
            }
            try file.sync()
            try directory.removeEntry(StoreLocation.keyFileName)
        } catch let error as Errno {
            throw StoreError.systemError(path: path, operation: "destroy", errno: error)
        }
        try syncDirectory(directory)
        return true
    }

    /// Writes `key` as the key file again (`pingate key unseal`); never
    /// replaces one. Returns false if a key file was there already.
    public func writeKeyFile(_ key: borrowing MachineKey) throws -> Bool {
        let directory = try openDirectory()
        defer { directory.close() }
        return try publish(StoreLocation.keyFileName, in: directory, mode: StoreLocation.keyMode, placement: .neverReplacing) { file in
            try key.bytes.withUnsafeBytes { try file.write(toAbsoluteOffset: 0, $0) }
        }
    }

    /// Removes the sealed key (after `writeKeyFile`).
    public func removeSealedKey() throws {
        let directory = try openDirectory()
        defer { directory.close() }
        do { try directory.removeEntry(StoreLocation.sealedKeyFileName) } catch let error as Errno {
            if error != .noSuchFile { throw StoreError.systemError(path: location.sealedKeyPath, operation: "remove", errno: error) }
        }
        try syncDirectory(directory)
    }
}
