import PinGateCore

/// status, verify and change: each turns a request into a Verifier call and
/// logs what happened (never the secret).
struct HelperOperations {
    let options: RootOptions
    /// pingate.conf, read once by HelperMain (which applied `services`).
    let policy: Policy
    let seams: TestSeams

    func perform(_ request: borrowing HelperRequest, context: RequestContext) -> HelperAnswer {
        let uid = UInt32(context.target.uid)
        let store = Result { Store(location: try StoreLocation.setgidHelper(directory: options.storeDirectory)) }
        // An unreadable record has no marks; its verification fails anyway.
        let openedWithPIN = { ((try? store.get()).flatMap { try? $0.readRecord(uid: uid) })?.pinOpenedSessions ?? .none }
        if let reason = FirstSignInRule().passwordRequired(service: request.service, uid: context.target.uid, policy: policy,
                                                           openedWithPIN: openedWithPIN) {
            Self.log(.passwordFirst(reason), operation: request.operation.rawValue, fields: context.logFields)
            return HelperAnswer(StatusOutcome.passwordFirst(reason))
        }
        let verifier: Verifier
        switch store {
        case let .success(store):
            verifier = Verifier(store: store, policy: policy, faultHook: seams.faultHook)
        case let .failure(error):
            SystemLog.write(.error, "store error: \(error) (\(context.logFields))")
            return HelperAnswer(.error, "\(error)")
        }
        switch request.operation {
        case .status:
            // The owner's plain status reads the record without opening it
            // for writing and writes nothing (no timeout restart).
            var (outcome, notice) = verifier.statusAndNotice(uid: uid, readOnly: request.isOwnersQuestion)
            // The PIN's length is for a question at the machine (a one-field
            // lock screen submits at the last digit); from elsewhere (the
            // owner's status over ssh) it would only tell whoever holds her
            // account how few digits there are to guess at the seat.
            if !context.atTheMachine, case let .enrolled(kind, gridSize, _, failures) = outcome {
                outcome = .enrolled(kind: kind, gridSize: gridSize, pinLength: 0, failures: failures)
            }
            if case let .storeError(message) = outcome { SystemLog.write(.error, "store error: \(message) (\(context.logFields))") }
            // The notice the owner is to see before typing; a status never spends it.
            return finished(HelperAnswer(outcome), request: request, verifier: verifier, uid: uid, context: context)
                .telling(notice)
        case .verify:
            let outcome: VerifyOutcome
            switch request.secret {
            case let .some(secret): outcome = verifier.verify(uid: uid, input: secret, sessionOpener: sessionOpener(request, context: context))
            case .none: return .refused("verify needs a secret")
            }
            Self.log(outcome, operation: "verify", fields: context.logFields)
            return finished(HelperAnswer(outcome), request: request, verifier: verifier, uid: uid, context: context)
        case .change:
            guard let kind = request.newKind else {
                return .refused("change needs the current and the new credential")
            }
            let outcome: VerifyOutcome
            switch request.newSecret {
            case let .some(new):
                let replacement: Credential
                do {
                    replacement = try Credential(parsing: new, kind: kind, gridSize: request.newGridSize ?? policy.patternGrid, policy: policy)
                    if let weakness = replacement.weakness() {
                        return HelperAnswer(.malformed, "the new PIN is too easy to guess: \(weakness)")
                    }
                } catch {
                    return HelperAnswer(.malformed, "the new \(kind): \(error)")
                }
                switch request.secret {
                case let .some(current): outcome = verifier.change(uid: uid, current: current, replacement: replacement)
                case .none: return .refused("change needs the current and the new credential")
                }
            case .none:
                return .refused("change needs the current and the new credential")
            }
            Self.log(outcome, operation: "change", fields: context.logFields)
            return finished(HelperAnswer(outcome), request: request, verifier: verifier, uid: uid, context: context)
        }
    }

