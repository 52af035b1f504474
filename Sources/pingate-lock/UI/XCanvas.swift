import CCairo
import CX11
import Glibc
import PinGateLock

/// Where the UI draws, and what tells it the screen changed: the X11 window
/// inside the locker's cover (`XCanvas`) or, on Wayland, the shared memory
/// the locker shows on every output (`SharedMemoryCanvas`). UIProcess — the
/// dialog, PAM and the secrets — is the same for both.
protocol UICanvas: AnyObject {
    /// Connects and makes the surface; once, before anything else.
    func prepare()
    var painter: Painter! { get }
    /// A descriptor for the UI's poll (the X connection), or -1.
    var pollDescriptor: Int32 { get }
    /// The dialog's layout for the monitors as they are now.
    func layout(gridSize: Int) -> DialogLayout
    /// Handles what the display system queued: `redraw` for an expose,
    /// `relayout` (with why) when the screen or monitors changed.
    func handlePendingEvents(redraw: () -> Void, relayout: (String) -> Void)
    /// Sends the frame just drawn (not waited for).
    func present()
    /// Waits until the frame just drawn is shown.
    func showNow()
}

/// The X11 UI's canvas: a child window of the locker's cover, its size
/// followed through ConfigureNotify and its monitors through RandR.
final class XCanvas: UICanvas {
    private var display: OpaquePointer!
    private let coverWindow: Window
    private var window: Window = 0
    private(set) var painter: Painter!
    /// The cover's size: the whole X screen, and the fallback monitor.
    private var coverWidth: Int32 = 1, coverHeight: Int32 = 1
    /// RandR's first event code, -1 without the extension.
    private var randrEventBase: Int32 = -1

    init(coverWindow: UInt) {
        self.coverWindow = Window(coverWindow)
    }

    var pollDescriptor: Int32 { XConnectionNumber(display) }

    func prepare() {
        guard let opened = XOpenDisplay(nil) else { Diagnostics.fail("cannot open the X display") }
        display = opened
        setCloseOnExec(XConnectionNumber(display))
        XErrorLog.install()
        var rootReturn: Window = 0
        var x: Int32 = 0, y: Int32 = 0
        var width: UInt32 = 0, height: UInt32 = 0, border: UInt32 = 0, depth: UInt32 = 0
        XGetGeometry(display, coverWindow, &rootReturn, &x, &y, &width, &height, &border, &depth)
        let screen = XDefaultScreen(display)
        var attributes = XSetWindowAttributes()
        attributes.background_pixel = XBlackPixel(display, screen)
        attributes.event_mask = ExposureMask
        (coverWidth, coverHeight) = (Int32(max(width, 1)), Int32(max(height, 1)))
        window = XCreateWindow(display, coverWindow, 0, 0, UInt32(coverWidth), UInt32(coverHeight), 0, Int32(CopyFromParent),
                               UInt32(InputOutput), nil, UInt(CWBackPixel | CWEventMask), &attributes)
        // The cover changes size when monitors come or go: follow it. Monitors
        // can also change while the screen keeps its size (one switched off,
        // another made primary): RandR's notifications say so.
        XSelectInput(display, coverWindow, StructureNotifyMask)
        var errorBase: Int32 = 0
        if XRRQueryExtension(display, &randrEventBase, &errorBase) != 0 {
            XRRSelectInput(display, XDefaultRootWindow(display),
                           Int32(RRScreenChangeNotifyMask | RRCrtcChangeNotifyMask | RROutputChangeNotifyMask))
        } else {
            randrEventBase = -1
        }
        XMapWindow(display, window)
        let surface = cairo_xlib_surface_create(display, window, XDefaultVisual(display, screen), coverWidth, coverHeight)!
        painter = Painter(surface: surface, width: coverWidth, height: coverHeight)
        XSync(display, 0)
    }

    /// The monitor for the dialog (`Monitor.forDialog`) and the scale
    /// Xft.dpi asks for (96 dpi is 1).
    func layout(gridSize: Int) -> DialogLayout {
        var monitors: [Monitor] = []
        var count: Int32 = 0
        if let list = XRRGetMonitors(display, XDefaultRootWindow(display), 1, &count) {
            monitors = UnsafeBufferPointer(start: list, count: Int(max(count, 0))).map {
                Monitor(frame: Rect(x: Double($0.x), y: Double($0.y), width: Double($0.width), height: Double($0.height)),
                        primary: $0.primary != 0)
            }
            XRRFreeMonitors(list)
        }
        let monitor = Monitor.forDialog(among: monitors, screen: Rect(x: 0, y: 0, width: Double(coverWidth), height: Double(coverHeight)))
        return DialogLayout(monitor: monitor, scale: xftScale(), gridSize: gridSize)
    }

    private func xftScale() -> Double {
        guard let resources = XResourceManagerString(display) else { return 1 }
        for line in String(cString: resources).split(separator: "\n") where line.hasPrefix("Xft.dpi:") {
            let value = line.dropFirst("Xft.dpi:".count).trimmingCharacters(in: " \t")
            if let dpi = Double(value), dpi >= 48, dpi <= 480 { return dpi / 96 }
        }
        return 1
    }

    func handlePendingEvents(redraw: () -> Void, relayout: (String) -> Void) {
        forEachPendingEvent(display) { event in
            switch event.type {
            case Expose where event.xexpose.count == 0:
                redraw()
            case ConfigureNotify where event.xconfigure.window == coverWindow
                    && (max(event.xconfigure.width, 1), max(event.xconfigure.height, 1)) != (coverWidth, coverHeight):
                // A new size (a restack of the cover changes nothing here).
                (coverWidth, coverHeight) = (max(event.xconfigure.width, 1), max(event.xconfigure.height, 1))
                XResizeWindow(display, window, UInt32(coverWidth), UInt32(coverHeight))
                painter.resize(width: coverWidth, height: coverHeight)
                relayout("screen \(coverWidth)x\(coverHeight)")
            case randrEventBase + RRScreenChangeNotify where randrEventBase >= 0,
                 randrEventBase + RRNotify where randrEventBase >= 0:
                XRRUpdateConfiguration(&event)
                relayout("monitors changed")
            default:
                break
            }
        }
    }

    func present() { XFlush(display) }
    func showNow() { XSync(display, 0) }
}

private extension Substring {
    func trimmingCharacters(in set: String) -> Substring {
        var result = self
        while let first = result.first, set.contains(first) { result = result.dropFirst() }
        while let last = result.last, set.contains(last) { result = result.dropLast() }
        return result
    }
}
