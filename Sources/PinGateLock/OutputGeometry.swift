/// Wayland outputs as one image: each output's lock surface shows its own
/// rectangle of it, the rectangles side by side in the order the compositor
/// listed the outputs. The locker makes it from the lock surfaces' sizes and
/// passes it to the UI child as text (`spec`); the child draws the dialog on
/// the first rectangle. Pointer and touch positions on an output's surface
/// become positions in the image (`imagePoint`), which is where the dialog's
/// layout lives.
public struct OutputGeometry: Equatable, Sendable {
    public private(set) var outputs: [Rect]
    public var width: Int32 { Int32(outputs.map { $0.x + $0.width }.max() ?? 1) }
    public var height: Int32 { Int32(outputs.map(\.height).max() ?? 1) }
    /// Bytes per row: four per pixel (XRGB8888).
    public var stride: Int32 { width * 4 }
    /// Where output `index`'s buffer starts in the shared memory.
    public func offset(ofOutput index: Int) -> Int32 { Int32(outputs[index].x) * 4 }

    /// Sizes in surface pixels, in the compositor's order; one pixel for a
    /// size not yet known, so the image is never empty.
    public init(sizes: [(width: Int, height: Int)]) {
        var x = 0.0
        outputs = sizes.map { size in
            defer { x += Double(max(size.width, 1)) }
            return Rect(x: x, y: 0, width: Double(max(size.width, 1)), height: Double(max(size.height, 1)))
        }
        if outputs.isEmpty { outputs = [Rect(x: 0, y: 0, width: 1, height: 1)] }
    }

    /// "W,H;W,H" — the form on the UI child's command line.
    public var spec: String {
        outputs.map { "\(Int($0.width)),\(Int($0.height))" }.joined(separator: ";")
    }

    public init?(spec: String) {
        var sizes: [(width: Int, height: Int)] = []
        for part in spec.split(separator: ";") {
            let numbers = part.split(separator: ",").compactMap { Int($0) }
            guard numbers.count == 2, (1...32768).contains(numbers[0]), (1...32768).contains(numbers[1]) else { return nil }
            sizes.append((numbers[0], numbers[1]))
        }
        guard !sizes.isEmpty, sizes.count <= 64 else { return nil }
        self.init(sizes: sizes)
    }

    /// A point on output `index`'s surface (surface coordinates, as wl_pointer
    /// and wl_touch give them) as a point in the image, rounded to a pixel;
    /// nil for an output the geometry does not have.
    public func imagePoint(output index: Int, x: Double, y: Double) -> (x: Int, y: Int)? {
        guard outputs.indices.contains(index) else { return nil }
        let frame = outputs[index]
        let clampedX = min(max(x, 0), frame.width - 1), clampedY = min(max(y, 0), frame.height - 1)
        return (Int((frame.x + clampedX).rounded(.down)), Int((frame.y + clampedY).rounded(.down)))
    }
}
