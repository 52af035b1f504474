/// The text `pingate enable` writes into a service's stack file, and how
/// `pingate disable` finds it again. Pure text in, text out: the file system
/// is `PAMServiceSwitch`'s.
public enum PAMEnableText {
    /// The comment above every line `pingate enable` inserts.
    public static let marker = "# Added by pingate enable; pingate disable removes it."
    /// The comments older releases (install.sh --enable) wrote: still theirs to take out.
    static let olderMarkers = ["# Added by PinGate's install.sh --enable; install.sh --disable or --uninstall removes it."]

    /// The first line of a file `pingate enable` made because libpam read
    /// another one for the service (`other`, or the distribution's file in
    /// /usr/lib/pam.d): `pingate disable` deletes the file, and libpam
    /// reads `source` again — with whatever updates it had meanwhile.
    public static func createdMarker(from source: String) -> String {
        "# Created by pingate enable from \(source), which libpam used for this service; pingate disable removes it."
    }
    static let createdPrefixes = ["# Created by pingate enable from ", "# Created by PinGate's install.sh --enable from "]

    /// The pam_unix line an older install.sh added for swaylock and hyprlock:
    /// a password there skipped the rest of the stack, and nullok let an
    /// empty password in.
    public static let olderLockerUnixLine = "auth       sufficient pam_unix.so use_first_pass nullok"

    /// `text` with the marker and `line` inserted before its line number
    /// `lineNumber` (1-based; past the end appends).
    public static func inserting(_ line: String, before lineNumber: Int, into text: String) -> String {
        var lines = splitLines(text)
        let at = min(max(lineNumber - 1, 0), lines.count)
        lines.insert(contentsOf: [marker, line], at: at)
        return joinLines(lines)
    }

    /// `text` without the blocks `pingate enable` (or an older install.sh)
    /// inserted: each marker and the PinGate lines right after it.
    public static func removingInsertedLines(from text: String) -> String {
        var kept: [String] = []
        var inside = false
        for line in splitLines(text) {
            if line == marker || olderMarkers.contains(line) {
                inside = true
                continue
            }
            if inside && isInsertedRule(line) { continue }
            inside = false
            kept.append(line)
        }
        return joinLines(kept)
    }

    /// The file was made whole by `pingate enable` (its first line says so).
    public static func isCreated(_ text: String) -> Bool {
        let first = splitLines(text).first ?? ""
        return createdPrefixes.contains { first.hasPrefix($0) }
    }

    /// The file a created file was made from, as its first line names it.
    public static func createdSource(_ text: String) -> String? {
        let first = splitLines(text).first ?? ""
        guard let prefix = createdPrefixes.first(where: { first.hasPrefix($0) }) else { return nil }
        let rest = first.dropFirst(prefix.count)
        return rest.firstIndex(of: ",").map { String(rest[..<$0]) }
    }

    /// A marker of any release is in `text`.
    public static func hasMarker(_ text: String) -> Bool {
        splitLines(text).contains { $0 == marker || olderMarkers.contains($0) }
    }

    /// `auth <control> pam_pingate.so …` (the control a word or `[…]`), or
    /// the older locker's pam_unix line.
    private static func isInsertedRule(_ line: String) -> Bool {
        if line == olderLockerUnixLine { return true }
        guard line.hasPrefix("auth ") || line.hasPrefix("auth\t") else { return false }
        var rest = line.dropFirst(4).drop { $0 == " " || $0 == "\t" }
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return false }
            rest = rest[rest.index(after: close)...]
        } else {
            rest = rest.drop { $0 != " " && $0 != "\t" }
        }
        let module = rest.drop { $0 == " " || $0 == "\t" }.prefix { $0 != " " && $0 != "\t" }
        return module == "pam_pingate.so"
    }

    /// Lines without their newlines; a last line without one is kept as is
    /// (`joinLines` gives it one: every stack file ends in a newline).
    static func splitLines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    static func joinLines(_ lines: [String]) -> String {
        lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }
}
