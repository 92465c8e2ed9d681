// SQLite is one backend of the record stores' SQL interface; the stores see these
// types only through `SQLDatabase` and `SQLConnection`.
@_exported import SQL

extension Connection: SQLConnection {
    public var dialect: SQLDialect { .sqlite }
}

extension Database: SQLDatabase {
    public var dialect: SQLDialect { .sqlite }
}
