/// "Did you mean …?" for keys, commands and flags.
public enum Suggest {
    /// The candidate closest to `word` by edit distance, if close enough to be a plausible typo.
    public static func nearest(to word: String, among candidates: [String]) -> String? {
        let limit = max(2, word.count / 3)
        var best: (String, Int)?
        for candidate in candidates {
            let distance = editDistance(Array(word.utf8), Array(candidate.utf8))
            if distance <= limit, distance < (best?.1 ?? Int.max) { best = (candidate, distance) }
        }
        return best?.0
    }

    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            if !b.isEmpty {
                for j in 1...b.count {
                    current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                }
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
