#if canImport(CWaylandProtocols)
/// A listener table (a C struct of callbacks) at an address that never
/// moves: libwayland keeps the pointer for the object's life. Made once per
/// kind of object, never freed.
func listenerTable<T>(_ value: T) -> UnsafeMutablePointer<T> {
    let pointer = UnsafeMutablePointer<T>.allocate(capacity: 1)
    pointer.initialize(to: value)
    return pointer
}
#endif
