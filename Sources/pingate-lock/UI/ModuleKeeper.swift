import CPAM
import Glibc

/// One PAM handle the UI opens when it starts and never authenticates with:
/// it holds the service's modules loaded. Every submission still runs a
/// handle of its own (`Authenticator`), which reads the service file afresh,
/// so a changed stack counts at the next try; but libpam's dlopen of a module
/// this handle already holds is a reference count, not a load and relocation
/// of pam_unix.so and its libraries (~1.5 ms of the unlock). No module function
/// runs for this handle: pam_start only reads the stack and loads it.
/// One cost: dlopen reuses a module already loaded from the same path, so
/// an upgraded pam_unix.so or pam_pingate.so is taken up when the lock
/// screen next starts, not at the next try (as any long-running PAM client).
enum ModuleKeeper {
    /// Refuses every question; nothing is ever asked of this handle.
    private static let refuse: @convention(c) (Int32, UnsafeMutablePointer<UnsafePointer<pam_message>?>?,
                                               UnsafeMutablePointer<UnsafeMutablePointer<pam_response>?>?,
                                               UnsafeMutableRawPointer?) -> Int32 = { _, _, _, _ in PAM_CONV_ERR }
    private nonisolated(unsafe) static var handle: OpaquePointer?

    static func start(service: String, user: String) {
        guard handle == nil else { return }
        // libpam keeps a copy of the conversation, not this one.
        var conversation = pam_conv(conv: refuse, appdata_ptr: nil)
        if pam_start(service, user, &conversation, &handle) != PAM_SUCCESS { handle = nil }
    }
}
