/// A rule a correct PIN would skip that does more than check the password:
/// named as `pingate enable` and `pingate doctor` report it.
public struct PAMGuard: Equatable, Hashable, Sendable {
    /// `pam_u2f`, `/opt/x/pam_unix.so` (a path outside the security
    /// directories, as written), `pam_deny(unconditional)`, or a rule libpam
    /// cannot use: `(unreadable:/etc/pam.d/NAME)`, `(nested-too-deep:...)`, ...
    public let name: String
    public let origin: PAMOrigin
    /// The module path as the rule writes it (`pam_u2f.so`); nil for a rule
    /// libpam cannot use.
    public var writtenModule: String? = nil
}

/// What a PIN success may skip.
///
/// `auth sufficient pam_pingate.so` ends the auth stack on a correct PIN, so every
/// auth module after it is skipped. That is the point for the password, and must
/// not happen to anything that guards more than the password. A module may be
/// skipped when skipping it takes nothing from the sign-in's security: it only
/// leaves the user with less, or it is the password itself:
///
///   pam_unix          the password itself: what the PIN stands in for (the PIN
///                     has its own lockout, docs/design.md, "The lockout policy").
///   pam_deny, pam_permit
///                     structure around pam_unix (common-auth's skeleton). Only
///                     a pam_deny that a password success jumps over
///                     (`sufficient` or success=N/done earlier in its file) is
///                     structure; one a password would reach is the admin
///                     closing the service, and the PIN must not open it.
///   pam_env, pam_faildelay, pam_cap, pam_group
///                     no check: they set the environment, a delay after a
///                     failure, capabilities or groups. Skipped, the user gets
///                     fewer, never more (and the last two work in setcred).
///   pam_nologin       keeps new logins out while /etc/nologin exists. Stacks
///                     that start a login (login, gdm-password, lightdm) run it
///                     before the PIN's line, so it still runs first there. A
///                     PIN skips it only where a whole login stack is included
///                     (Debian's i3lock and swaylock: `auth include login`):
///                     unlocking a session its user already has, which is not
///                     what /etc/nologin is for.
///   pam_gnome_keyring, pam_kwallet, pam_kwallet5, pam_mount, pam_ecryptfs, pam_fscrypt
///                     take the password to unlock something, they do not guard
///                     the sign-in. Skipped, the keyring or the encrypted home
///                     stays locked until the password is given; and no 4-digit
///                     secret ever reaches them (docs/design.md, section 8).
///
/// Everything else is refused unless --force, named for the admin to judge. Among
/// them, on purpose: second factors and alternative credentials (pam_u2f,
/// pam_google_authenticator, pam_oath, pam_yubico, pam_pkcs11, pam_fprintd);
/// lockouts (pam_faillock: its preauth keeps a locked account out, and an admin
/// may lock one on purpose); directories (pam_sss, pam_krb5, pam_ldap,
/// pam_winbind: the directory may have disabled the account or want its own
/// factor, and a local PIN would override it); access checks that happen to sit
/// after the include (pam_securetty, pam_succeed_if, pam_wheel, pam_access,
/// pam_listfile, pam_shells, pam_rootok: fine before the PIN, as in Debian's
/// gdm-password and su, where they still run first); pam_systemd_home (a homed record
/// may require a FIDO2 or PKCS#11 token, and homed's check is what unlocks the
/// home); pam_exec and anything unknown. A module given by a path outside the
/// system's security directories is never taken for the plain one of that name.
/// The control field is not weighed: a pam_fprintd that is only an alternative
/// is refused too — --force is the answer there.
///
/// A rule libpam cannot use (an include it cannot read, a line it cannot
/// parse) is never plain: it is refused rather than trusted. "A password
/// success" is any rule's but pam_pingate.so's own, counted the way libpam
/// counts a jump.
public enum PAMPasswordModules {
    public static let plain: Set<String> = [
        "pam_unix", "pam_deny", "pam_permit", "pam_env", "pam_faildelay", "pam_cap", "pam_group", "pam_nologin",
        "pam_gnome_keyring", "pam_kwallet", "pam_kwallet5", "pam_mount", "pam_ecryptfs", "pam_fscrypt",
    ]

