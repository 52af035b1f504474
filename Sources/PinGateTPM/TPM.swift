import CPinGateTPM
import PinGateCore

/// Why a TPM operation failed, in the words an admin acts on. `word` is
/// stable (`pingate key status --json`, the load-failure note).
public enum TPMFailureCause: String, Sendable {
    /// No TPM answered at the TCTI (`tpm_tcti` in pingate.conf).
    case unreachable = "tpm-unreachable"
    /// The TPM cannot load the sealed object: another TPM sealed it, or this
    /// TPM was cleared (a new owner seed makes another storage key).
    case sealedElsewhere = "sealed-elsewhere"
    /// The PCRs the key is bound to read differently now.
    case pcrChanged = "pcr-changed"
    /// The sealed file is not a blob this program wrote.
    case damaged = "blob-damaged"
    /// Anything else the TPM refused.
    case tpmError = "tpm-error"
}

/// One failed step: its cause, the TSS2 response code and its decoded text.
public struct TPMFailure: Error, Sendable, CustomStringConvertible {
    public let cause: TPMFailureCause
    public let responseCode: UInt32
    public let detail: String

    init(_ failure: pingate_tpm_failure) {
        let base = pingate_tpm_rc_base(failure.rc)
        responseCode = failure.rc
        detail = failure.rc == 0 ? "" : String(cString: pingate_tpm_describe(failure.rc))
        switch failure.step {
        case PINGATE_TPM_STEP_CONNECT: cause = .unreachable
        case PINGATE_TPM_STEP_FORMAT: cause = .damaged
        case PINGATE_TPM_STEP_LOAD where base == pingate_tpm_rc_integrity || base & 0x80 != 0:
            // Load checks the private part's integrity with a key derived
            // from the parent: under another seed every check fails.
            cause = .sealedElsewhere
        case let step where (step == PINGATE_TPM_STEP_UNSEAL || step == PINGATE_TPM_STEP_POLICY)
            && (base == pingate_tpm_rc_policy_fail || base == pingate_tpm_rc_pcr_changed):
            cause = .pcrChanged
        default: cause = .tpmError
        }
    }

    public init(cause: TPMFailureCause, detail: String) {
        self.cause = cause
        responseCode = 0
        self.detail = detail
    }

    public var description: String {
        let code = responseCode == 0 ? "" : String(format0x: responseCode)
        return [detail, code].filter { !$0.isEmpty }.joined(separator: ", ")
    }
}

extension String {
    init(format0x value: UInt32) { self = "0x" + String(value, radix: 16) }
}

/// A connection to the TPM with the storage primary key made: seal and
/// unseal through it, then let it go (the primary and every session are
/// flushed, so a TPM without a resource manager keeps its slots).
public final class TPMConnection {
    private let handle: OpaquePointer

    /// Connects through `tcti` ("device:/dev/tpmrm0", "swtpm:host=…,port=…").
    public init(tcti: String) throws(TPMFailure) {
        var failure = pingate_tpm_failure()
        guard let handle = pingate_tpm_open(tcti, &failure) else { throw TPMFailure(failure) }
        self.handle = handle
    }

    deinit { pingate_tpm_close(handle) }

    /// Seals `secret`; with `pcrs`, bound to what those SHA-256 PCRs read now.
    public func seal(_ secret: borrowing Secret, pcrs: [UInt8]) throws(TPMFailure) -> [UInt8] {
        var blob = [UInt8](repeating: 0, count: Int(PINGATE_TPM_BLOB_MAX))
        var length = 0
        var failure = pingate_tpm_failure()
        let result = secret.withUnsafeBytes { secretBytes in
            blob.withUnsafeMutableBufferPointer { blobBytes in
                pingate_tpm_seal(handle, secretBytes.bindMemory(to: UInt8.self).baseAddress, secretBytes.count,
                                 pcrs, pcrs.count, blobBytes.baseAddress, blobBytes.count, &length, &failure)
            }
        }
        guard result == 0 else { throw TPMFailure(failure) }
        return Array(blob[..<length])
    }

    /// Unseals a blob `seal` made, through a PCR policy session when `pcrs` is not empty.
    public func unseal(_ blob: [UInt8], pcrs: [UInt8]) throws(TPMFailure) -> Secret {
        var length = 0
        var failure = pingate_tpm_failure()
        var result: Int32 = 0
        let secret = Secret(count: Int(PINGATE_TPM_SECRET_MAX)) { buffer in
            result = pingate_tpm_unseal(handle, blob, blob.count, pcrs, pcrs.count,
                                        buffer.bindMemory(to: UInt8.self).baseAddress, &length, &failure)
        }
        guard result == 0, length <= secret.count else { throw TPMFailure(failure) }
        // The room was the largest a TPM returns; the key is its first
        // `length` bytes, copied into a secret of that size (both are wiped).
        return Secret(count: length) { key in
            secret.withUnsafeBytes { unsealed in key.copyMemory(from: UnsafeRawBufferPointer(rebasing: unsealed[..<length])) }
        }
    }
}