    /// The process a PIN success marks (`PINOpenedSessions`): the caller of
    /// a service that opens sessions, when it may open one with this
    /// sign-in (`SessionOpenerRule`).
    private func sessionOpener(_ request: borrowing HelperRequest, context: RequestContext) -> ProcessInstance? {
        SessionOpenerRule().opener(service: request.service, caller: context.caller, policy: policy)
            .flatMap(ProcessInstance.running)
    }

    /// Every answer of the Verifier's ends here: a lockout names the
    /// credential's kind, and a success spends the notice the caller showed.
    private func finished(_ answer: HelperAnswer, request: borrowing HelperRequest, verifier: Verifier, uid: UInt32,
                          context: RequestContext) -> HelperAnswer {
        let answer = withCredentialKind(answer, verifier: verifier, uid: uid)
        if answer.exitCode == .ok, request.operation != .status {
            spendShownNotice(request.shownNotice, verifier: verifier, uid: uid, context: context)
        }
        return answer
    }

    /// After a success: the notice is spent only when the caller showed
    /// exactly what is unseen now. A status never spends it, so a job that
    /// asks cannot hide failed attempts from the owner.
    private func spendShownNotice(_ shown: FailureNotice?, verifier: Verifier, uid: UInt32, context: RequestContext) {
        guard let shown, let notice = try? verifier.takeNotice(uid: uid, shown: shown) else { return }
        SystemLog.write(.notice, "the owner was shown \(notice.failures) earlier failed attempt(s) before this success, the first at \(localTimeText(notice.firstAt, format: "%Y-%m-%d %H:%M:%S %z") ?? String(notice.firstAt)) (\(context.logFields))")
    }

    /// Locked and disabled answers name the credential's kind for the
    /// module's message; it costs one more read, only on those answers.
    private func withCredentialKind(_ answer: HelperAnswer, verifier: Verifier, uid: UInt32) -> HelperAnswer {
        guard answer.exitCode == .locked || answer.exitCode == .disabled,
              let record = try? verifier.store.readRecord(uid: uid) else { return answer }
        return answer.describingCredential(kind: record.kind, gridSize: record.gridSize)
    }

    /// The one log line of an answered request (HelperMain logs its
    /// not-local refusals here too, with the fields of a user not looked up).
    static func log(_ outcome: VerifyOutcome, operation: String, fields: String) {
        switch outcome {
        case .ok:
            SystemLog.write(.notice, "\(operation): success (\(fields))")
        case let .wrong(failures, _, lockedSeconds, disabled):
            let consequence = disabled ? ", credential disabled" : lockedSeconds > 0 ? ", locked for \(lockedSeconds) s" : ""
            SystemLog.write(.warning, "\(operation): wrong credential, failure \(failures)\(consequence) (\(fields))")
        case let .repeatedWrong(failures, _):
            SystemLog.write(.info, "\(operation): wrong credential, the same as the last one: not counted again, still \(failures) failure(s) (\(fields))")
        case let .locked(seconds, failures):
            SystemLog.write(.notice, "\(operation): refused, locked for \(seconds) s after \(failures) failures (\(fields))")
        case let .disabled(failures):
            SystemLog.write(.notice, "\(operation): refused, disabled after \(failures) failures (\(fields))")
        case .notEnrolled:
            SystemLog.write(.info, "\(operation): not enrolled (\(fields))")
        case let .notLocal(reason):
            SystemLog.write(.notice, "\(operation): refused, not at the machine: \(reason) (\(fields))")
        case let .passwordFirst(reason):
            SystemLog.write(.info, "\(operation): the password first: \(reason) (\(fields))")
        case .notOffered:  // answered before the user is known, and not logged (sshd would flood the log)
            break
        case .malformed:
            SystemLog.write(.info, "\(operation): input is not a well-formed credential, not counted (\(fields))")
        case let .storeError(message):
            SystemLog.write(.error, "\(operation): store error, failing closed: \(message) (\(fields))")
        }
    }
}