    /// `pam_unix` for `pam_unix.so` or `/lib/.../security/pam_unix.so`
    /// (`/lib`, `/usr/lib`, with or without one directory such as the
    /// multiarch triplet); the path as written anywhere else.
    public static func reportedName(_ path: PAMModulePath) -> String {
        guard isInSecurityDirectory(path.written), let last = path.written.split(separator: "/").last else { return path.written }
        return last.hasSuffix(".so") ? String(last.dropLast(3)) : String(last)
    }

    /// `^((/usr)?/lib(/[^/]+)?/security/)?[^/]+$`: a bare name, or a file
    /// directly in such a directory.
    static func isInSecurityDirectory(_ written: String) -> Bool {
        var parts = written.split(separator: "/", omittingEmptySubsequences: false)[...]
        guard let last = parts.popLast(), !last.isEmpty else { return false }
        if parts.isEmpty { return true }
        guard parts.popFirst() == "" else { return false }
        if parts.first == "usr" { parts.removeFirst() }
        guard parts.popFirst() == "lib", parts.popLast() == "security" else { return false }
        return parts.count <= 1 && parts.allSatisfy { !$0.isEmpty }
    }

    /// Whether a rule is the PinGate module itself, wherever it is installed.
    public static func isPinGate(_ rule: PAMRule) -> Bool {
        rule.module.map { $0.written.split(separator: "/").last == "pam_pingate.so" } ?? false
    }

    /// The rules at `indices` of `rules` that are more than the password, in order.
    public static func guards(at indices: [Int], of rules: [PAMRule]) -> [PAMGuard] {
        indices.compactMap { index in
            let rule = rules[index]
            switch rule.kind {
            case .substack:
                return nil
            case let .failing(failure):
                return PAMGuard(name: name(of: failure), origin: rule.origin)
            case let .module(path, _):
                if isPinGate(rule) { return nil }
                let name = reportedName(path)
                guard plain.contains(name) else { return PAMGuard(name: name, origin: rule.origin, writtenModule: path.written) }
                if name == "pam_deny", !isJumpedOverByAPasswordSuccess(index, of: rules) {
                    return PAMGuard(name: "pam_deny(unconditional)", origin: rule.origin, writtenModule: path.written)
                }
                return nil
            }
        }
    }

    /// Every reason a whole stack is unusable, as one guard.
    public static func guardFor(_ failure: PAMStackFailure, file: String?) -> PAMGuard {
        let origin = failure.origin ?? PAMOrigin(file: file ?? PAMStackReader.configurationDirectory, line: 0)
        switch failure.reason {
        case let .unreadableInclude(path): return PAMGuard(name: "(unreadable:\(path))", origin: origin)
        case .unreadableLine: return PAMGuard(name: "(unreadable:\(origin.file))", origin: origin)
        case let .badModuleName(path): return PAMGuard(name: "(bad-module-name:\(path))", origin: origin)
        case .includeWithoutName: return PAMGuard(name: "(include-without-name)", origin: origin)
        case let .includedTooDeep(path): return PAMGuard(name: "(nested-too-deep:\(path))", origin: origin)
        case .noStack: return PAMGuard(name: "(no-stack)", origin: origin)
        }
    }

    private static func name(of failure: PAMRuleFailure) -> String {
        switch failure {
        case let .unreadableStack(path): return "(unreadable:\(path))"
        case let .nestedTooDeep(path): return "(nested-too-deep:\(path))"
        case let .unknownType(type): return "(unknown-type:\(type))"
        case .missingControl: return "(no-control)"
        case .missingModule: return "(no-module)"
        }
    }

    /// A success of an earlier rule of the same file (the same reading of
    /// it), other than pam_pingate.so's, passes over the rule at `index`.
    static func isJumpedOverByAPasswordSuccess(_ index: Int, of rules: [PAMRule]) -> Bool {
        rules[..<index].indices.contains { earlier in
            rules[earlier].reading == rules[index].reading && !isPinGate(rules[earlier])
                && rules.skipped(bySuccessOf: earlier).contains(index)
        }
    }
}
