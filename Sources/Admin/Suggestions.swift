import Settings

/// "Did you mean …?" for a mistyped command: within the group the operator named first
/// (`apps rotate` → `apps rotate-secret`, not `keys rotate`), then among every command.
enum CommandSuggestions {
    static func nearest(to words: [String], among commands: [Command]) -> String? {
        let typed = words.prefix { !$0.hasPrefix("-") }.prefix(2)
        guard let groupName = typed.first else { return nil }
        let group = commands.filter { $0.path.count > 1 && $0.path[0] == groupName }
        if typed.count == 2, !group.isEmpty {
            let verb = typed[typed.index(after: typed.startIndex)]
            // An abbreviation of exactly one command of the group.
            let prefixed = group.filter { $0.path[1].hasPrefix(verb) }
            if prefixed.count == 1 { return prefixed[0].name }
            if let nearest = Suggest.nearest(to: verb, among: group.map { $0.path[1] }) { return "\(groupName) \(nearest)" }
        }
        let candidates = commands.map(\.name) + Set(commands.map { $0.path[0] })
        return Suggest.nearest(to: typed.joined(separator: " "), among: candidates)
    }
}
