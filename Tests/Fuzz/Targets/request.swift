// Fuzz target: HelperRequest.parsing(_:), the first thing the setgid helper does
// with bytes its caller chose. Beyond not crashing: an accepted request obeys
// the protocol's rules, and the client's encoding of it (HelperRequest.encoded,
// what the CLI and the lock screen send) parses to the same request.
@testable import PinGateCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    withInput(data, size) { input in
        guard let request = try? HelperRequest.parsing(input) else { return }
        invariant(input.count <= HelperRequest.maximumSize, "accepted \(input.count) bytes")
        invariant(!request.user.isEmpty && request.user.count <= 256, "user length \(request.user.count)")
        for text in [request.user, request.service, request.tty, request.remoteHost].compactMap({ $0 }) {
            invariant(text.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F }, "control byte in a field")
        }
        switch request.operation {
        case .status:
            invariant(!request.secret.isPresent && !request.newSecret.isPresent, "status with a secret")
        case .verify:
            invariant(request.secret.isPresent && !request.newSecret.isPresent, "verify without exactly one secret")
        case .change:
            invariant(request.secret.isPresent && request.newSecret.isPresent && request.newKind != nil, "incomplete change")
            if let grid = request.newGridSize { invariant(PatternGrid.supportedSizes.contains(grid), "grid \(grid)") }
        }
        let again = request.encoded()
        let reparsedOrNil = try? again.withUnsafeBytes({ try HelperRequest.parsing($0) })
        guard let reparsed = reparsedOrNil else {
            invariant(again.count > HelperRequest.maximumSize, "a request's own serialisation is refused")
            return
        }
        invariant(reparsed.operation == request.operation && reparsed.user == request.user
                  && reparsed.service == request.service && reparsed.tty == request.tty
                  && reparsed.remoteHost == request.remoteHost && reparsed.newKind == request.newKind
                  && reparsed.newGridSize == request.newGridSize
                  && bytes(of: reparsed.secret) == bytes(of: request.secret)
                  && bytes(of: reparsed.newSecret) == bytes(of: request.newSecret), "round trip changed the request")
    }
    return 0
}
