// The libcurl functions we call, resolved by CurlLibrary.c and called by CurlCalls.c.
#ifndef GH_CURL_SYMBOLS_H
#define GH_CURL_SYMBOLS_H

#include "CCurlLoader.h"

// Every libcurl symbol the binaries use, once: the struct's fields and the names to resolve are
// generated from this list, so the two cannot drift apart.
#define GH_CURL_SYMBOLS(X) \
    X(curl_global_init)    \
    X(curl_easy_init)      \
    X(curl_easy_cleanup)   \
    X(curl_easy_setopt)    \
    X(curl_easy_perform)   \
    X(curl_easy_getinfo)   \
    X(curl_easy_strerror)  \
    X(curl_slist_append)   \
    X(curl_slist_free_all)

/// Each field has the exact type of the header's prototype: the variadic curl_easy_setopt and
/// curl_easy_getinfo are called through variadic pointers, as C requires.
struct gh_curl_symbols {
#define GH_CURL_FIELD(name) __typeof__(&name) name;
    GH_CURL_SYMBOLS(GH_CURL_FIELD)
#undef GH_CURL_FIELD
};

/// The loaded symbols; aborts when gh_curl_load has not succeeded (a caller that skipped it).
const struct gh_curl_symbols *gh_curl(void);

#endif
