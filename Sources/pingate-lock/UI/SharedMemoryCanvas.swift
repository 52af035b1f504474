import CCairo
import Glibc
import PinGateLock

/// The Wayland UI's canvas. The UI child has no Wayland connection: the
/// locker holds the lock, its surfaces and the input (WaylandLocker). The
/// locker lays the outputs side by side in one image, gives the child that
/// image as shared memory on fd 4 (a memfd it also made the wl_shm pool of:
/// each output's buffer is its rectangle of the image) and the outputs'
/// rectangles in the argument; the child draws there with cairo and writes a
/// byte on fd 5 when a frame is done, and the locker commits the surfaces.
/// Outputs that change restart the child with a new image.
final class SharedMemoryCanvas: UICanvas {
    static let imageFD: Int32 = 4, frameFD: Int32 = 5
    let geometry: OutputGeometry
    private(set) var painter: Painter!

    /// Made before UIProcess.run starts anything: the image and the frame
    /// pipe become close-on-exec here, so neither the setgid helper (asked
    /// first) nor PAM's helpers ever hold them.
    init(geometry: OutputGeometry) {
        self.geometry = geometry
        setCloseOnExec(SharedMemoryCanvas.imageFD)
        setCloseOnExec(SharedMemoryCanvas.frameFD)
    }

    func prepare() {
        let stride = geometry.stride
        let size = Int(stride) * Int(geometry.height)
        guard let pixels = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, SharedMemoryCanvas.imageFD, 0),
              pixels != MAP_FAILED else {
            Diagnostics.fail("cannot map the locker's image: \(String(cString: strerror(errno)))")
        }
        // XRGB8888 in wl_shm is cairo's RGB24: 32-bit pixels, alpha unused.
        let surface = cairo_image_surface_create_for_data(pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                          geometry.width, geometry.height, stride)!
        painter = Painter(surface: surface, width: geometry.width, height: geometry.height)
    }

    var pollDescriptor: Int32 { -1 }

    /// The dialog goes on the first output; on Wayland the compositor gives
    /// no "primary", and the first is the one it listed first. It is drawn
    /// at that output's scale (its buffer has that many pixels per surface
    /// pixel: 1.5 at a fractional 180/120).
    func layout(gridSize: Int) -> DialogLayout {
        let monitors = geometry.outputs.enumerated().map { Monitor(frame: $1, primary: $0 == 0) }
        let screen = Rect(x: 0, y: 0, width: Double(geometry.width), height: Double(geometry.height))
        return DialogLayout(monitor: Monitor.forDialog(among: monitors, screen: screen),
                            scale: geometry.scales[0].factor, gridSize: gridSize)
    }

    func handlePendingEvents(redraw: () -> Void, relayout: (String) -> Void) {}

    /// One byte: "a frame is in the image". A full pipe means the locker has
    /// not yet read the last one, which will show this frame too.
    func present() {
        var byte: UInt8 = 1
        _ = write(SharedMemoryCanvas.frameFD, &byte, 1)
    }

    func showNow() { present() }
}
