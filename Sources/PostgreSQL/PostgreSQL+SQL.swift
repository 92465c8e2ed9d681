// PostgreSQL is the second backend of the record stores' SQL interface.
@_exported import SQL
