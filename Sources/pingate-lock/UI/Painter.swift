import CCairo
import Glibc
import PinGateCore
import PinGateLock

/// What one frame shows; the painter holds no state of its own.
struct Scene {
    enum Feedback { case none, checking, wrong(progress: Double) }

    var lock: LockScreen
    var clock: String
    var userName: String
    var message: String
    var messageIsAlert: Bool
    var feedback: Feedback
    var switchLabel: String?
    var passwordPlaceholder: String
}

/// Draws a scene with cairo and pango on the UI window, double-buffered
/// (cairo push/pop group) so nothing flickers. Pango picks fonts through
/// fontconfig, so CJK text finds Noto Sans CJK.
final class Painter {
    private let surface: OpaquePointer
    private var width: Int32, height: Int32

    /// Takes `surface` (destroyed with the painter): an Xlib window's or,
    /// on Wayland, an image in shared memory.
    init(surface: OpaquePointer, width: Int32, height: Int32) {
        self.surface = surface
        (self.width, self.height) = (width, height)
    }

    deinit { cairo_surface_destroy(surface) }

    func resize(width: Int32, height: Int32) {
        (self.width, self.height) = (width, height)
        if cairo_surface_get_type(surface) == CAIRO_SURFACE_TYPE_XLIB { cairo_xlib_surface_set_size(surface, width, height) }
    }

