import PinGateCore

/// Overrides of the store and config locations, for tests and for root's
/// own use. A non-root caller may pass no argument at all: the helper is
/// setgid, and a path from its caller would let the caller choose the store.
struct RootOptions {
    var configPath = Policy.defaultPath
    var storeDirectory = StoreLocation.defaultDirectory
    /// `--socket`: stdin and stdout are a connection to pingate-verify.socket
    /// (systemd's `StandardInput=socket`; CallerLink.socket).
    var servesSocket = false

    struct Refusal: Error { let message: String }

    static func parse(_ arguments: [String], callerUID: UInt32) -> Result<RootOptions, Refusal> {
        var options = RootOptions()
        guard !arguments.isEmpty else { return .success(options) }
        guard callerUID == 0 else { return .failure(Refusal(message: "pingate-verify takes no arguments")) }
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            if flag == "--socket" {
                options.servesSocket = true
                continue
            }
            guard let value = remaining.popFirst(), value.hasPrefix("/") else {
                return .failure(Refusal(message: "\(flag.prefix(40)) needs an absolute path"))
            }
            switch flag {
            case "--config": options.configPath = value
            case "--store": options.storeDirectory = value
            default: return .failure(Refusal(message: "unknown argument \(flag.prefix(40))"))
            }
        }
        return .success(options)
    }
}
