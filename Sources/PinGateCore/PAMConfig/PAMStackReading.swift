/// One pass of `PAMStackReader` over a service: libpam's two rule lists
/// (the service's and "other"'s) as `_pam_parse_conf_file` fills them, line
/// by line, following includes where they stand.
struct StackReading {
    let reader: PAMStackReader
    /// libpam files a service named "other" (any case) under "other"'s list.
    let serviceIsOther: Bool
    private(set) var serviceRules: [PAMRule] = []
    private(set) var otherRules: [PAMRule] = []
    private var readings = 0

    init(reader: PAMStackReader, serviceIsOther: Bool) {
        self.reader = reader
        self.serviceIsOther = serviceIsOther
    }

    enum Outcome {
        case read
        /// libpam abandons this file (`_pam_parse_conf_file` returns PAM_ABORT).
        case failure(PAMStackFailure)
    }

    /// Where a line is read, and for what.
    struct Place {
        let origin: PAMOrigin
        /// nil: every type (the service's own file, "other", an `@include` from them).
        let requested: PAMRuleType?
        let level: Int
        let depth: Int
        let intoOther: Bool
        let statementLine: Int
        let reading: Int
    }

    /// One file: its lines in order, then whether libpam read it to the end.
    mutating func parse(_ bytes: [UInt8], path: String, requested: PAMRuleType?, level: Int, depth: Int,
                        intoOther: Bool, statementLine: Int?) -> Outcome {
        readings += 1
        let reading = readings
        var assembler = PAMLineAssembler(bytes, dialect: reader.dialect)
        while true {
            switch assembler.next() {
            case .end:
                return .read
            case let .failure(problem, line):
                return .failure(PAMStackFailure(reason: .unreadableLine(problem), origin: PAMOrigin(file: path, line: line)))
            case let .line(line):
                let place = Place(origin: PAMOrigin(file: path, line: line.lineNumber), requested: requested, level: level,
                                  depth: depth, intoOther: intoOther, statementLine: statementLine ?? line.lineNumber, reading: reading)
                if case let .failure(failure) = parseLine(line.text, at: place) { return .failure(failure) }
            }
        }
    }

    /// One line, in the order `_pam_parse_conf_file` looks at its words.
    private mutating func parseLine(_ text: [UInt8], at place: Place) -> Outcome {
        var words = PAMTokenizer(text)
        var failure: PAMRuleFailure?
        var silent = false
        let type: PAMRuleType
        if var typeWord = words.next() {
            if typeWord.first == UInt8(ascii: "-") {
                silent = true
                typeWord.removeFirst()
            }
            // Debian's `@include NAME`: the rest of the line is not read.
            if typeWord.equalsIgnoringCase("@include") {
                return include(words.next(), substack: false, type: place.requested, actions: .undefined, control: nil, at: place)
            }
            if let known = PAMRuleType(typeWord) {
                type = known
            } else {
                type = place.requested ?? .auth
                failure = .unknownType(typeWord.text)
            }
        } else {
            type = place.requested ?? .auth
            failure = .unknownType("")
        }
        if let requested = place.requested, type != requested { return .read }

        var actions = PAMActions.undefined
        let controlWord = words.next()
        var isInclude = false
        if let controlWord {
            if let parsed = PAMActions.parsing(control: controlWord, dialect: reader.dialect) {
                actions = parsed
            } else {
                isInclude = true
            }
        } else {
            actions.setDefault(.bad)
            failure = failure ?? .missingControl
        }
        let pathWord = words.next()
        if isInclude, let controlWord {
            return include(pathWord, substack: controlWord.equalsIgnoringCase("substack"), type: type,
                           actions: actions, control: controlWord, at: place)
        }
        if pathWord == nil { failure = failure ?? .missingModule }
        let kind: PAMRule.Kind
        if let failure {
            kind = .failing(failure)
        } else {
            kind = .module(reader.modulePath(pathWord?.text ?? ""), silent: silent)
        }
        return add(kind, type: type, control: controlWord, actions: actions, arguments: words.remainingWords().map(\.text),
                   namedBy: pathWord?.text, at: place)
    }

    /// `include`, `substack` or `@include` of `name` (`type` nil: every type).
    private mutating func include(_ name: [UInt8]?, substack: Bool, type: PAMRuleType?, actions: PAMActions,
                                  control: [UInt8]?, at place: Place) -> Outcome {
        if substack, let type {
            if case let .failure(failure) = add(.substack(name?.text ?? ""), type: type, control: control, actions: actions,
                                                arguments: [], namedBy: name?.text, at: place, throughInclude: true) {
                return .failure(failure)
            }
        }
        guard let name = name?.text else {
            return .failure(PAMStackFailure(reason: .includeWithoutName, origin: place.origin))
        }
        let path = name.hasPrefix("/") ? name : PAMStackReader.configurationDirectory + "/" + name
        let level = place.level + (substack ? 1 : 0)
        let problem: PAMRuleFailure
        if level >= PAMStackReader.substackLevelLimit || place.depth + 1 >= reader.dialect.fileDepthLimit {
            // 1.7.0 gives up on the whole service at an `@include` too deep
            // that is read with every type (from the service's own file or
            // "other"); inside an `auth include` it is a rule that always
            // fails, as an include is (measured against Debian 13's libpam).
            if reader.dialect == .linuxPAM17, control == nil, type == nil {
                return .failure(PAMStackFailure(reason: .includedTooDeep(path), origin: place.origin))
            }
            problem = .nestedTooDeep(path)
        } else if let bytes = reader.readFile(path) {
            switch parse(bytes, path: path, requested: type, level: level, depth: place.depth + 1,
                         intoOther: place.intoOther, statementLine: place.statementLine) {
            case .read:
                return .read
            case let .failure(inner):
                // The process is gone, or (1.7.0) pam_start aborts: nothing of the service is read.
                switch inner.reason {
                case .includeWithoutName, .includedTooDeep: return .failure(inner)
                default: break
                }
                problem = .unreadableStack(path)
            }
        } else {
            problem = .unreadableStack(path)
        }
        guard let type else {
            return .failure(PAMStackFailure(reason: .unreadableInclude(path), origin: place.origin))
        }
        var failing = actions
        failing.setDefault(.bad)
        return add(.failing(problem), type: type, control: control, actions: failing, arguments: [], namedBy: nil, at: place,
                   throughInclude: true)
    }

    /// `_pam_add_handler`: every rule's module name must be one (else the
    /// file is abandoned); only auth rules are kept.
    private mutating func add(_ kind: PAMRule.Kind, type: PAMRuleType, control: [UInt8]?, actions: PAMActions,
                              arguments: [String], namedBy path: String?, at place: Place,
                              throughInclude: Bool = false) -> Outcome {
        let named = path ?? "<*unknown module*>"
        guard PAMModulePath.moduleName(named) != nil else {
            return .failure(PAMStackFailure(reason: .badModuleName(named), origin: place.origin))
        }
        guard type == .auth else { return .read }
        let rule = PAMRule(kind: kind, control: control?.text, actions: actions, arguments: arguments, level: place.level,
                           origin: place.origin, statementLine: place.statementLine,
                           throughInclude: throughInclude || place.depth > 0, reading: place.reading)
        if place.intoOther { otherRules.append(rule) } else { serviceRules.append(rule) }
        return .read
    }
}
