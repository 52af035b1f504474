import CSodium

// Secrets themselves are `Secret`s. Plain arrays that hold something derived
// from one for a moment (where a typed pattern's runs of digits end, the
// cells between two dots) follow two rules, so that no copy is left in
// freed memory, where no wipe can reach:
//
// - their capacity is reserved up front for the most they can hold, so they
//   never grow: growing copies the elements and frees the old storage as is;
// - they are wiped before they are dropped, while they are the only owner of
//   their storage (a write to shared storage would copy it and wipe the copy).
//
// `SecretCopiesTests` looks at freed memory for what these rules prevent.
extension Array where Element: BitwiseCopyable {
    /// An empty array with room for `capacity` elements: appending up to
    /// that many never reallocates.
    public init(secretScratchCapacity capacity: Int) {
        self.init()
        reserveCapacity(capacity)
    }

    /// Appends `element`, which must fit the reserved capacity: growing
    /// would leave the old storage unwiped, so a miscounted capacity traps.
    public mutating func appendWithinCapacity(_ element: Element) {
        precondition(count < capacity, "a secret scratch array outgrew its reserved capacity")
        append(element)
    }

    /// Zeroes the elements with sodium_memzero, which the optimiser may not
    /// drop as a dead store before the array is freed.
    public mutating func wipe() {
        withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) }
    }
}
