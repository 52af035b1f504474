/// Wayland outputs as one image: each output's lock surface shows its own
/// rectangle of it, the rectangles side by side in the order the compositor
/// listed the outputs. The locker makes it from the lock surfaces' sizes and
/// passes it to the UI child as text (`spec`); the child draws the dialog on
/// the first rectangle. Pointer and touch positions on an output's surface
/// become positions in the image (`imagePoint`), which is where the dialog's
/// layout lives.
///
/// Sizes are in buffer pixels: an output at scale 2 gets a buffer twice its
/// surface's size each way, one at 1.5 (wp_fractional_scale_v1) one and a
/// half times, drawn with the dialog that much bigger, so the compositor
/// shows the output's own pixels instead of enlarging a scale-1 image or
/// shrinking a scale-2 one. Surface positions are multiplied by the same
/// scale (OutputScale: one rule for both).
public struct OutputGeometry: Equatable, Sendable {
    public private(set) var outputs: [Rect]
    /// Each output's scale, as the compositor said.
    public private(set) var scales: [OutputScale]
    public var width: Int32 { Int32(outputs.map { $0.x + $0.width }.max() ?? 1) }
    public var height: Int32 { Int32(outputs.map(\.height).max() ?? 1) }
    /// Bytes per row: four per pixel (XRGB8888).
    public var stride: Int32 { width * 4 }
    /// Where output `index`'s buffer starts in the shared memory.
    public func offset(ofOutput index: Int) -> Int32 { Int32(outputs[index].x) * 4 }

    /// The limits of an image: cairo draws none wider or taller than 32767
    /// pixels, wl_shm takes a pool of at most Int32.max bytes, more than 64
    /// outputs is no real machine (and scales: OutputScale.valid).
    public static let maxSide = 32767, maxOutputs = 64

    /// Buffer sizes in the compositor's order and each output's scale, if
    /// the image they make is within the limits (checked before any of it
    /// is computed, so a compositor's huge configure fails here instead of
    /// trapping).
    public init?(validSizes sizes: [(width: Int, height: Int)], scales: [OutputScale] = []) {
        guard !sizes.isEmpty, sizes.count <= Self.maxOutputs,
              sizes.allSatisfy({ (1...Self.maxSide).contains($0.width) && (1...Self.maxSide).contains($0.height) }),
              sizes.reduce(0, { $0 + $1.width }) <= Self.maxSide,
              scales.allSatisfy({ OutputScale.valid.contains($0.numerator) }) else { return nil }
        self.init(sizes: sizes, scales: scales)
        guard poolSize <= Int(Int32.max) else { return nil }
    }

    /// Surface sizes (as the lock surfaces' configure gives them) and
    /// scales, if within the limits: the buffers are the surfaces' sizes
    /// times their scales (OutputScale.bufferLength).
    public init?(validSurfaces surfaces: [(width: Int, height: Int, scale: OutputScale)]) {
        var sizes: [(width: Int, height: Int)] = []
        for surface in surfaces {
            guard OutputScale.valid.contains(surface.scale.numerator),
                  let width = surface.scale.bufferLength(ofSurface: surface.width),
                  let height = surface.scale.bufferLength(ofSurface: surface.height) else { return nil }
            sizes.append((width, height))
        }
        self.init(validSizes: sizes, scales: surfaces.map(\.scale))
    }

    /// The shared memory's size: one row more than the image, since the
    /// compositor checks that a buffer's offset plus its stride times its
    /// height fits in the pool, and an output right of the first starts
    /// inside the first row.
    public var poolSize: Int { Int(stride) * (Int(height) + 1) }

    /// Buffer sizes in the compositor's order, and each output's scale (1
    /// where `scales` has none); one pixel for a size not yet known, so the
    /// image is never empty. Only for sizes within the limits
    /// (init?(validSizes:) checks them).
    public init(sizes: [(width: Int, height: Int)], scales: [OutputScale] = []) {
        var x = 0.0
        outputs = sizes.map { size in
            defer { x += Double(max(size.width, 1)) }
            return Rect(x: x, y: 0, width: Double(max(size.width, 1)), height: Double(max(size.height, 1)))
        }
        self.scales = sizes.indices.map { $0 < scales.count ? scales[$0] : .one }
        if outputs.isEmpty { (outputs, self.scales) = ([Rect(x: 0, y: 0, width: 1, height: 1)], [.one]) }
    }

    /// "W,H,S;W,H,S" (buffer size, scale in 120ths) — the form on the UI
    /// child's command line, and in the locker's trace.
    public var spec: String {
        outputs.indices.map { "\(Int(outputs[$0].width)),\(Int(outputs[$0].height)),\(scales[$0].numerator)" }
            .joined(separator: ";")
    }

    public init?(spec: String) {
        var sizes: [(width: Int, height: Int)] = [], scales: [OutputScale] = []
        for part in spec.split(separator: ";") {
            let numbers = part.split(separator: ",").compactMap { Int($0) }
            guard numbers.count == 3 else { return nil }
            sizes.append((numbers[0], numbers[1]))
            scales.append(OutputScale(numerator: numbers[2]))
        }
        self.init(validSizes: sizes, scales: scales)
    }

    /// A point on output `index`'s surface (surface coordinates, as wl_pointer
    /// and wl_touch give them) as a point in the image, rounded to a pixel;
    /// nil for an output the geometry does not have.
    public func imagePoint(output index: Int, x: Double, y: Double) -> (x: Int, y: Int)? {
        guard outputs.indices.contains(index) else { return nil }
        let frame = outputs[index], scale = scales[index]
        let clampedX = min(max(scale.bufferPosition(ofSurface: x), 0), frame.width - 1)
        let clampedY = min(max(scale.bufferPosition(ofSurface: y), 0), frame.height - 1)
        return (Int((frame.x + clampedX).rounded(.down)), Int((frame.y + clampedY).rounded(.down)))
    }
}
