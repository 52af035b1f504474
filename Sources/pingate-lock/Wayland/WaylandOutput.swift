#if canImport(CWaylandProtocols)
import CPinGateSystem
import CWaylandProtocols
import Glibc
import PinGateLock

/// One output and its lock surface. Its size is what the compositor's
/// configure says (a buffer of any other size is a protocol error), in
/// surface pixels; its buffer is that times the output's scale. With
/// fractional scale (FractionalSurface) the scale is the surface's preferred
/// one and a viewport shows the buffer at the surface's size; without, or
/// before the compositor says it, the scale is wl_output's integer `scale`
/// (applied at its `done`), set with set_buffer_scale when there is no viewport.
final class WaylandOutput {
    let name: UInt32
    let output: OpaquePointer
    private unowned let locker: WaylandLocker
    private(set) var surface: OpaquePointer?
    private var lockSurface: OpaquePointer?
    private var fractional: FractionalSurface?
    private(set) var width = 0, height = 0
    private var integerScale = 1, pendingScale = 1
    private var preferredScale: OutputScale?
    var scale: OutputScale { preferredScale ?? OutputScale(clampingInteger: integerScale) }

    init(name: UInt32, output: OpaquePointer, locker: WaylandLocker) {
        (self.name, self.output, self.locker) = (name, output, locker)
        wl_output_add_listener(output, outputListener, Unmanaged.passUnretained(self).toOpaque())
    }

    /// wl_output's properties come as a group ended by `done`.
    func scaleEvent(_ factor: Int32) { pendingScale = Int(min(max(factor, 1), 8)) }

    func doneEvent() {
        guard pendingScale != integerScale else { return }
        integerScale = pendingScale
        Diagnostics.trace("output \(name) scale: \(integerScale)")
        locker.geometryChanged()
    }

    /// wp_fractional_scale_v1's preferred_scale. (sway sends it once the
    /// surface shows a buffer, so the first image is at the integer scale
    /// and is made again when this differs.)
    func preferredScaleEvent(_ wanted: OutputScale) {
        guard wanted != preferredScale else { return }
        preferredScale = wanted
        Diagnostics.trace("output \(name) preferred scale: \(wanted.numerator)/\(OutputScale.denominator)")
        locker.geometryChanged()
    }

    func makeLockSurface(lock: OpaquePointer, compositor: OpaquePointer, scaling: FractionalScaling?) {
        guard lockSurface == nil, let made = wl_compositor_create_surface(compositor) else { return }
        surface = made
        if let scaling { fractional = FractionalSurface(surface: made, scaling: scaling, output: self) }
        lockSurface = ext_session_lock_v1_get_lock_surface(lock, made, output)
        ext_session_lock_surface_v1_add_listener(lockSurface, lockSurfaceListener, Unmanaged.passUnretained(self).toOpaque())
    }

    func configured(serial: UInt32, width: UInt32, height: UInt32) {
        ext_session_lock_surface_v1_ack_configure(lockSurface, serial)
        guard Int(width) != self.width || Int(height) != self.height else { return }
        (self.width, self.height) = (Int(width), Int(height))
        Diagnostics.trace("output \(name) configured: \(width)x\(height)")
        locker.geometryChanged()
    }

    /// Shows `buffer`, this output's part of the image, if it was drawn for
    /// the size the surface was configured with at the output's scale.
    func show(_ buffer: OpaquePointer, width: Int32, height: Int32, scale: OutputScale) {
        guard let surface, scale == self.scale, Int(width) == scale.bufferLength(ofSurface: self.width),
              Int(height) == scale.bufferLength(ofSurface: self.height) else { return }
        if let fractional {
            fractional.setDestination(width: self.width, height: self.height)
        } else {
            // Without a viewport the scale is wl_output's integer one.
            wl_surface_set_buffer_scale(surface, Int32(scale.numerator / OutputScale.denominator))
        }
        wl_surface_attach(surface, buffer, 0, 0)
        wl_surface_damage_buffer(surface, 0, 0, width, height)
        wl_surface_commit(surface)
    }

    func destroy() {
        fractional?.destroy()
        if let lockSurface { ext_session_lock_surface_v1_destroy(lockSurface) }
        if let surface { wl_surface_destroy(surface) }
        wl_output_destroy(output)
    }
}

nonisolated(unsafe) private let outputListener: UnsafeMutablePointer<wl_output_listener> = {
    var listener = wl_output_listener()
    listener.geometry = { _, _, _, _, _, _, _, _, _, _ in }
    listener.mode = { _, _, _, _, _, _ in }
    listener.done = { data, _ in Unmanaged<WaylandOutput>.fromOpaque(data!).takeUnretainedValue().doneEvent() }
    listener.scale = { data, _, factor in Unmanaged<WaylandOutput>.fromOpaque(data!).takeUnretainedValue().scaleEvent(factor) }
    listener.name = { _, _, _ in }
    listener.description = { _, _, _ in }
    return listenerTable(listener)
}()

nonisolated(unsafe) private let lockSurfaceListener = listenerTable(ext_session_lock_surface_v1_listener(
    configure: { data, _, serial, width, height in
        Unmanaged<WaylandOutput>.fromOpaque(data!).takeUnretainedValue().configured(serial: serial, width: width, height: height)
    }))

/// The image in shared memory (a memfd): the UI child maps it and draws, and
/// each output's wl_buffer is its rectangle of it (an offset and the image's
/// stride), so a frame reaches the compositor without a copy.
final class SharedImage {
    let geometry: OutputGeometry
    let descriptor: Int32
    private let pool: OpaquePointer
    private(set) var buffers: [OpaquePointer] = []

    init?(geometry: OutputGeometry, shm: OpaquePointer) {
        self.geometry = geometry
        let size = geometry.poolSize
        let fd = cpingate_memfd_create("pingate-lock")
        guard fd >= 0 else { return nil }
        guard ftruncate(fd, off_t(size)) == 0, cpingate_memfd_seal_size(fd) == 0,
              let pool = wl_shm_create_pool(shm, fd, Int32(size)) else {
            close(fd)
            return nil
        }
        (descriptor, self.pool) = (fd, pool)
        for index in geometry.outputs.indices {
            let frame = geometry.outputs[index]
            buffers.append(wl_shm_pool_create_buffer(pool, geometry.offset(ofOutput: index), Int32(frame.width),
                                                     Int32(frame.height), geometry.stride, WL_SHM_FORMAT_XRGB8888.rawValue))
        }
    }

    func destroy() {
        buffers.forEach { wl_buffer_destroy($0) }
        wl_shm_pool_destroy(pool)
        close(descriptor)
    }
}
#endif
