/// A command's longer help, built from translated paragraphs and option
/// tables and wrapped by display width (a Chinese character takes two
/// columns), so that neither the source nor a translation carries line breaks.
enum HelpText {
    /// Columns of wrapped text: an 80-column terminal with room to spare.
    static let width = 76

    static func paragraph(_ text: String) -> String {
        Localization.wrapped(text, width: width).joined(separator: "\n")
    }

    /// "Options:" (or `heading`) then one row per option: the names in a
    /// column, each description wrapped beside them with a hanging indent.
    static func options(_ rows: [HelpRow], heading: String? = nil) -> String {
        let nameWidth = rows.map { Localization.displayWidth($0.names) }.max() ?? 0
        let indent = String(repeating: " ", count: 2 + nameWidth + 3)
        let lines = rows.map { row in
            let description = Localization.wrapped(row.description, width: width - indent.count)
            return "  " + Localization.padded(row.names, to: nameWidth + 3)
                + description.joined(separator: "\n" + indent)
        }
        return ([heading ?? L("Options:")] + lines).joined(separator: "\n")
    }

    /// "Global options:" (the same after every command's help): short rows,
    /// not wrapped, descriptions four columns after the longest names.
    static func globalOptions(_ rows: [HelpRow]) -> String {
        let nameWidth = rows.map { Localization.displayWidth($0.names) }.max() ?? 0
        let lines = rows.map { "  " + Localization.padded($0.names, to: nameWidth + 4) + $0.description }
        return ([L("Global options:")] + lines).joined(separator: "\n")
    }
}
