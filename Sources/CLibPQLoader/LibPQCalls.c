// The entry points Swift calls, each through the symbol gh_pq_load resolved.
#include "LibPQSymbols.h"

PGconn *gh_PQconnectdbParams(const char *const *keywords, const char *const *values, int expand_dbname) {
    return gh_pq()->PQconnectdbParams(keywords, values, expand_dbname);
}

ConnStatusType gh_PQstatus(const PGconn *connection) { return gh_pq()->PQstatus(connection); }

char *gh_PQerrorMessage(const PGconn *connection) { return gh_pq()->PQerrorMessage(connection); }

void gh_PQfinish(PGconn *connection) { gh_pq()->PQfinish(connection); }

PGTransactionStatusType gh_PQtransactionStatus(const PGconn *connection) { return gh_pq()->PQtransactionStatus(connection); }

PGresult *gh_PQexec(PGconn *connection, const char *query) { return gh_pq()->PQexec(connection, query); }

PGresult *gh_PQexecParams(PGconn *connection, const char *command, int count, const Oid *types,
                          const char *const *values, const int *lengths, const int *formats, int resultFormat) {
    return gh_pq()->PQexecParams(connection, command, count, types, values, lengths, formats, resultFormat);
}

void gh_PQclear(PGresult *result) { gh_pq()->PQclear(result); }

ExecStatusType gh_PQresultStatus(const PGresult *result) { return gh_pq()->PQresultStatus(result); }

char *gh_PQresultErrorField(const PGresult *result, int field) { return gh_pq()->PQresultErrorField(result, field); }

char *gh_PQcmdTuples(PGresult *result) { return gh_pq()->PQcmdTuples(result); }

int gh_PQntuples(const PGresult *result) { return gh_pq()->PQntuples(result); }

int gh_PQnfields(const PGresult *result) { return gh_pq()->PQnfields(result); }

char *gh_PQfname(const PGresult *result, int column) { return gh_pq()->PQfname(result, column); }

Oid gh_PQftype(const PGresult *result, int column) { return gh_pq()->PQftype(result, column); }

int gh_PQgetisnull(const PGresult *result, int row, int column) { return gh_pq()->PQgetisnull(result, row, column); }

int gh_PQgetlength(const PGresult *result, int row, int column) { return gh_pq()->PQgetlength(result, row, column); }

char *gh_PQgetvalue(const PGresult *result, int row, int column) { return gh_pq()->PQgetvalue(result, row, column); }
