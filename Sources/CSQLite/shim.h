// Inline helpers for SQLite macros Swift cannot import.
#include <sqlite3.h>

/// Binds text that SQLite copies at once (SQLITE_TRANSIENT is a cast macro).
static inline int gh_sqlite3_bind_text_transient(sqlite3_stmt *stmt, int index, const char *text, int length) {
    return sqlite3_bind_text(stmt, index, text, length, SQLITE_TRANSIENT);
}

/// Binds a blob that SQLite copies at once.
static inline int gh_sqlite3_bind_blob_transient(sqlite3_stmt *stmt, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(stmt, index, bytes, length, SQLITE_TRANSIENT);
}

/// sqlite3_db_config is variadic; this is the one-integer form.
static inline int gh_sqlite3_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}

/// sqlite3_config is variadic; this is SQLITE_CONFIG_MEMSTATUS, which SQLite accepts only before it initialises.
static inline int gh_sqlite3_config_memstatus(int enabled) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, enabled);
}

/// sqlite3_config is variadic; this is SQLITE_CONFIG_PAGECACHE with no buffer of ours, and `lines`
/// cache lines each connection allocates in one block at its first read (0: none, pages come one by one).
static inline int gh_sqlite3_config_initial_page_cache(int lines) {
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, lines);
}
