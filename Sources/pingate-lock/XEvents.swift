import CX11

/// Hands every event already queued on `display` to `body`, without waiting
/// for more: both processes' loops drain X this way before they poll.
func forEachPendingEvent(_ display: OpaquePointer, _ body: (inout XEvent) -> Void) {
    while XPending(display) > 0 {
        var event = XEvent()
        XNextEvent(display, &event)
        body(&event)
    }
}
