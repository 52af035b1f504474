import Foundation
import Testing

/// One layer touches C: in the libraries PinGateCore and PinGateCLI only
/// Sources/PinGateCore/System/ imports Glibc; every other file reaches the
/// system through its typed wrappers. Foundation would bring Glibc back in
/// (and is not wanted in these targets at all), so it counts too. The
/// executables' own targets may import what they need.
@Suite("only System/ imports Glibc")
struct SystemImportTests {
    static let repository = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
    static let checkedTargets = ["Sources/PinGateCore", "Sources/PinGateCLI"]
    static let systemFolder = "Sources/PinGateCore/System/"
    static let forbiddenModules: Set<String> = ["Glibc", "SwiftGlibc", "Foundation", "FoundationEssentials"]

    struct MissingFolder: Error { let path: String }

    /// The module an `import` line names ("@preconcurrency import struct
    /// Glibc.stat" → "Glibc"); nil for any other line.
    static func importedModule(_ line: Substring) -> String? {
        var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })[...]
        // Attributes and access levels may come first: @_exported, @preconcurrency, public, …
        while let word = words.first, word != "import" {
            guard word.hasPrefix("@") || ["public", "package", "internal", "fileprivate", "private"].contains(word) else { return nil }
            words = words.dropFirst()
        }
        words = words.dropFirst()
        // A scoped import names a kind first: import struct Glibc.stat.
        if let kind = words.first, ["struct", "class", "enum", "protocol", "typealias", "func", "var", "let"].contains(kind) {
            words = words.dropFirst()
        }
        return words.first.flatMap { $0.split(separator: ".").first.map(String.init) }
    }

    /// "path:line: import X" for each forbidden import under `root`'s
    /// checked targets, outside System/; paths relative to `root`.
    static func violations(under root: String) throws -> [String] {
        var found: [String] = []
        for target in checkedTargets {
            let directory = root + "/" + target
            guard let enumerator = FileManager.default.enumerator(atPath: directory) else {
                throw MissingFolder(path: directory)
            }
            for case let relative as String in enumerator where relative.hasSuffix(".swift") {
                let path = target + "/" + relative
                if path.hasPrefix(systemFolder) { continue }
                let text = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
                for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    if let module = importedModule(line), forbiddenModules.contains(module) {
                        found.append("\(path):\(index + 1): import \(module)")
                    }
                }
            }
        }
        return found.sorted()
    }

    @Test("no file of PinGateCore or PinGateCLI outside System/ imports Glibc or Foundation")
    func onlySystemImportsGlibc() throws {
        let found = try Self.violations(under: Self.repository)
        #expect(found.isEmpty, "use or add a wrapper in \(Self.systemFolder) instead: \(found.joined(separator: "; "))")
    }

    @Test("a planted import in a copy of the sources is found, and one in System/ is not")
    func plantedImportIsFound() throws {
        let files = FileManager.default
        let copy = files.temporaryDirectory.appendingPathComponent("pingate-imports-\(UUID().uuidString)").path
        defer { try? files.removeItem(atPath: copy) }
        try files.createDirectory(atPath: copy + "/Sources", withIntermediateDirectories: true)
        for target in Self.checkedTargets {
            try files.copyItem(atPath: Self.repository + "/" + target, toPath: copy + "/" + target)
        }
        #expect(try Self.violations(under: copy).isEmpty)

        func plant(_ line: String, in path: String) throws {
            let text = try String(contentsOfFile: copy + "/" + path, encoding: .utf8)
            try (line + "\n" + text).write(toFile: copy + "/" + path, atomically: true, encoding: .utf8)
        }
        try plant("import Glibc", in: "Sources/PinGateCore/Store/Store.swift")
        try plant("@preconcurrency import struct Foundation.Date", in: "Sources/PinGateCLI/Support/Output.swift")
        try plant("import Glibc", in: "Sources/PinGateCore/System/Errno.swift")
        #expect(try Self.violations(under: copy) == [
            "Sources/PinGateCLI/Support/Output.swift:1: import Foundation",
            "Sources/PinGateCore/Store/Store.swift:1: import Glibc",
        ])
    }

    @Test("import lines are read with their attributes and scopes; other lines are not imports")
    func importLines() {
        #expect(Self.importedModule("import Glibc") == "Glibc")
        #expect(Self.importedModule("  @_exported public import Foundation") == "Foundation")
        #expect(Self.importedModule("import func Glibc.getuid") == "Glibc")
        #expect(Self.importedModule("import PinGateCore") == "PinGateCore")
        #expect(Self.importedModule("// import Glibc") == nil)
        #expect(Self.importedModule("let x = 1") == nil)
    }
}
