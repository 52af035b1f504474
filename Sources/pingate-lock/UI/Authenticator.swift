import CPAM
import CPinGateContract
import PinGateCore
import Glibc

/// PAM for the lock screen: service `pingate-lock`, run as the user, one
/// pam_authenticate + pam_acct_mgmt per submission. The conversation answers
/// from the mode the person chose:
///   - PIN or pattern: only pam_pingate.so's own prompt ("PIN: ", "Pattern: ")
///     gets the secret; any other prompt (the password module's) is refused,
///     so a PIN is never offered as a password.
///   - password: the PAM environment says PINGATE_PASSWORD_ONLY=1, so
///     pam_pingate.so neither prompts nor spends an attempt; should it prompt
///     anyway ("PIN: ", "Pattern: ", "PIN or password: "), the prompt is
///     refused — the module then returns PAM_CONV_ERR, which the stack
///     ignores — and the password module's prompt gets the password.
/// A prompt is the module's when it reads as the module writes it, in English
/// or in the "pingate" catalogue of the current locale.
enum Authenticator {
    enum Mode { case credential, password }

    struct Result {
        var succeeded = false
        /// Info and error lines from the modules, e.g. "Wrong PIN — 3 attempts left".
        var messages: [String] = []
        /// Set when the secret was right but the account may not sign in now.
        var accountProblem: String?
    }

    static let service = "pingate-lock"
    static let patternLegend = String(cString: pingate_pattern_legend)
    static let modulePrompts = [pingate_prompt_pin, pingate_prompt_pattern, pingate_prompt_pin_or_password,
                                pingate_field_pin_or_password, pingate_field_pattern_or_password].map { String(cString: $0) }

    final class Conversation {
        let mode: Mode
        /// The submission's own secret, handed over whole. Emptied (zeroed)
        /// as soon as PAM has its answer, and wiped when the conversation goes.
        private var secret: Secret
        private(set) var answered = false
        var messages: [String] = []

        init(mode: Mode, secret: consuming Secret) {
            self.mode = mode
            self.secret = secret
        }

        func isModulePrompt(_ text: String) -> Bool {
            Authenticator.modulePrompts.contains { $0 == text || Localization.translation(of: $0) == text }
        }

        /// The module's text legend of the grid, for clients that show text
        /// only: this screen draws the grid, and a line kept here would be
        /// shown after a success as if it told of failed attempts.
        func isPatternLegend(_ text: String) -> Bool {
            text.hasPrefix(Authenticator.patternLegend) || text.hasPrefix(Localization.translation(of: Authenticator.patternLegend))
        }

        /// The answer to one echo-off prompt, or nil to refuse it.
        func answer(_ prompt: String) -> UnsafeMutablePointer<CChar>? {
            let wanted = isModulePrompt(prompt) == (mode == .credential)
            guard wanted, !answered, let copy = malloc(secret.count + 1)?.assumingMemoryBound(to: CChar.self) else { return nil }
            answered = true
            // The one copy PAM gets, made at the last moment, as it wants it
            // (a malloc'd C string that the module frees: pam_pingate.so and
            // pam_unix wipe it first). Ours goes at once: nothing else asks.
            let bytes = UnsafeMutableRawPointer(copy).assumingMemoryBound(to: UInt8.self)
            secret.withUnsafeBytes { for index in 0..<$0.count { bytes[index] = $0[index] } }
            bytes[secret.count] = 0
            secret.removeAll()
            return copy
        }
    }

    /// Runs the stack once with `secret`, which is consumed. The handle is
    /// ended before this returns: pam_end wipes and frees the PAM_AUTHTOK a
    /// module stored (pam_unix does) and the modules' data.
    static func authenticate(user: String, secret: consuming Secret, mode: Mode) -> Result {
        let conversation = Conversation(mode: mode, secret: secret)
        var conv = pam_conv(conv: converse, appdata_ptr: Unmanaged.passUnretained(conversation).toOpaque())
        var handle: OpaquePointer?
        var result = Result()
        var rc = pam_start(service, user, &conv, &handle)
        guard rc == PAM_SUCCESS, let handle else {
            result.messages.append("pam_start failed: \(rc)")
            return result
        }
        if let display = getenv("DISPLAY") { pam_set_item(handle, PAM_TTY, display) }
        // Password mode: pam_pingate.so stays out at once (pam_pingate(8),
        // ENVIRONMENT), whatever its prompt= says; refusing its prompt below
        // is the second line, for a module from before this variable.
        if mode == .password { pam_putenv(handle, PINGATE_PASSWORD_ONLY_ENV + "=1") }
        rc = pam_authenticate(handle, 0)
        if rc == PAM_SUCCESS {
            rc = pam_acct_mgmt(handle, 0)
            // An expired password cannot be changed on a lock screen; the
            // session is already open, so the account check does not strand it.
            if rc == PAM_SUCCESS || rc == PAM_NEW_AUTHTOK_REQD {
                result.succeeded = true
                pam_setcred(handle, Int32(PAM_REFRESH_CRED))
            } else {
                result.accountProblem = String(cString: pam_strerror(handle, rc))
            }
        }
        result.messages = conversation.messages
        pam_end(handle, rc)
        Localization.rebind()
        return result
    }

    private static let converse: @convention(c) (Int32, UnsafeMutablePointer<UnsafePointer<pam_message>?>?,
                                                 UnsafeMutablePointer<UnsafeMutablePointer<pam_response>?>?,
                                                 UnsafeMutableRawPointer?) -> Int32 = { count, messages, responses, appdata in
        guard count > 0, let messages, let responses, let appdata,
              let replies = calloc(Int(count), MemoryLayout<pam_response>.stride)?.assumingMemoryBound(to: pam_response.self)
        else { return PAM_CONV_ERR }
        let conversation = Unmanaged<Conversation>.fromOpaque(appdata).takeUnretainedValue()
        for index in 0..<Int(count) {
            guard let message = messages[index]?.pointee else { continue }
            let text = message.msg.map { String(cString: $0) } ?? ""
            switch message.msg_style {
            case PAM_PROMPT_ECHO_OFF:
                guard let answer = conversation.answer(text) else {
                    dropReplies(replies, count: Int(count))
                    return PAM_CONV_ERR
                }
                replies[index].resp = answer
            case PAM_TEXT_INFO, PAM_ERROR_MSG:
                if !text.isEmpty, !conversation.isPatternLegend(text) { conversation.messages.append(text) }
            default:  // an echo-on prompt (a user name): the user is already set
                dropReplies(replies, count: Int(count))
                return PAM_CONV_ERR
            }
        }
        responses.pointee = replies
        return PAM_SUCCESS
    }

    private static func dropReplies(_ replies: UnsafeMutablePointer<pam_response>, count: Int) {
        for index in 0..<count {
            if let answer = replies[index].resp {
                explicit_bzero(answer, strlen(answer))
                free(answer)
            }
        }
        free(replies)
    }
}
