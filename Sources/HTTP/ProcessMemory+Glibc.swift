import CLinux

/// The process's heap, as glibc's malloc keeps it.
public enum ProcessMemory {
    /// Gives the kernel back every whole free page of every malloc arena (`malloc_trim(0)`), and
    /// says whether any was. glibc keeps freed memory mapped for reuse, and only shrinks an arena
    /// from its top: what a start parsed once and freed (the password blocklist's lines, on a
    /// thread whose arena nothing else fills) stayed in the idle daemon's memory for good
    /// (README "Memory and start"). Cheap, but it walks every arena under its lock: for after a
    /// start's one-off work, not for a request path.
    @discardableResult
    public static func returnFreedPages() -> Bool {
        malloc_trim(0) == 1
    }
}
