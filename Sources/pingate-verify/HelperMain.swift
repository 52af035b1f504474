import CPinGateContract
import Glibc
import PinGateCore

/// The helper's flow: arguments (root only), stdin checks, the request, the
/// caller rules (only at the machine — but for the owner's plain status —
/// then only the owner), then the Verifier.
/// Every request ends in exactly one answer.
enum HelperMain {
    /// A run's first answer, and for a status asked with then=verify that
    /// found a credential, the verify that may follow (FollowUp.swift).
    struct Served {
        let answer: HelperAnswer
        /// How the answers go back (`CallerLink.send`).
        var link: CallerLink = .spawned
        var followUp: FollowUp?
    }

    static func run(arguments: [String], seams: TestSeams) -> Served {
        let realUID = getuid()
        let options: RootOptions
        switch RootOptions.parse(arguments, callerUID: realUID) {
        case let .success(parsed): options = parsed
        case let .failure(refusal): return Served(answer: refuse(refusal.message, detail: "uid \(realUID)"))
        }
        guard !FileDescriptor.standardInput.isTerminal else {
            return Served(answer: refuse("stdin is a terminal: pingate-verify is a helper for pam_pingate.so; use 'pingate' instead", detail: "uid \(realUID)"))
        }
        let link: CallerLink
        if options.servesSocket {
            do {
                link = .socket(try SocketPeer.of(.standardInput, type: SocketPeer.sequentialPacket))
            } catch {
                return Served(answer: refuse("--socket needs stdin to be a connection to pingate-verify.socket (a unix seqpacket socket): \(error)", detail: "uid \(realUID)"))
            }
        } else {
            link = .spawned
        }
        let callerUID = link.callerUID
        let request: HelperRequest
        let input = link.readRequest(from: .standardInput, until: link.firstRequestDeadline)
        if case .socket = link, input.isEmpty {
            let message = "no request within \(PINGATE_SOCKET_REQUEST_SECONDS) s of the connection"
            return Served(answer: refuse(message, detail: "uid \(callerUID)"), link: link)
        }
        switch parse(input, callerUID: callerUID) {
        case let .success(parsed): request = parsed
        case let .failure(refusal): return Served(answer: refusal.answer, link: link)
        }
        let answer = answer(request, options: options, link: link, seams: seams)
        let followsUp = request.followUp == .verify && answer.exitCode == .ok
        return Served(answer: answer, link: link, followUp: followsUp ? FollowUp(user: request.user, options: options, link: link) : nil)
    }

    struct Refusal: Error { let answer: HelperAnswer }

    /// Parses what was read; the raw request is wiped when this returns,
    /// before any KDF runs (the request keeps its own copy of the secret).
    static func parse(_ input: consuming RequestInput, callerUID: uid_t) -> Result<HelperRequest, Refusal> {
        switch consume input {
        case .tooLarge:
            return .failure(Refusal(answer: refuse("request larger than \(HelperRequest.maximumSize) bytes", detail: "uid \(callerUID)")))
        case let .complete(bytes):
            do {
                return .success(try bytes.withUnsafeBytes { try HelperRequest.parsing($0) })
            } catch {
                return .failure(Refusal(answer: refuse("bad request: \(error)", detail: "uid \(callerUID)")))
            }
        }
    }

