import PinGateCore

/// `pingate key seal [--pcr LIST] | load | status [--json] | unseal`: where
/// the machine key lives — a file in the store, or sealed by the TPM and
/// unsealed into memory once per boot (`KeySealing`).
///
/// JSON (`key status --json`), one object:
///
///     {"state": "file"|"sealed-loaded"|"sealed-not-loaded"|"missing",
///      "key_file": path|null, "sealed_key": path|null, "pcrs": [7]|null,
///      "loaded_key": path|null, "memory": "ramfs"|"tmpfs"|…|null,
///      "load_failure": {"cause": word, "detail": text}|null, "tcti": text}
struct KeyCommand: Command {
    static let name = "key"
    static var abstract: String { L("seal the machine key into the TPM, load it, show or undo it (root)") }
    static var discussion: String {
        HelpText.options(Action.allCases.map { HelpRow(names: $0.words, description: $0.help) }, heading: L("Commands:"))
            + "\n\n" + HelpText.paragraph(L("A copied disk or backup then holds only the sealed key, which no other TPM can open. The key is unsealed once per boot (the pingate-key service runs 'pingate key load'); sign-ins read it from memory, never the TPM. With --pcr the TPM also checks those PCRs: a firmware or Secure Boot update changes PCR 7, so run 'pingate key unseal' before such an update and seal again after it, or users re-enrol."))
    }
    static var exitStatuses: String? {
        HelpText.paragraph(L("Exit status: 0 ok; 2 usage; 3 not root; 5 the store, the key or the TPM failed (the message names the cause and the fix)."))
    }
    static let requiresRoot = true
    static var usage: String {
        Action.allCases.map { action in
            ([action.invocation] + action.options.map(\.usage)).joined(separator: " ")
        }.joined(separator: " | ")
    }

    struct Arguments: ArgumentGroup {
        let action = Positional("ACTION")
        let pcrs = Option<String>("--pcr", value: "LIST", help: L("bind the sealed key to these PCRs of the SHA-256 bank, e.g. 7 or 0,2,7 (default: none)"))
        let json = JSONOption(help: L("key status as one JSON object"))
        let wait = Option("--wait", value: "SECONDS", in: 0...300,
                          help: L("key load: wait up to SECONDS for the TPM to answer (at boot its device may come later); default 0"))
    }
    static let arguments = Arguments()

    enum Action: String, CaseIterable {
        case seal, load, status, unseal

        var words: String { "\(KeyCommand.name) \(rawValue)" }
        var invocation: String { "pingate " + words }

        var options: [ArgumentDeclaration] {
            switch self {
            case .seal: return KeyCommand.arguments.pcrs.declarations
            case .status: return KeyCommand.arguments.json.declarations
            case .load: return KeyCommand.arguments.wait.declarations
            case .unseal: return []
            }
        }

        var help: String {
            switch self {
            case .seal: return L("seals the machine key into the TPM (a sealed object under the owner's storage key), loads it into memory, and overwrites and removes the key file; again: seals to other PCRs")
            case .load: return L("unseals the key into memory (a ramfs at /run/pingate) for this boot, replacing what was loaded; a failure leaves no key loaded and is recorded for doctor")
            case .status: return L("says where the key lives, whether it is loaded, and why the last load failed")
            case .unseal: return L("writes the key back as the key file (root:pingate 0640) and removes the sealed key")
            }
        }
    }

    let action: Action
    let pcrs: [UInt8]
    let json: Bool
    let waitSeconds: Int
    let locations: Locations

    init(_ arguments: ParsedArguments) throws {
        let declared = Self.arguments
        let word = arguments[declared.action]
        guard let word, let action = Action(rawValue: word) else {
            throw CLIError.usage(L("key needs an action: seal, load, status or unseal"), arguments.usage)
        }
        self.action = action
        json = arguments[declared.json.flag]
        waitSeconds = try arguments.value(declared.wait) ?? 0
        let list = try arguments.value(declared.pcrs)
        pcrs = try list.map { try Self.parsePCRs($0, usage: arguments.usage) } ?? []
        let ownOptions = declared.pcrs.declarations + declared.json.declarations + declared.wait.declarations
        if let misplaced = ownOptions.first(where: { arguments.isGiven($0) && !action.options.map(\.name).contains($0.name) }) {
            let takers = Action.allCases.filter { $0.options.map(\.name).contains(misplaced.name) }.map(\.invocation)
            throw CLIError.usage(L("%s is for '%s' only", misplaced.name, takers.joined(separator: "', '")), arguments.usage)
        }
        locations = Locations(arguments)
        // The loaded key has one place, whatever --store says: seal, load and
        // unseal of another store would replace or remove the key every
        // sign-in of the installed store reads.
        var store = Substring(locations.storeDirectory)
        while store.count > 1 && store.hasSuffix("/") { store = store.dropLast() }
        if action != .status, store != StoreLocation.defaultDirectory {
            throw CLIError.usage(L("'key %s' works on the installed store %s only: the key it loads goes to %s, which every sign-in reads",
                                   action.rawValue, StoreLocation.defaultDirectory, StoreLocation.defaultLoadedKeyDirectory), arguments.usage)
        }
    }

    /// "7", "0,2,7", "0 7" → sorted PCR numbers of 0…23, each once.
    static func parsePCRs(_ text: String, usage: String) throws -> [UInt8] {
        let items = text.split(whereSeparator: { $0 == "," || $0 == " " })
        let numbers = items.compactMap { UInt8($0) }
        guard !items.isEmpty, numbers.count == items.count, numbers.allSatisfy({ $0 < 24 }) else {
            throw CLIError.usage(L("--pcr takes PCR numbers from 0 to 23 separated by commas, like 7 or 0,2,7; got '%s'", String(text.prefix(40))), usage)
        }
        return Array(Set(numbers)).sorted()
    }

    func run(caller: Caller) throws -> ExitStatus {
        let sealing = KeySealing(store: try locations.store(), tcti: try locations.policy().tpmTCTI)
        switch action {
        case .seal: try sealing.seal(pcrs: pcrs)
        case .load: try sealing.load(waitingSeconds: waitSeconds)
        case .unseal: try sealing.unseal()
        case .status:
            let report = try sealing.report()
            Output.line(json ? report.json.text : report.text)
        }
        return .ok
    }
}
