import SQL
import Testing

/// `?N` and bare `?` become `$N`; quoted text and comments keep theirs.
@Suite struct PlaceholdersTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let sqlite: String
        let postgres: String
        let count: Int
        var testDescription: String { sqlite }
    }

    static let cases: [Case] = [
        Case(sqlite: "SELECT 1", postgres: "SELECT 1", count: 0),
        Case(sqlite: "SELECT * FROM t WHERE a = ? AND b = ?", postgres: "SELECT * FROM t WHERE a = $1 AND b = $2", count: 2),
        Case(sqlite: "UPDATE t SET a = ?2 WHERE id = ?1", postgres: "UPDATE t SET a = $2 WHERE id = $1", count: 2),
        Case(sqlite: "SELECT ?1, ?1, ?12", postgres: "SELECT $1, $1, $12", count: 12),
        // SQLite numbers a bare ? one past the largest so far.
        Case(sqlite: "SELECT ?3, ?", postgres: "SELECT $3, $4", count: 4),
        Case(sqlite: "SELECT '?', \"a?\", ? -- why?\n, ?", postgres: "SELECT '?', \"a?\", $1 -- why?\n, $2", count: 2),
        Case(sqlite: "SELECT 'it''s ?', ?", postgres: "SELECT 'it''s ?', $1", count: 1),
        Case(sqlite: "SELECT 'ü', ?", postgres: "SELECT 'ü', $1", count: 1),
    ]

    @Test(arguments: cases)
    func rewrites(_ item: Case) {
        let rewritten = Placeholders.postgres(item.sqlite)
        #expect(rewritten.sql == item.postgres)
        #expect(rewritten.count == item.count)
    }
}
