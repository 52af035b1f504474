import CLocalization
@_exported import PinGateText

/// The CLI's words in the user's language (PinGateText's `L` and `LP`), and
/// how wide they are on a terminal. `--json` output, syslog lines and the
/// helper's protocol stay English.
public enum Localization {
    /// Once, first thing: the user's locale and the catalogues.
    public static func start() { TextDomain.start() }

    /// Terminal columns `text` takes: 2 per CJK character, 0 for combining
    /// marks and escape sequences (ESC [ … letter), per wcwidth.
    static func displayWidth(_ text: String) -> Int {
        var width = 0
        var inEscape = false
        for scalar in text.unicodeScalars {
            if inEscape {
                if scalar.properties.isAlphabetic { inEscape = false }
                continue
            }
            if scalar == "\u{1B}" { inEscape = true; continue }
            // wchar_t is Int32 on x86_64 and UInt32 on aarch64; a scalar fits either.
            width += max(0, Int(clocalization_wcwidth(wchar_t(truncatingIfNeeded: scalar.value))))
        }
        return width
    }

    /// `line` cut into lines of at most `width` columns: at a space (which is
    /// dropped) or after a double-width character, since Chinese has no spaces;
    /// a word longer than `width` is cut where it reaches it.
    static func wrapped(_ line: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        var cut: String.Index? = nil   // where `current` may be broken
        var cutDropsSpace = false
        for character in line {
            let characterWidth = displayWidth(String(character))
            // Break until `character` fits: at the last cut, else (a word
            // longer than the line) right here.
            while displayWidth(current) + characterWidth > width, !current.isEmpty {
                if let at = cut, at > current.startIndex {
                    lines.append(String(current[..<at]))
                    current = String(current[(cutDropsSpace ? current.index(after: at) : at)...])
                    while current.first == " " { current.removeFirst() }
                } else {
                    lines.append(current)
                    current = ""
                }
                cut = nil
            }
            if character == " " {
                // The space a line was just broken at: dropped, not carried over.
                if current.isEmpty, !lines.isEmpty { continue }
                cut = current.endIndex
                cutDropsSpace = true
            }
            current.append(character)
            if characterWidth == 2 {
                cut = current.endIndex
                cutDropsSpace = false
            }
        }
        return current.isEmpty && !lines.isEmpty ? lines : lines + [current]
    }

    /// `text` followed by spaces up to `width` columns.
    static func padded(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - displayWidth(text)))
    }
}