    /// The answer to one parsed request: pingate.conf, the caller rules, then
    /// the Verifier. A follow-up verify goes through all of it again.
    static func answer(_ request: borrowing HelperRequest, options: RootOptions, link: CallerLink, seams: TestSeams) -> HelperAnswer {
        let callerUID = link.callerUID
        // Where a PIN is offered is pingate.conf's to say (services), and it
        // is said first: a service outside the list (sshd, through
        // common-auth) learns nothing, not even whether the user exists, and
        // costs no user lookup, logind or store.
        let policy: Policy
        do {
            policy = try ConfigParser.load(path: options.configPath)
        } catch {
            SystemLog.write(.error, "configuration error: \(error) (caller_uid=\(callerUID))")
            return HelperAnswer(.error, "\(error)")
        }
        if let service = request.service, !policy.allows(service: service) {
            return HelperAnswer(StatusOutcome.notOffered(service: service))
        }
        // Only at the machine, for every operation and every path (the
        // module, `pingate verify` and `change`, the lock screen), before
        // the user is looked up and the store is touched: nothing is counted
        // for a remote guess, and a remote caller gets the same answer for a
        // name nobody has as for an enrolled user, so it cannot probe which
        // accounts exist. The rule judges the caller, never the target.
        let caller = CallerFacts(request: request, realUID: callerUID, ownPID: link.judgedPID)
        let claims = RequestClaims(request: request, callerUID: callerUID)
        var verdict = LocalityRule(userManagerCallers: policy.userManagerCallers).judge(caller)
        // A socket's peer judged by its pid: only if that pid still names it.
        if verdict == .atTheMachine, !link.callerStillConnected {
            verdict = .elsewhere("the caller ended before it was judged")
        }
        // The one exception: the owner's own read-only question (`pingate
        // status` over ssh). It reveals only the caller's own counters (the
        // owner rule below still holds) and counts, spends and locks nothing.
        if case let .elsewhere(reason) = verdict, !request.isOwnersQuestion {
            let judged = caller.pid == 0 ? getpid() : caller.pid
            HelperOperations.log(.notLocal("\(reason); judged pid \(judged)"), operation: request.operation.rawValue, fields: claims.logFields)
            return HelperAnswer(StatusOutcome.notLocal(reason))
        }
        // A user may spend, or learn about, only their own attempts. Checked
        // before the store is touched, so the answer is the same whether or
        // not the other user exists or is enrolled.
        guard let target = SystemUser.lookup(name: request.user),
              callerUID == 0 || target.uid == callerUID
        else {
            // The name is what the request says, perhaps no user's at all:
            // from a non-root caller a claim, and quoted either way.
            let user = "\(RequestClaims.fieldPrefix(callerUID: callerUID))user=\(RequestClaims.quoted(request.user))"
            return refuse("a user may only ask about their own PIN", detail: "\(user) caller_uid=\(callerUID)")
        }
        let context = RequestContext(claims: claims, target: target, caller: caller, atTheMachine: verdict == .atTheMachine)
        guard caller.uid == 0 || caller.uid == target.uid else {
            return refuse("caller_uid \(caller.uid) is not the user's", detail: context.logFields)
        }
        return HelperOperations(options: options, policy: policy, seams: seams).perform(request, context: context)
    }

    /// A request as read: whole (in a `Secret`, since it carries the secret),
    /// or over the limit.
    enum RequestInput: ~Copyable {
        case complete(Secret)
        case tooLarge

        /// Nothing came: EOF at once, or the deadline passed first.
        var isEmpty: Bool {
            switch self {
            case let .complete(request): return request.isEmpty
            case .tooLarge: return false
            }
        }
    }

    /// Reads `descriptor` to EOF straight into a `Secret`, or until
    /// `deadline` (then what came so far is dropped: an unfinished request is
    /// none, and parses as an empty one). With `messages`, at most that many
    /// reads: a message of a SOCK_SEQPACKET socket is one read, and the
    /// kernel drops what of it does not fit (read as over the limit).
    static func readRequest(from descriptor: FileDescriptor, until deadline: Deadline? = nil, messages: Int = .max) -> RequestInput {
        var request = Secret(capacity: HelperRequest.maximumSize + 1)
        var reads = 0
        while !request.isFull, reads < messages {
            if let deadline, !descriptor.waitReadable(until: deadline) { return .complete(Secret(capacity: 1)) }
            let count = try? request.appendWritten { try descriptor.read(into: $0) }
            reads += 1
            guard let count, count > 0 else { break }
        }
        guard request.count <= HelperRequest.maximumSize else { return .tooLarge }
        return .complete(request)
    }

