import Settings

/// A command's parsed arguments: positionals, flags with values, and boolean switches.
public struct Arguments: Sendable {
    public var positionals: [String] = []
    public var values: [String: String] = [:]
    public var switches: Set<String> = []

    public func value(_ flag: String) -> String? { values[flag] }
    public func has(_ flag: String) -> Bool { switches.contains(flag) }

    /// Parses `--flag VALUE`, `--flag=VALUE` and `--switch`; `--` ends flag parsing.
    /// Unknown flags are usage errors that suggest the nearest known one.
    static func parse(_ words: [String], valueFlags: [String], switchFlags: [String]) throws -> Arguments {
        var parsed = Arguments()
        var index = 0
        var flagsEnded = false
        while index < words.count {
            let word = words[index]
            index += 1
            // Flags are `--long` (and `-h`); other words starting with one dash are values, since
            // key ids and other base64url identifiers may begin with "-".
            let isFlag = word.hasPrefix("--") || switchFlags.contains(word) || valueFlags.contains(word)
            guard !flagsEnded, isFlag else {
                parsed.positionals.append(word)
                continue
            }
            if word == "--" { flagsEnded = true; continue }
            var name = word
            var inlineValue: String?
            if let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inlineValue = String(word[word.index(after: equals)...])
            }
            if valueFlags.contains(name) {
                if let inlineValue {
                    parsed.values[name] = inlineValue
                } else {
                    guard index < words.count else { throw AdminError.usage("\(name) needs a value") }
                    parsed.values[name] = words[index]
                    index += 1
                }
            } else if switchFlags.contains(name), inlineValue == nil {
                parsed.switches.insert(name)
            } else {
                var message = "unknown flag \(name)"
                if let nearest = Suggest.nearest(to: name, among: valueFlags + switchFlags) { message += " (did you mean \(nearest)?)" }
                throw AdminError.usage(message)
            }
        }
        return parsed
    }
}
