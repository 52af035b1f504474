#if canImport(CWaylandProtocols)
import CPinGateSystem
import CWaylandProtocols
import Glibc
import PinGateCore
import PinGateLock

/// pingate-lock on Wayland (swaylock's shape: one client holds the lock, its
/// surfaces and its input, since the protocol ties them to one connection).
/// The session is locked through ext-session-lock-v1 before anything is
/// drawn; one lock surface per output shows that output's part of the image
/// the UI child draws (SharedMemoryCanvas). Keys, pointer and touch go to
/// the child as InputEvent lines, as the X11 locker sends them. The child
/// runs PAM and holds the secrets; this process has no PAM handle and asks
/// the compositor to unlock (`unlock_and_destroy`) only when the child wrote
/// "unlocked" and exited 0. A child that dies any other way is started
/// again; if this process dies, the compositor keeps every output locked.
final class WaylandLocker {
    private var display: OpaquePointer!
    private var compositor: OpaquePointer?
    private var shm: OpaquePointer?
    private var manager: OpaquePointer?
    private var fractionalScaleManager: OpaquePointer?
    private var viewporter: OpaquePointer?
    private var lock: OpaquePointer?
    private(set) var outputs: [WaylandOutput] = []
    private var seats: [WaylandSeat] = []
    private var locked = false
    private var finished = false
    private var child: UIChild?
    private var restarts = RestartPacing()
    /// The image the child draws and the outputs show.
    private var image: SharedImage?
    /// The child is being replaced for a new geometry: its end is no crash.
    private var replacing = false
    /// The frame pipe's read end while the child that writes it may still
    /// write; -1 once it is at EOF or the child is gone (a pipe at EOF is
    /// always readable, and polling it would spin).
    private var frameRead: Int32 = -1

    func run() -> Int32 {
        if let reason = Preflight.reasonNotToLock() {
            Diagnostics.error(reason)
            return Locker.ExitStatus.wouldBeDeadEnd
        }
        signal(SIGPIPE, SIG_IGN)
        signal(SIGHUP, SIG_IGN)
        signal(SIGCHLD, SIG_DFL)
        // libwayland-client reads WAYLAND_DEBUG when it connects and then logs
        // every event to stderr (the journal): each wl_keyboard.key, so each
        // digit typed. Gone before the connection, and from the UI's environ.
        unsetenv("WAYLAND_DEBUG")
        guard let connected = wl_display_connect(nil) else {
            Diagnostics.error(L("cannot connect to the Wayland compositor %s — is WAYLAND_DISPLAY right?",
                                String(cString: getenv("WAYLAND_DISPLAY"))))
            return Locker.ExitStatus.cannotLock
        }
        display = connected
        let registry = wl_display_get_registry(display)
        wl_registry_add_listener(registry, registryListener, Unmanaged.passUnretained(self).toOpaque())
        wl_display_roundtrip(display)
        guard let manager, compositor != nil, shm != nil else {
            Diagnostics.error(L("not locking: this Wayland compositor does not offer ext-session-lock-v1 (GNOME and KDE lock their sessions themselves: use loginctl lock-session there)"))
            return Locker.ExitStatus.cannotLock
        }
        // The lock first: nothing is drawn before it is asked for.
        lock = ext_session_lock_manager_v1_lock(manager)
        ext_session_lock_v1_add_listener(lock, lockListener, Unmanaged.passUnretained(self).toOpaque())
        Diagnostics.trace("lock requested \(traceTime())")
        for output in outputs { output.makeLockSurface(lock: lock!, compositor: compositor!, scaling: fractionalScaling) }
        wl_display_roundtrip(display)
        if finished { return lockFinished() }
        return loop()
    }

    // MARK: the registry and the lock's events

    func global(_ registry: OpaquePointer, name: UInt32, interface: String, version: UInt32) {
        switch interface {
        case "wl_compositor" where version >= 4:
            compositor = OpaquePointer(wl_registry_bind(registry, name, cwayland_compositor_interface(), 4))
        case "wl_shm":
            shm = OpaquePointer(wl_registry_bind(registry, name, cwayland_shm_interface(), 1))
        case "wl_seat":
            let bound = OpaquePointer(wl_registry_bind(registry, name, cwayland_seat_interface(), min(version, 5)))!
            seats.append(WaylandSeat(seat: bound, locker: self))
        case "wl_output":
            // Version 2: its `scale` (and `done`), for buffers drawn at the output's scale.
            let bound = OpaquePointer(wl_registry_bind(registry, name, cwayland_output_interface(), min(version, 2)))!
            let output = WaylandOutput(name: name, output: bound, locker: self)
            outputs.append(output)
            // An output that comes while locked gets its lock surface at once.
            if let lock, let compositor {
                Diagnostics.trace("output \(name) added")
                output.makeLockSurface(lock: lock, compositor: compositor, scaling: fractionalScaling)
            }
        case "ext_session_lock_manager_v1":
            manager = OpaquePointer(wl_registry_bind(registry, name, cwayland_session_lock_manager_interface(), 1))
        case "wp_fractional_scale_manager_v1":
            fractionalScaleManager = OpaquePointer(wl_registry_bind(registry, name, cwayland_fractional_scale_manager_interface(), 1))
        case "wp_viewporter":
            viewporter = OpaquePointer(wl_registry_bind(registry, name, cwayland_viewporter_interface(), 1))
        default:
            break
        }
    }