    static func refuse(_ message: String, detail: String) -> HelperAnswer {
        SystemLog.write(.warning, "refused: \(message) (\(detail))")
        return .refused(message)
    }
}

extension HelperRequest {
    /// `pingate status` as a user runs it: a status that names no service
    /// and asks for no verify to follow. No PIN is asked on its answer, so
    /// it is answered wherever the caller is, read only (HelperOperations),
    /// and still only about the caller's own record (docs/design.md,
    /// "Only at the machine, on every path").
    var isOwnersQuestion: Bool { operation == .status && service == nil && followUp == nil }
}

/// Who asked, and from where: what a request says of itself, for the log.
///
/// The caller's uid is a fact the helper checked. The user's name, the
/// service, tty and remote host are whatever the caller wrote: from root
/// (the PAM module under sudo or login) they are PAM's items, but any user
/// can run the helper and write `service=sudo tty=tty1`. So a non-root
/// caller's are logged as `claimed_…`, and a reader of the log can tell a
/// fact from a claim. (The request's secrets stay with the request.)
struct RequestClaims {
    let user: String
    let service: String?
    let tty: String?
    let remoteHost: String?
    let callerUID: uid_t

    init(request: borrowing HelperRequest, callerUID: uid_t) {
        user = request.user
        service = request.service
        tty = request.tty
        remoteHost = request.remoteHost
        self.callerUID = callerUID
    }

    /// The fields of a request refused before its user was looked up: the
    /// name as written, quoted, since no lookup vouched for it.
    var logFields: String { "\(RequestClaims.fieldPrefix(callerUID: callerUID))user=\(RequestClaims.quoted(user)) \(fieldsAfterTheUser)" }

    /// service, tty, rhost and the caller's uid.
    var fieldsAfterTheUser: String {
        let prefix = RequestClaims.fieldPrefix(callerUID: callerUID)
        let service = service.map(RequestClaims.value) ?? "?"
        let tty = tty.map(RequestClaims.value) ?? "?"
        let rhost = remoteHost.map { " \(prefix)rhost=\(RequestClaims.value($0))" } ?? ""
        return "\(prefix)service=\(service) \(prefix)tty=\(tty)\(rhost) caller_uid=\(callerUID)"
    }

    /// A caller-written value as it is when it cannot be read as more than
    /// one field (`sudo`, `pts/3`, `:0`), else `quoted` (`"sudo caller_uid=0"`).
    static func value(_ text: String) -> String {
        let plain = !text.isEmpty && !text.unicodeScalars.contains { $0 == " " || $0 == "\"" || $0 == "\\" || $0 == "=" }
        return plain ? text : quoted(text)
    }

    /// "claimed_" for a non-root caller's fields, nothing for root's.
    static func fieldPrefix(callerUID: uid_t) -> String { callerUID == 0 ? "" : "claimed_" }

    /// `"value"`, its quotes and backslashes escaped: for a name no lookup
    /// vouched for, which may hold spaces and quotes that would otherwise
    /// read as further fields (`x caller_uid=0`).
    static func quoted(_ value: String) -> String {
        // By scalar: a quote followed by a combining mark is one Character.
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for scalar in value.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { quoted.append("\\") }
            quoted.append(scalar)
        }
        quoted.append("\"")
        return String(quoted)
    }
}

/// A request whose user was looked up: the log fields of every answer after that.
struct RequestContext {
    let claims: RequestClaims
    let target: SystemUser
    /// The facts the locality rule judged.
    let caller: CallerFacts
    /// Whether the locality rule found the caller at the machine (only the
    /// owner's own read-only status gets this far from elsewhere).
    var atTheMachine = true

    var logFields: String { "user=\(target.name) uid=\(target.uid) \(claims.fieldsAfterTheUser)" }
}
