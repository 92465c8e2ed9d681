/// Rewrites SQLite placeholders (`?` and `?NNN`) to PostgreSQL's `$N`.
///
/// A bare `?` takes the number one past the largest used so far, as SQLite numbers it.
/// Placeholders inside string literals, quoted identifiers and comments are left alone.
public enum Placeholders {
    /// The statement with `$N` placeholders, and how many distinct parameters it takes.
    public static func postgres(_ sql: String) -> (sql: String, count: Int) {
        var output = ""
        output.reserveCapacity(sql.utf8.count + 8)
        var largest = 0
        var chars = Array(sql.unicodeScalars)[...]
        while let char = chars.popFirst() {
            switch char {
            case "'", "\"":
                output.unicodeScalars.append(char)
                while let next = chars.popFirst() {
                    output.unicodeScalars.append(next)
                    if next == char { break }  // a doubled quote reopens at once, so it needs no special case
                }
            case "-" where chars.first == "-":
                output.unicodeScalars.append(char)
                while let next = chars.popFirst() {
                    output.unicodeScalars.append(next)
                    if next == "\n" { break }
                }
            case "?":
                var digits = ""
                while let next = chars.first, next.properties.numericType == .decimal, next.isASCII {
                    digits.unicodeScalars.append(next)
                    chars.removeFirst()
                }
                let number = digits.isEmpty ? largest + 1 : Int(digits) ?? 0
                largest = max(largest, number)
                output += "$\(number)"
            default:
                output.unicodeScalars.append(char)
            }
        }
        return (output, largest)
    }
}
