// Fuzz target: HelperRequest(parsing:), the first thing the setgid helper does
// with bytes its caller chose. Beyond not crashing: an accepted request obeys
// the protocol's rules, and serialising it again parses to the same request.
@testable import PinGateCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    withInput(data, size) { input in
        guard let request = try? HelperRequest(parsing: input) else { return }
        invariant(input.count <= HelperRequest.maximumSize, "accepted \(input.count) bytes")
        invariant(!request.user.isEmpty && request.user.count <= 256, "user length \(request.user.count)")
        for text in [request.user, request.service, request.tty, request.remoteHost].compactMap({ $0 }) {
            invariant(text.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F }, "control byte in a field")
        }
        switch request.operation {
        case .status:
            invariant(request.secret == nil && request.newSecret == nil, "status with a secret")
        case .verify:
            invariant(request.secret != nil && request.newSecret == nil, "verify without exactly one secret")
        case .change:
            invariant(request.secret != nil && request.newSecret != nil && request.newKind != nil, "incomplete change")
            if let grid = request.newGridSize { invariant(PatternGrid.supportedSizes.contains(grid), "grid \(grid)") }
        }
        let again = serialise(request)
        guard let reparsed = try? again.withUnsafeBytes({ try HelperRequest(parsing: $0) }) else {
            invariant(again.count > HelperRequest.maximumSize, "a request's own serialisation is refused")
            return
        }
        invariant(reparsed.operation == request.operation && reparsed.user == request.user
                  && reparsed.service == request.service && reparsed.tty == request.tty
                  && reparsed.remoteHost == request.remoteHost && reparsed.newKind == request.newKind
                  && reparsed.newGridSize == request.newGridSize
                  && reparsed.secret?.bytes == request.secret?.bytes
                  && reparsed.newSecret?.bytes == request.newSecret?.bytes, "round trip changed the request")
    }
    return 0
}

/// The request in wire form, fields in protocol order.
private func serialise(_ request: HelperRequest) -> [UInt8] {
    var lines: [[UInt8]] = [Array(HelperRequest.versionLine.utf8), Array("op=\(request.operation.rawValue)".utf8),
                            Array("user=\(request.user)".utf8)]
    if let service = request.service { lines.append(Array("service=\(service)".utf8)) }
    if let tty = request.tty { lines.append(Array("tty=\(tty)".utf8)) }
    if let rhost = request.remoteHost { lines.append(Array("rhost=\(rhost)".utf8)) }
    if let secret = request.secret { lines.append(Array("secret=".utf8) + secret.bytes) }
    if let kind = request.newKind { lines.append(Array("new_kind=\(kind)".utf8)) }
    if let grid = request.newGridSize { lines.append(Array("new_grid=\(grid)".utf8)) }
    if let new = request.newSecret { lines.append(Array("new=".utf8) + new.bytes) }
    return Array(lines.joined(separator: [0x0A]))
}
