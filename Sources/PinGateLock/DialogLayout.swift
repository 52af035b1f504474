/// Where the dialog's parts go on the primary monitor, in pixels. Pure
/// arithmetic, shared by the painter (to draw) and the lock screen (to know
/// what a click or touch hit), so the two cannot disagree.
public struct Rect: Equatable, Sendable {
    public var x, y, width, height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }
    public var midX: Double { x + width / 2 }
    public var midY: Double { y + height / 2 }
    public func contains(_ point: Point) -> Bool {
        point.x >= x && point.x < x + width && point.y >= y && point.y < y + height
    }
    /// The part of this rectangle inside `other`; zero width or height when
    /// they do not overlap.
    public func intersection(_ other: Rect) -> Rect {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(x + width, other.x + other.width), bottom = min(y + height, other.y + other.height)
        return Rect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }
}

/// A RandR monitor: where it sits on the X screen, and whether it is primary.
public struct Monitor: Equatable, Sendable {
    public var frame: Rect
    public var primary: Bool
    public init(frame: Rect, primary: Bool) { (self.frame, self.primary) = (frame, primary) }

    /// Where the dialog goes: the primary monitor (else the first) cut to
    /// the screen, else the whole screen. While monitors are being switched
    /// RandR can list none, or one the screen no longer holds; the screen is
    /// what is really there.
    public static func forDialog(among monitors: [Monitor], screen: Rect) -> Rect {
        let visible = monitors.map { Monitor(frame: $0.frame.intersection(screen), primary: $0.primary) }
            .filter { $0.frame.width >= 1 && $0.frame.height >= 1 }
        return (visible.first { $0.primary } ?? visible.first)?.frame ?? screen
    }
}

public struct Point: Equatable, Sendable {
    public var x, y: Double
    public init(x: Double, y: Double) { (self.x, self.y) = (x, y) }
    func distance(to other: Point) -> Double {
        ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
    }
}

public enum PadKey: Equatable, Sendable {
    case digit(Int)
    case backspace
    case clear
}

public struct DialogLayout: Equatable, Sendable {
    /// Heights at scale 1, top to bottom: margin, clock, name, message,
    /// entry (dots or field), gap, body (pad or grid), gap, button, margin.
    static let rows: [Double] = [24, 80, 36, 48, 56, 16, 336, 20, 44, 24]
    static let bodyWidth: Double = 336
    static let naturalHeight = rows.reduce(0, +)
    static let naturalWidth: Double = 400

    /// Pixels per design pixel: the HiDPI scale, shrunk until the dialog fits.
    public let unit: Double
    public let clock: Rect
    public let name: Rect
    public let message: Rect
    public let entry: Rect
    public let body: Rect
    public let switchButton: Rect
    public let padKeys: [(key: PadKey, frame: Rect)]
    public let gridSize: Int

    public init(monitor: Rect, scale: Double, gridSize: Int) {
        unit = max(0.3, min(scale, monitor.height / DialogLayout.naturalHeight,
                            monitor.width / DialogLayout.naturalWidth))
        let height = DialogLayout.naturalHeight * unit
        var top = monitor.y + (monitor.height - height) / 2
        var frames: [Rect] = []
        for row in DialogLayout.rows {
            frames.append(Rect(x: monitor.x, y: top, width: monitor.width, height: row * unit))
            top += row * unit
        }
        clock = frames[1]
        name = frames[2]
        message = frames[3]
        let entryWidth = 300 * unit
        entry = Rect(x: monitor.midX - entryWidth / 2, y: frames[4].y, width: entryWidth, height: frames[4].height)
        let side = DialogLayout.bodyWidth * unit
        body = Rect(x: monitor.midX - side / 2, y: frames[6].y, width: side, height: side)
        let buttonWidth = 260 * unit
        switchButton = Rect(x: monitor.midX - buttonWidth / 2, y: frames[8].y, width: buttonWidth, height: frames[8].height)
        self.gridSize = gridSize

        // The PIN pad: 1 2 3 / 4 5 6 / 7 8 9 / ⌫ 0 ✕, like a phone.
        let key = 72 * unit, gap = 16 * unit
        let padWidth = 3 * key + 2 * gap
        let left = monitor.midX - padWidth / 2, padTop = body.y
        let order: [PadKey] = (1...9).map { .digit($0) } + [.backspace, .digit(0), .clear]
        padKeys = order.enumerated().map { index, padKey in
            let row = Double(index / 3), column = Double(index % 3)
            return (padKey, Rect(x: left + column * (key + gap), y: padTop + row * (key + gap), width: key, height: key))
        }
    }

    public static func == (a: DialogLayout, b: DialogLayout) -> Bool {
        a.unit == b.unit && a.body == b.body && a.gridSize == b.gridSize && a.switchButton == b.switchButton
    }

    /// The pad key under `point`, if any.
    public func padKey(at point: Point) -> PadKey? {
        padKeys.first { $0.frame.contains(point) }?.key
    }

    /// The centre of a pattern cell (1…R²).
    public func center(ofCell cell: Int) -> Point {
        let spacing = body.width / Double(gridSize)
        let row = Double((cell - 1) / gridSize), column = Double((cell - 1) % gridSize)
        return Point(x: body.x + (column + 0.5) * spacing, y: body.y + (row + 0.5) * spacing)
    }

    /// Radius of a drawn dot, and of the circle around it that catches the pointer.
    public var dotRadius: Double { body.width / Double(gridSize) * 0.1 }
    public var hitRadius: Double { body.width / Double(gridSize) * 0.36 }

    /// The pattern cell whose catch circle holds `point`, if any.
    public func cell(at point: Point) -> Int? {
        (1...(gridSize * gridSize)).first { center(ofCell: $0).distance(to: point) <= hitRadius }
    }
}