    /// Both globals, or the integer scale: a fractional scale is of no use
    /// without a viewport to show its buffer at the surface's size.
    private var fractionalScaling: FractionalScaling? {
        guard let fractionalScaleManager, let viewporter else { return nil }
        return FractionalScaling(manager: fractionalScaleManager, viewporter: viewporter)
    }

    func globalRemoved(name: UInt32) {
        guard let index = outputs.firstIndex(where: { $0.name == name }) else { return }
        Diagnostics.trace("output \(name) removed")
        outputs.remove(at: index).destroy()
        geometryChanged()
    }

    func lockedEvent() {
        locked = true
        Diagnostics.trace("locked: the compositor locked the session \(traceTime())")
        Daemon.locked()
    }

    func finishedEvent() {
        finished = true
        Diagnostics.trace("finished: the compositor ended the lock \(traceTime())")
    }

    // MARK: geometry, the image and the child

    /// The lock surfaces' sizes as configured and their outputs' scales, in
    /// the compositor's order; nil beyond what one image can hold.
    private var configuredGeometry: OutputGeometry? {
        OutputGeometry(validSurfaces: outputs.map { ($0.width, $0.height, $0.scale) })
    }

    /// An output was configured with a new size, added or removed: a new
    /// image, and a new child to draw it (what was typed is dropped).
    func geometryChanged() {
        guard lock != nil, !outputs.isEmpty, outputs.allSatisfy({ $0.width > 0 }) else { return }
        guard let wanted = configuredGeometry else {
            Diagnostics.error("the outputs are too large for the lock screen's image (\(outputs.map { "\($0.width)x\($0.height)" })); the screen stays locked, without the dialog")
            return
        }
        guard image?.geometry != wanted else { return }
        guard let shm, let made = SharedImage(geometry: wanted, shm: shm) else {
            Diagnostics.error("cannot make the lock screen's image; the screen stays locked")
            return
        }
        image?.destroy()
        image = made
        Diagnostics.trace("geometry: \(wanted.spec)")
        if let child {
            replacing = true
            child.terminate()
        } else {
            startChild()
        }
    }

    private func startChild() {
        guard let image else { return }
        guard let framePipe = try? FileDescriptor.pipe() else { return restarts.failed(at: monotonicSeconds()) }
        let (read, write) = (framePipe.read.rawValue, framePipe.write.rawValue)
        _ = fcntl(read, F_SETFL, fcntl(read, F_GETFL) | O_NONBLOCK)
        _ = fcntl(write, F_SETFL, fcntl(write, F_GETFL) | O_NONBLOCK)
        setCloseOnExec(read)
        setCloseOnExec(write)
        child = UIChild.start(canvasArgument: "shm:" + image.geometry.spec,
                              descriptors: [(image.descriptor, SharedMemoryCanvas.imageFD), (write, SharedMemoryCanvas.frameFD)])
        close(write)
        closeFrames()
        if child == nil {
            close(read)
            restarts.failed(at: monotonicSeconds())
        } else {
            frameRead = read
        }
    }

    private func closeFrames() {
        if frameRead >= 0 { close(frameRead) }
        frameRead = -1
    }

    /// The child finished a frame: every output shows its part of it.
    private func showFrame() {
        // At most 8 reads, as UIChild.readStatus: a child that writes
        // frames without end cannot hold the loop here.
        var bytes = [UInt8](repeating: 0, count: 64)
        for _ in 0..<8 where frameRead >= 0 {
            let count = read(frameRead, &bytes, bytes.count)
            if count > 0 || (count < 0 && errno == EINTR) { continue }
            if count == 0 || errno != EAGAIN { closeFrames() }
            break
        }
        guard let image else { return }
        for (index, output) in outputs.enumerated() where index < image.buffers.count {
            output.show(image.buffers[index], width: Int32(image.geometry.outputs[index].width),
                        height: Int32(image.geometry.outputs[index].height), scale: image.geometry.scales[index])
        }
    }

    func forward(_ event: InputEvent) { child?.send(event) }

    /// Which output a surface belongs to, for positions on it.
    func outputIndex(of surface: OpaquePointer?) -> Int? { outputs.firstIndex { $0.surface == surface } }

    func imagePoint(surface: OpaquePointer?, x: Double, y: Double) -> (x: Int, y: Int)? {
        guard let image, let index = outputIndex(of: surface) else { return nil }
        return image.geometry.imagePoint(output: index, x: x, y: y)
    }

    /// The geometry the child draws now, nil before the first image.
    var geometry: OutputGeometry? { image?.geometry }

    // MARK: the loop

