/// One line of the doctor's report.
struct Finding {
    enum Level: String { case ok, problem, note }
    let level: Level
    let message: String
    var fix: String? = nil

    var lines: [String] {
        // Tags padded to one display width, so messages line up in every language.
        let tags = [L("ok"), L("PROBLEM"), L("note")]
        let width = tags.map { Localization.displayWidth($0) }.max() ?? 7
        let tag = tags[level == .ok ? 0 : level == .problem ? 1 : 2]
        let indent = String(repeating: " ", count: width + 1)
        return [Localization.padded(tag, to: width) + " " + message] + (fix.map { [indent + L("fix: %s", $0)] } ?? [])
    }
}
