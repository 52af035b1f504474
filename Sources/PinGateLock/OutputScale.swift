/// An output's scale factor in 120ths, wp_fractional_scale_v1's unit: 120
/// is 1, 180 is 1.5, 240 is 2. wl_output's integer `scale` is its multiple
/// of 120, so one rule sizes a buffer and maps a position for a compositor
/// that offers fractional scale and for one that does not.
public struct OutputScale: Equatable, Sendable {
    public static let denominator = 120
    /// 1 to 8: no output's scale is above 8, and a scale below 1 is drawn
    /// at 1 (the compositor shrinks it, as it did before fractional scale).
    public static let valid = 120...960
    public static let one = OutputScale(numerator: 120)

    public let numerator: Int

    public init(numerator: Int) { self.numerator = numerator }

    /// A compositor's scale (wp_fractional_scale_v1's preferred_scale in
    /// 120ths, or wl_output's integer `scale`), brought into the valid range.
    public init(clamping numerator: Int) { self.numerator = min(max(numerator, Self.valid.lowerBound), Self.valid.upperBound) }
    public init(clampingInteger factor: Int) { self.init(clamping: min(max(factor, 1), 8) * Self.denominator) }

    /// Buffer pixels per surface pixel, for the dialog's layout.
    public var factor: Double { Double(numerator) / Double(Self.denominator) }

    /// A surface length (as configured) in buffer pixels: length × scale,
    /// rounded half away from zero as wp_fractional_scale_v1 says (1067 at
    /// 1.5 is 1600.5, so 1601); exact for an integer scale. In integers, so
    /// no length rounds differently on another machine; nil if it overflows.
    public func bufferLength(ofSurface length: Int) -> Int? {
        let (product, overflow) = length.multipliedReportingOverflow(by: numerator)
        let (rounded, roundOverflow) = product.addingReportingOverflow(Self.denominator / 2)
        guard !overflow, !roundOverflow, length >= 0 else { return nil }
        return rounded / Self.denominator
    }

    /// A position on the surface (wl_pointer's, wl_touch's) in buffer pixels.
    public func bufferPosition(ofSurface position: Double) -> Double { position * factor }
}
