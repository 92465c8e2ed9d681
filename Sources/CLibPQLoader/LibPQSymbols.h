// The libpq functions we call, resolved by LibPQLibrary.c and called by LibPQCalls.c.
#ifndef GH_LIBPQ_SYMBOLS_H
#define GH_LIBPQ_SYMBOLS_H

#include "CLibPQLoader.h"

// Every libpq symbol the binaries use, once: the struct's fields and the names to resolve are
// generated from this list, so the two cannot drift apart.
#define GH_PQ_SYMBOLS(X)   \
    X(PQconnectdbParams)   \
    X(PQstatus)            \
    X(PQerrorMessage)      \
    X(PQfinish)            \
    X(PQtransactionStatus) \
    X(PQexec)              \
    X(PQexecParams)        \
    X(PQclear)             \
    X(PQresultStatus)      \
    X(PQresultErrorField)  \
    X(PQcmdTuples)         \
    X(PQntuples)           \
    X(PQnfields)           \
    X(PQfname)             \
    X(PQftype)             \
    X(PQgetisnull)         \
    X(PQgetlength)         \
    X(PQgetvalue)

/// Each field has the exact type of the header's prototype.
struct gh_pq_symbols {
#define GH_PQ_FIELD(name) __typeof__(&name) name;
    GH_PQ_SYMBOLS(GH_PQ_FIELD)
#undef GH_PQ_FIELD
};

/// The loaded symbols; aborts when gh_pq_load has not succeeded (a caller that skipped it).
const struct gh_pq_symbols *gh_pq(void);

#endif
