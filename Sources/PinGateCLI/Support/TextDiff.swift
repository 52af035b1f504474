/// A unified diff of two small texts (stack files: tens of lines), for
/// `pingate enable --dry-run`: the longest common subsequence of their lines,
/// shown with up to `context` unchanged lines around each change.
enum TextDiff {
    static func unified(path: String, before: String?, after: String?, context: Int = 2) -> [String] {
        let old = lines(before), new = lines(after)
        // common[i][j]: the longest common subsequence of old[i...] and new[j...].
        var common = Array(repeating: Array(repeating: 0, count: new.count + 1), count: old.count + 1)
        for i in stride(from: old.count - 1, through: 0, by: -1) {
            for j in stride(from: new.count - 1, through: 0, by: -1) {
                common[i][j] = old[i] == new[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
            }
        }
        var edits: [(mark: Character, text: String)] = []
        var i = 0, j = 0
        while i < old.count || j < new.count {
            if i < old.count, j < new.count, old[i] == new[j] {
                edits.append((" ", old[i])); i += 1; j += 1
            } else if j < new.count, i == old.count || common[i][j + 1] >= common[i + 1][j] {
                edits.append(("+", new[j])); j += 1
            } else {
                edits.append(("-", old[i])); i += 1
            }
        }
        let changed = edits.indices.filter { edits[$0].mark != " " }
        guard !changed.isEmpty else { return [] }
        var output = ["--- " + (before == nil ? "/dev/null" : path), "+++ " + (after == nil ? "/dev/null" : path)]
        let shown = edits.indices.filter { index in changed.contains { abs($0 - index) <= context } }
        var hunks: [[Int]] = []
        for index in shown {
            if let last = hunks.last?.last, last + 1 == index { hunks[hunks.count - 1].append(index) } else { hunks.append([index]) }
        }
        // Lines of each text before edit `index`.
        func counted(_ range: Range<Int>, _ mark: Character) -> Int { edits[range].filter { $0.mark == " " || $0.mark == mark }.count }
        for hunk in hunks {
            let range = hunk.first! ..< hunk.last! + 1
            let oldCount = counted(range, "-"), newCount = counted(range, "+")
            let oldStart = counted(0 ..< range.lowerBound, "-") + (oldCount > 0 ? 1 : 0)
            let newStart = counted(0 ..< range.lowerBound, "+") + (newCount > 0 ? 1 : 0)
            output.append("@@ -\(oldStart),\(oldCount) +\(newStart),\(newCount) @@")
            output += hunk.map { String(edits[$0].mark) + edits[$0].text }
        }
        return output
    }

    private static func lines(_ text: String?) -> [String] {
        guard let text, !text.isEmpty else { return [] }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}
