/// Folded (lowercased) passwords, sorted and without repeats, in one byte buffer, looked up by
/// binary search.
///
/// A list file of a few thousand lines takes about its own size here. As a `Set<String>` it took
/// four times that (a power-of-two table of 16-byte strings), and building it from the file's
/// text, its lines and their folded copies touched 320 KiB of the loading thread's malloc arena
/// for good: a tenth of an idle daemon's anonymous memory (README "Memory and start").
struct FoldedPasswordList: Sendable {
    /// The entries' UTF-8, one after another in ascending byte order.
    private let bytes: [UInt8]
    /// Where each entry ends in `bytes`; entry i starts where entry i - 1 ends (0 for the first).
    private let ends: [Int]

    var count: Int { ends.count }

    /// Folds each entry, then sorts and drops repeats.
    init(folding entries: some Sequence<String>) {
        self.init(listText: [UInt8](), adding: Array(entries))
    }

    /// A list file's UTF-8 text: one password per line (LF, CR LF or CR), blank lines and `#!` comments
    /// skipped, each line folded as it is read, so the file's text is never held as strings.
    init(listText text: some Collection<UInt8>, adding extra: [String] = []) {
        var builder = Builder()
        Self.forEachLine(of: text) { line in
            guard !line.isEmpty, !line.starts(with: Self.commentMarker) else { return }
            builder.append(String(decoding: line, as: UTF8.self).lowercased())
        }
        for entry in extra { builder.append(entry.lowercased()) }
        (bytes, ends) = builder.sortedUnique()
    }

    /// Whether `folded` (already lowercased) is an entry.
    func contains(_ folded: String) -> Bool {
        var key = folded
        return key.withUTF8 { key in
            bytes.withUnsafeBufferPointer { all in
                var low = 0, high = ends.count
                while low < high {
                    let middle = (low + high) / 2
                    let entry = Self.entry(middle, of: all, ends: ends)
                    if entry.lexicographicallyPrecedes(key) { low = middle + 1 } else { high = middle }
                }
                return low < ends.count && Self.entry(low, of: all, ends: ends).elementsEqual(key)
            }
        }
    }

    private static let commentMarker = Array("#!".utf8)

    private static func entry(_ index: Int, of all: UnsafeBufferPointer<UInt8>, ends: [Int]) -> Slice<UnsafeBufferPointer<UInt8>> {
        all[(index == 0 ? 0 : ends[index - 1])..<ends[index]]
    }

    /// Each line of `text` without its line end (LF, CR LF, or a lone CR), one at a time.
    private static func forEachLine<Text: Collection<UInt8>>(of text: Text, _ body: (Text.SubSequence) -> Void) {
        var start = text.startIndex
        var index = start
        while index != text.endIndex {
            if text[index] == UInt8(ascii: "\n") || text[index] == UInt8(ascii: "\r") {
                body(text[start..<index])
                start = text.index(after: index)
            }
            index = text.index(after: index)
        }
        body(text[start..<index])
    }

    /// Entries in arrival order, then one sorted pass into the final buffer.
    private struct Builder {
        var bytes: [UInt8] = []
        var ends: [Int] = []

        mutating func append(_ folded: String) {
            bytes.append(contentsOf: folded.utf8)
            ends.append(bytes.count)
        }

        func sortedUnique() -> (bytes: [UInt8], ends: [Int]) {
            bytes.withUnsafeBufferPointer { all in
                let entry = { (index: Int) in FoldedPasswordList.entry(index, of: all, ends: ends) }
                let order = (0..<ends.count).sorted { entry($0).lexicographicallyPrecedes(entry($1)) }
                var sorted: [UInt8] = []
                var sortedEnds: [Int] = []
                sorted.reserveCapacity(bytes.count)
                sortedEnds.reserveCapacity(ends.count)
                var previous: Slice<UnsafeBufferPointer<UInt8>>?
                for index in order {
                    let next = entry(index)
                    if let previous, previous.elementsEqual(next) { continue }
                    sorted.append(contentsOf: next)
                    sortedEnds.append(sorted.count)
                    previous = next
                }
                return (sorted, sortedEnds)
            }
        }
    }
}