    private func loop() -> Int32 {
        geometryChanged()
        let connection = wl_display_get_fd(display)
        while true {
            while wl_display_prepare_read(display) != 0 { wl_display_dispatch_pending(display) }
            wl_display_flush(display)
            // Each pipe only while it may still bring data: at EOF it would
            // wake every poll at once.
            var descriptors = [pollfd(fd: connection, events: Int16(POLLIN), revents: 0)]
            let framesAt = descriptors.count
            if frameRead >= 0 { descriptors.append(pollfd(fd: frameRead, events: Int16(POLLIN), revents: 0)) }
            if let child {
                if !child.statusClosed { descriptors.append(pollfd(fd: child.statusFD, events: Int16(POLLIN), revents: 0)) }
                if child.exitFD >= 0 { descriptors.append(pollfd(fd: child.exitFD, events: Int16(POLLIN), revents: 0)) }
            }
            var timeout: Int32 = child == nil ? 50 : (child!.exitFD < 0 ? 5 : 250)
            // A held key's next repeat (wl_keyboard.repeat_info).
            if let next = seats.compactMap(\.nextRepeat).min() {
                timeout = min(timeout, Int32(max(0, ((next - monotonicSeconds()) * 1000).rounded(.up))))
            }
            _ = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if descriptors[0].revents & Int16(POLLIN) != 0 {
                if wl_display_read_events(display) != 0 { return connectionLost() }
            } else {
                wl_display_cancel_read(display)
                if descriptors[0].revents & Int16(POLLHUP | POLLERR) != 0 { return connectionLost() }
            }
            if wl_display_dispatch_pending(display) < 0 { return connectionLost() }
            if finished { return lockFinished() }
            // (A child started by an event dispatched just now has a frame
            // pipe this poll did not have.)
            if frameRead >= 0, descriptors.count > framesAt, descriptors[framesAt].fd == frameRead,
               descriptors[framesAt].revents != 0 { showFrame() }
            let now = monotonicSeconds()
            for seat in seats { seat.repeatHeldKey(now: now) }
            if let current = child {
                current.readStatus()
                if let ending = current.ending() {
                    child = nil
                    closeFrames()
                    if ending == .unlocked { return unlock() }
                    if replacing {
                        replacing = false
                        restarts.startNow()
                    } else {
                        Diagnostics.error(L("the lock screen's UI stopped (%s); starting it again — the screen stays locked", ending.description))
                        restarts.failed(at: monotonicSeconds())
                    }
                }
            }
            if child == nil, image != nil, restarts.due(at: monotonicSeconds()) { startChild() }
        }
    }

    /// The UI said PAM succeeded and exited 0: the one way to unlock. The
    /// sync makes sure the compositor has the request before this exits.
    private func unlock() -> Int32 {
        guard let lock else { return Locker.ExitStatus.cannotLock }
        // "locked" may be on its way: one roundtrip reads it.
        if !locked { wl_display_roundtrip(display) }
        guard locked else {
            // Not locked yet: the lock is withdrawn (destroy is allowed
            // before "locked"; unlock_and_destroy is not), so the compositor
            // does not go on to lock a session whose owner just proved who
            // they are, with no locker left.
            ext_session_lock_v1_destroy(lock)
            wl_display_roundtrip(display)
            Diagnostics.trace("unlocked by the UI before the compositor locked: lock withdrawn \(traceTime())")
            return Locker.ExitStatus.unlocked
        }
        ext_session_lock_v1_unlock_and_destroy(lock)
        wl_display_roundtrip(display)
        Diagnostics.trace("unlocked by the UI \(traceTime())")
        return Locker.ExitStatus.unlocked
    }

    /// The compositor sent `finished`: it refused the lock (another locker
    /// holds it) or ended it itself. Whether the session is still locked is
    /// the compositor's to say; this process sends no request on the lock
    /// again — above all no unlock_and_destroy, which is for PAM's success
    /// only — and exits non-zero, its connection closing with it.
    private func lockFinished() -> Int32 {
        child?.terminate()
        if locked {
            Diagnostics.error(L("the compositor ended the lock (another program may have locked the screen); pingate-lock stops without unlocking"))
        } else {
            Diagnostics.error(L("not locking: the compositor refused the lock (another locker holds it?)"))
        }
        return Locker.ExitStatus.cannotLock
    }

    /// The compositor went away (or closed the connection for a protocol
    /// error): the session it locked is its own to keep locked.
    private func connectionLost() -> Int32 {
        child?.terminate()
        Diagnostics.error(L("lost the connection to the Wayland compositor"))
        return Locker.ExitStatus.cannotLock
    }
}

// MARK: listeners: C function tables, made once and never freed

func lockerOf(_ data: UnsafeMutableRawPointer?) -> WaylandLocker {
    Unmanaged<WaylandLocker>.fromOpaque(data!).takeUnretainedValue()
}

nonisolated(unsafe) private let registryListener = listenerTable(wl_registry_listener(
    global: { data, registry, name, interface, version in
        lockerOf(data).global(registry!, name: name, interface: String(cString: interface!), version: version)
    },
    global_remove: { data, _, name in lockerOf(data).globalRemoved(name: name) }))

nonisolated(unsafe) private let lockListener = listenerTable(ext_session_lock_v1_listener(
    locked: { data, _ in lockerOf(data).lockedEvent() },
    finished: { data, _ in lockerOf(data).finishedEvent() }))
#endif
