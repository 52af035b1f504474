#if canImport(CWaylandProtocols)
import CWaylandProtocols
import PinGateLock

/// The compositor's wp_fractional_scale_manager_v1 and wp_viewporter, when
/// it offers both. wl_output's `scale` is an integer, rounded up: an output
/// at 1.5 says 2, and a buffer drawn at 2 is shrunk by the compositor,
/// blurred. With these a lock surface learns its real scale and shows a
/// buffer of that many pixels at its configured size.
struct FractionalScaling {
    let manager: OpaquePointer
    let viewporter: OpaquePointer
}

/// One lock surface's fractional scale: the compositor's preferred scale
/// for it (wp_fractional_scale_v1, in 120ths) goes to its output, and its
/// viewport (wp_viewport) shows the buffer, size × scale, at the surface's
/// size, with the buffer scale left at 1, as the protocol asks.
final class FractionalSurface {
    private let fraction: OpaquePointer
    private let viewport: OpaquePointer
    private unowned let output: WaylandOutput

    init(surface: OpaquePointer, scaling: FractionalScaling, output: WaylandOutput) {
        fraction = wp_fractional_scale_manager_v1_get_fractional_scale(scaling.manager, surface)
        viewport = wp_viewporter_get_viewport(scaling.viewporter, surface)
        self.output = output
        wp_fractional_scale_v1_add_listener(fraction, fractionListener, Unmanaged.passUnretained(self).toOpaque())
    }

    fileprivate func preferredScale(_ numerator: UInt32) {
        output.preferredScaleEvent(OutputScale(clamping: Int(numerator)))
    }

    /// The buffer about to be attached is shown at `width` x `height`
    /// surface pixels (double-buffered state: it applies at the commit).
    func setDestination(width: Int, height: Int) {
        wp_viewport_set_destination(viewport, Int32(width), Int32(height))
    }

    /// Before the surface: once it is gone the viewport can only be destroyed.
    func destroy() {
        wp_viewport_destroy(viewport)
        wp_fractional_scale_v1_destroy(fraction)
    }
}

nonisolated(unsafe) private let fractionListener = listenerTable(wp_fractional_scale_v1_listener(
    preferred_scale: { data, _, scale in
        Unmanaged<FractionalSurface>.fromOpaque(data!).takeUnretainedValue().preferredScale(scale)
    }))
#endif
