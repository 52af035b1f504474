import PinGateCore

/// Pattern entry on a terminal: draw with the arrow keys or h/j/k/l, Space
/// takes the cell under the cursor, Backspace undoes, Enter finishes; or type
/// the cells (`1-5-9-6`) and the path is drawn as you type. The gap rule is
/// applied live. Esc, Ctrl-C, Ctrl-D or Enter on nothing cancel.
///
/// Redraws use relative cursor movement only (no ncurses, no screen clear), so
/// the pad works in any ANSI terminal of at least 80×24.
struct PatternPad {
    let terminal: TerminalIO
    let grid: PatternGrid
    let minimumCells: Int

    private static var help: [String] {
        [
            L("arrows or h/j/k/l move · Space takes a cell · Enter finishes"),
            L("or type the cells, e.g. 1-5-9-6 · Backspace undoes · Esc cancels"),
        ]
    }

    /// Reads one pattern; returns its text (`R:c1-c2-…` when drawn, the typed
    /// text when typed), or nil if the user cancelled.
    func read(title: String) throws -> Secret? {
        try TerminalMode.raw.with(descriptor: terminal.input) {
            var state = State(grid: grid)
            defer { state.path.wipe(); state.typed.removeAll() }
            terminal.write("\u{1B}[?25l" + title + "\n")
            var shown = 0
            let keys = KeyReader(descriptor: terminal.input)
            while true {
                shown = redraw(state, replacing: shown)
                state.message = ""
                switch keys.next() {
                case .escape, .interrupt, .endOfInput:
                    finish(replacing: shown, note: L("cancelled"))
                    return nil
                case .enter:
                    let cellCount = state.withCurrentPath { $0.cells.count }
                    if cellCount == 0, state.typed.isEmpty {
                        finish(replacing: shown, note: L("cancelled"))
                        return nil
                    }
                    guard cellCount >= minimumCells else {
                        state.message = LP("a pattern needs at least %d cell", "a pattern needs at least %d cells", minimumCells)
                        terminal.bell()
                        continue
                    }
                    // A drawn path is already normalised: the core writes its canonical text.
                    let text = try state.typed.isEmpty
                        ? Pattern(grid: grid, drawnCells: state.path.cells, minimumCells: minimumCells).canonicalText()
                        : state.typed.extracting(0..<state.typed.count)
                    finish(replacing: shown, note: L("pattern entered"))
                    return text
                case let key:
                    state.apply(key, bell: terminal.bell)
                }
            }
        }
    }

    /// Redraws the pad over its previous `replacing` lines; returns the line count.
    private func redraw(_ state: borrowing State, replacing previous: Int) -> Int {
        var picture = PatternPicture(grid: grid)
        picture.cursor = state.typed.isEmpty ? state.cursor : nil
        let pictureLines = state.withCurrentPath { path in path.cells.withUnsafeBytes { picture.lines(of: $0) } }
        // Cursor-up counts lines, so none may wrap: fit the (translated) text
        // to 79 columns by display width, where a CJK character takes two.
        let help = PatternPad.help.flatMap { Localization.wrapped($0, width: 79) }
        let lines = help + [""] + pictureLines + [""] + Localization.wrapped(state.message, width: 79)
        var text = previous > 0 ? "\u{1B}[\(previous)A" : ""
        for line in lines { text += "\r\u{1B}[K" + line + "\n" }
        terminal.write(text)
        return lines.count
    }

    /// Replaces the pad with one line, so the drawn path does not stay on screen.
    private func finish(replacing previous: Int, note: String) {
        var text = "\u{1B}[\(previous)A\r\u{1B}[J"
        text += "    (\(note))\n\u{1B}[?25h"
        terminal.write(text)
    }

    /// The pad's state between keys.
    private struct State: ~Copyable {
        let grid: PatternGrid
        var cursor: (row: Int, column: Int)
        var path: PatternPath
        var typed = Secret(capacity: 128)
        var message = ""

        init(grid: PatternGrid) {
            self.grid = grid
            cursor = (grid.size / 2, grid.size / 2)
            path = PatternPath(grid: grid)
        }

        /// Lends `body` the drawn path, or the one the typed text describes.
        func withCurrentPath<Result>(_ body: (borrowing PatternPath) -> Result) -> Result {
            guard !typed.isEmpty else { return body(path) }
            return body(PatternPath.fromTyped(typed, grid: grid))
        }

        mutating func apply(_ key: Key, bell: () -> Void) {
            let last = grid.size - 1
            switch key {
            case .up, .byte(UInt8(ascii: "k")): cursor.row = max(0, cursor.row - 1)
            case .down, .byte(UInt8(ascii: "j")): cursor.row = min(last, cursor.row + 1)
            case .left, .byte(UInt8(ascii: "h")): cursor.column = max(0, cursor.column - 1)
            case .right, .byte(UInt8(ascii: "l")): cursor.column = min(last, cursor.column + 1)
            case .byte(UInt8(ascii: " ")):
                guard typed.isEmpty else { bell(); return }
                if !path.take(cursor.row * grid.size + cursor.column + 1) {
                    message = L("that cell is already in the pattern")
                    bell()
                }
            case let .byte(byte) where (0x30...0x39).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ","):
                guard path.cells.isEmpty, typed.append(byte) else { bell(); return }
                if !PatternPath.fromTyped(typed, grid: grid).isValid {
                    message = L("a cell is repeated or outside the grid")
                }
            case .backspace:
                if typed.isEmpty { path.undo() } else { typed.removeLast() }
            case .clearLine:
                path.wipe()
                typed.removeAll()
            default:
                bell()
            }
        }
    }
}
