import Glibc

/// The sd-login calls the locality rule makes (sd-login(3), libsystemd0),
/// found with dlopen/dlsym on first use rather than linked: libsystemd
/// brings six libraries (gcrypt, lzma, zstd, lz4, gpg-error, cap) whose
/// loading every helper run would pay — time, and address space a caller
/// may have limited — while only a machine where logind runs needs them.
/// Loaded once per process; a library or symbol that cannot be found is an
/// error, so the rule fails closed.
struct SDLogin: @unchecked Sendable {
    typealias StringOut = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    let pidGetSession: @convention(c) (pid_t, StringOut) -> CInt
    let pidGetUnit: @convention(c) (pid_t, StringOut) -> CInt
    let pidGetOwnerUID: @convention(c) (pid_t, UnsafeMutablePointer<uid_t>?) -> CInt
    let sessionGetUID: @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<uid_t>?) -> CInt
    let sessionGetSeat: @convention(c) (UnsafePointer<CChar>?, StringOut) -> CInt
    let sessionGetClass: @convention(c) (UnsafePointer<CChar>?, StringOut) -> CInt
    let sessionIsRemote: @convention(c) (UnsafePointer<CChar>?) -> CInt
    let sessionIsActive: @convention(c) (UnsafePointer<CChar>?) -> CInt
    let sessionGetState: @convention(c) (UnsafePointer<CChar>?, StringOut) -> CInt
    let uidGetDisplay: @convention(c) (uid_t, StringOut) -> CInt
    let uidGetSessions: @convention(c) (uid_t, CInt, UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt

    /// libsystemd's soname: its ABI is stable under this name.
    static let libraryName = "libsystemd.so.0"

    private static let library: Result<SDLogin, Errno> = load()

    static func loaded() throws(Errno) -> SDLogin { try library.get() }

    private static func load() -> Result<SDLogin, Errno> {
        // RTLD_NOW: every symbol bound before the first call, as the helper's own (full RELRO).
        guard let handle = dlopen(libraryName, RTLD_NOW | RTLD_LOCAL) else { return .failure(Errno(rawValue: ENOENT)) }
        // Each symbol's type is the field's it fills: written once, above.
        func symbol<Function>(_ name: String) throws(Errno) -> Function {
            guard let address = dlsym(handle, name) else { throw Errno(rawValue: ENOSYS) }
            return unsafeBitCast(address, to: Function.self)
        }
        do {
            return .success(SDLogin(
                pidGetSession: try symbol("sd_pid_get_session"),
                pidGetUnit: try symbol("sd_pid_get_unit"),
                pidGetOwnerUID: try symbol("sd_pid_get_owner_uid"),
                sessionGetUID: try symbol("sd_session_get_uid"),
                sessionGetSeat: try symbol("sd_session_get_seat"),
                sessionGetClass: try symbol("sd_session_get_class"),
                sessionIsRemote: try symbol("sd_session_is_remote"),
                sessionIsActive: try symbol("sd_session_is_active"),
                sessionGetState: try symbol("sd_session_get_state"),
                uidGetDisplay: try symbol("sd_uid_get_display"),
                uidGetSessions: try symbol("sd_uid_get_sessions")))
        } catch {
            return .failure(error)
        }
    }
}
