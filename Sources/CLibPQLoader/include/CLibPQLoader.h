// libpq, for the PostgreSQL storage backend (Debian libpq-dev for the header, libpq5 at run
// time), opened with dlopen when a postgresql:// database is first opened, so a daemon on SQLite
// never maps libpq or what it pulls in (README "Memory and start"). The header gives the types
// and constants; calls go through the gh_ entry points below, never the header's own functions
// (the binaries do not link libpq, so those do not link).
#ifndef GH_LIBPQ_LOADER_H
#define GH_LIBPQ_LOADER_H

// Debian keeps the header in /usr/include/postgresql; naming the directory here spares every
// target a search path (its own includes are relative to it).
#include <postgresql/libpq-fe.h>

/// Opens libpq.so.5 and resolves the functions we call, once per process (pthread_once). NULL
/// when libpq is usable; otherwise why not (the library, the Debian package libpq5 and
/// dlerror's text), the same text on every later call.
const char *gh_pq_load(void);

/// The tests' seam: what `gh_pq_load` would say for `soname`, without touching the process's
/// libpq (the library is closed again). NULL when it would load; else a message to free().
char *gh_pq_check(const char *soname);

// The entry points, one per libpq function we call, with its prototype. Each needs a
// successful gh_pq_load first (calling one without is a bug, and aborts).
PGconn *gh_PQconnectdbParams(const char *const *keywords, const char *const *values, int expand_dbname);
ConnStatusType gh_PQstatus(const PGconn *connection);
char *gh_PQerrorMessage(const PGconn *connection);
void gh_PQfinish(PGconn *connection);
PGTransactionStatusType gh_PQtransactionStatus(const PGconn *connection);
PGresult *gh_PQexec(PGconn *connection, const char *query);
PGresult *gh_PQexecParams(PGconn *connection, const char *command, int count, const Oid *types,
                          const char *const *values, const int *lengths, const int *formats, int resultFormat);
void gh_PQclear(PGresult *result);
ExecStatusType gh_PQresultStatus(const PGresult *result);
char *gh_PQresultErrorField(const PGresult *result, int field);
char *gh_PQcmdTuples(PGresult *result);
int gh_PQntuples(const PGresult *result);
int gh_PQnfields(const PGresult *result);
char *gh_PQfname(const PGresult *result, int column);
Oid gh_PQftype(const PGresult *result, int column);
int gh_PQgetisnull(const PGresult *result, int row, int column);
int gh_PQgetlength(const PGresult *result, int row, int column);
char *gh_PQgetvalue(const PGresult *result, int row, int column);

#endif
