extension Array where Element: FixedWidthInteger {
    /// A copy in storage of its own. `let copy = array` shares the storage
    /// until one side is written, and the wipe that follows would then be a
    /// write that moves the entry to new storage, leaving the typed secret in
    /// the storage the copy keeps and the entry's room no longer reserved.
    func separateCopy() -> [Element] {
        [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in indices { buffer[index] = self[index] }
            initialized = count
        }
    }
}
