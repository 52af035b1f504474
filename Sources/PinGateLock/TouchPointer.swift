/// Touch as the left button, for the Wayland lock screen: the first finger
/// down on an output presses where it lands, moves the pointer as it slides
/// and releases where it lifts, so a finger draws the pattern and taps the
/// pad as the mouse does. Other fingers while it is down are ignored; a
/// finger stays on the output it went down on (wl_touch gives positions on
/// that surface). Positions become image positions through OutputGeometry.
public struct TouchPointer {
    private var finger: (id: Int32, output: Int)?
    private var last = (x: 0, y: 0)

    public init() {}

    /// A finger down on output `output` at surface position (x, y).
    public mutating func down(id: Int32, output: Int, x: Double, y: Double, in geometry: OutputGeometry,
                              _ forward: (InputEvent) -> Void) {
        guard finger == nil, let point = geometry.imagePoint(output: output, x: x, y: y) else { return }
        finger = (id, output)
        last = point
        // The motion first: the pattern's line starts where the finger is.
        forward(.motion(x: point.x, y: point.y))
        forward(.press(button: 1, x: point.x, y: point.y))
    }

    public mutating func motion(id: Int32, x: Double, y: Double, in geometry: OutputGeometry,
                                _ forward: (InputEvent) -> Void) {
        guard let finger, finger.id == id,
              let point = geometry.imagePoint(output: finger.output, x: x, y: y) else { return }
        last = point
        forward(.motion(x: point.x, y: point.y))
    }

    public mutating func up(id: Int32, _ forward: (InputEvent) -> Void) {
        guard let finger, finger.id == id else { return }
        self.finger = nil
        forward(.release(button: 1, x: last.x, y: last.y))
    }

    /// The compositor took the touches back (a gesture of its own): the
    /// finger is gone, and what it drew is dropped rather than submitted.
    public mutating func cancel(_ forward: (InputEvent) -> Void) {
        guard finger != nil else { return }
        finger = nil
        forward(.cancel)
    }
}