    /// Draws `scene`; `refusedPath` (a cell a byte) is the pattern just
    /// refused, drawn red while the feedback is `.wrong`.
    func draw(_ scene: Scene, refusedPath: borrowing Secret) {
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr); cairo_surface_flush(surface) }
        cairo_push_group(cr)
        background(cr)
        let layout = scene.lock.layout
        let unit = layout.unit
        // The password screen has no pad or grid: its rows move down to the
        // middle, over the switch button, which stays where the tap lands.
        let lift = scene.lock.mode == .password ? (layout.switchButton.y - layout.entry.y - layout.entry.height) / 2 : 0
        cairo_save(cr)
        cairo_translate(cr, 0, lift)
        text(cr, scene.clock, in: layout.clock, size: 56 * unit, color: Palette.text, weight: "Light")
        text(cr, scene.userName, in: layout.name, size: 18 * unit, color: Palette.dim)
        text(cr, scene.message, in: layout.message, size: 15 * unit,
             color: scene.messageIsAlert ? Palette.alert : Palette.dim)
        switch scene.lock.mode {
        case .pin: pinDots(cr, scene); pinPad(cr, scene)
        case .pattern: patternGrid(cr, scene, refusedPath: refusedPath)
        case .password: passwordField(cr, scene)
        }
        cairo_restore(cr)
        if let label = scene.switchLabel {
            let frame = layout.switchButton
            roundedRectangle(cr, frame, radius: frame.height / 2)
            set(cr, Palette.button)
            cairo_fill_preserve(cr)
            set(cr, Palette.outline)
            cairo_set_line_width(cr, 1.5 * unit)
            cairo_stroke(cr)
            text(cr, label, in: frame, size: 15 * unit, color: Palette.text)
        }
        cairo_pop_group_to_source(cr)
        cairo_paint(cr)
    }

    // MARK: parts

    private func background(_ cr: OpaquePointer) {
        let gradient = cairo_pattern_create_linear(0, 0, 0, Double(height))!
        cairo_pattern_add_color_stop_rgb(gradient, 0, 0.10, 0.12, 0.17)
        cairo_pattern_add_color_stop_rgb(gradient, 1, 0.05, 0.06, 0.09)
        cairo_set_source(cr, gradient)
        cairo_paint(cr)
        cairo_pattern_destroy(gradient)
    }

    private func shake(_ scene: Scene) -> Double {
        guard case let .wrong(progress) = scene.feedback, progress < 1 else { return 0 }
        return sin(progress * .pi * 8) * 12 * scene.lock.layout.unit * (1 - progress)
    }

    private func pinDots(_ cr: OpaquePointer, _ scene: Scene) {
        guard let pin = scene.lock.pin else { return }
        let layout = scene.lock.layout, unit = layout.unit
        let spacing = 30 * unit, radius = 8 * unit
        let wrong: Bool = { if case .wrong = scene.feedback { return true } else { return false } }()
        let checking: Bool = { if case .checking = scene.feedback { return true } else { return false } }()
        let first = layout.entry.midX - spacing * Double(pin.dotCount - 1) / 2 + shake(scene)
        for index in 0..<pin.dotCount {
            cairo_new_sub_path(cr)
            cairo_arc(cr, first + Double(index) * spacing, layout.entry.midY, radius, 0, 2 * .pi)
            if wrong {
                set(cr, Palette.alert); cairo_fill(cr)
            } else if checking || index < pin.digits.count {
                set(cr, Palette.text); cairo_fill(cr)
            } else {
                set(cr, Palette.dim); cairo_set_line_width(cr, 2 * unit); cairo_stroke(cr)
            }
        }
    }

    private func pinPad(_ cr: OpaquePointer, _ scene: Scene) {
        let unit = scene.lock.layout.unit
        for (key, frame) in scene.lock.layout.padKeys {
            cairo_new_sub_path(cr)
            cairo_arc(cr, frame.midX, frame.midY, frame.width / 2, 0, 2 * .pi)
            set(cr, Palette.button)
            cairo_fill_preserve(cr)
            set(cr, Palette.outline)
            cairo_set_line_width(cr, 1.5 * unit)
            cairo_stroke(cr)
            let label: String
            switch key {
            case let .digit(digit): label = String(digit)
            case .backspace: label = "⌫"
            case .clear: label = "✕"
            }
            text(cr, label, in: frame, size: 26 * unit, color: Palette.text)
        }
    }

    private func patternGrid(_ cr: OpaquePointer, _ scene: Scene, refusedPath: borrowing Secret) {
        guard let entry = scene.lock.pattern else { return }
        let wrong: Bool = { if case .wrong = scene.feedback { return true } else { return false } }()
        if wrong {
            patternPath(cr, scene, entry: entry, path: refusedPath, color: Palette.alert)
        } else {
            patternPath(cr, scene, entry: entry, path: entry.cells, color: Palette.accent)
        }
    }

    /// The grid with `path` (a cell a byte) drawn on it, read in place.
    private func patternPath(_ cr: OpaquePointer, _ scene: Scene, entry: PatternEntry, path: borrowing Secret, color: Palette.Color) {
        let layout = scene.lock.layout, unit = layout.unit
        if path.count > 0 {
            cairo_set_line_width(cr, 6 * unit)
            cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
            cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
            let start = layout.center(ofCell: Int(path[0]))
            cairo_move_to(cr, start.x, start.y)
            for index in 1..<path.count {
                let point = layout.center(ofCell: Int(path[index]))
                cairo_line_to(cr, point.x, point.y)
            }
            if let pointer = scene.lock.pointer, entry.isTracing { cairo_line_to(cr, pointer.x, pointer.y) }
            set(cr, color, alpha: 0.7)
            cairo_stroke(cr)
        }
        for cell in 1...(layout.gridSize * layout.gridSize) {
            let center = layout.center(ofCell: cell)
            let joined = path.withUnsafeBytes { $0.contains(UInt8(cell)) }
            cairo_new_sub_path(cr)
            cairo_arc(cr, center.x, center.y, layout.dotRadius * (joined ? 1.5 : 1), 0, 2 * .pi)
            set(cr, joined ? color : Palette.text)
            cairo_fill(cr)
            if cell == entry.cursor && !entry.isTracing {
                cairo_new_sub_path(cr)
                cairo_arc(cr, center.x, center.y, layout.dotRadius * 2.6, 0, 2 * .pi)
                set(cr, Palette.dim, alpha: 0.5)
                cairo_set_line_width(cr, 1.5 * unit)
                cairo_stroke(cr)
            }
        }
    }

    private func passwordField(_ cr: OpaquePointer, _ scene: Scene) {
        let layout = scene.lock.layout, unit = layout.unit
        var frame = layout.entry
        frame.x += shake(scene)
        roundedRectangle(cr, frame, radius: 8 * unit)
        set(cr, Palette.button)
        cairo_fill_preserve(cr)
        set(cr, Palette.accent)
        cairo_set_line_width(cr, 2 * unit)
        cairo_stroke(cr)
        let count = scene.lock.password.characterCount
        if count == 0 {
            text(cr, scene.passwordPlaceholder, in: frame, size: 15 * unit, color: Palette.dim)
        } else {
            // One symbol per character; a very long password shows its tail.
            let shown = min(count, 24)
            text(cr, (count > shown ? "…" : "") + String(repeating: "●", count: shown), in: frame, size: 15 * unit, color: Palette.text)
        }
    }

    // MARK: helpers

    private func text(_ cr: OpaquePointer, _ string: String, in frame: Rect, size: Double, color: Palette.Color, weight: String = "") {
        guard !string.isEmpty, size > 0 else { return }
        let layout = pango_cairo_create_layout(cr)!
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        let font = pango_font_description_from_string("Sans \(weight)")!
        pango_font_description_set_absolute_size(font, size * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, font)
        pango_font_description_free(font)
        pango_layout_set_width(layout, Int32(frame.width * 0.92 * Double(PANGO_SCALE)))
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER)
        pango_layout_set_text(layout, string, -1)
        var textWidth: Int32 = 0, textHeight: Int32 = 0
        pango_layout_get_pixel_size(layout, &textWidth, &textHeight)
        cairo_move_to(cr, frame.x + frame.width * 0.04, frame.midY - Double(textHeight) / 2)
        set(cr, color)
        pango_cairo_show_layout(cr, layout)
    }

    private func roundedRectangle(_ cr: OpaquePointer, _ frame: Rect, radius: Double) {
        let r = min(radius, frame.height / 2, frame.width / 2)
        cairo_new_sub_path(cr)
        cairo_arc(cr, frame.x + frame.width - r, frame.y + r, r, -.pi / 2, 0)
        cairo_arc(cr, frame.x + frame.width - r, frame.y + frame.height - r, r, 0, .pi / 2)
        cairo_arc(cr, frame.x + r, frame.y + frame.height - r, r, .pi / 2, .pi)
        cairo_arc(cr, frame.x + r, frame.y + r, r, .pi, 1.5 * .pi)
        cairo_close_path(cr)
    }

    private func set(_ cr: OpaquePointer, _ color: Palette.Color, alpha: Double = 1) {
        cairo_set_source_rgba(cr, color.red, color.green, color.blue, alpha)
    }
}

enum Palette {
    struct Color { let red, green, blue: Double }
    static let text = Color(red: 0.95, green: 0.96, blue: 0.98)
    static let dim = Color(red: 0.62, green: 0.66, blue: 0.74)
    static let alert = Color(red: 1.0, green: 0.42, blue: 0.40)
    static let accent = Color(red: 0.36, green: 0.66, blue: 1.0)
    static let button = Color(red: 0.16, green: 0.19, blue: 0.26)
    static let outline = Color(red: 0.30, green: 0.35, blue: 0.45)
}
