// Opening libcurl once per process, for gh_curl_load, and for gh_curl_check on another soname.
#include "CurlSymbols.h"

#include <CLibraryLoader.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char soname[] = "libcurl.so.4";
static const char package[] = "libcurl4";

static bool open_and_resolve(struct gh_library *library, struct gh_curl_symbols *symbols) {
    if (!gh_library_open(library)) return false;
#define GH_CURL_RESOLVE(name) \
    if ((symbols->name = (__typeof__(&name))gh_library_symbol(library, #name)) == NULL) return false;
    GH_CURL_SYMBOLS(GH_CURL_RESOLVE)
#undef GH_CURL_RESOLVE
    return true;
}

static struct gh_library library = {.soname = soname, .package = package};
static struct gh_curl_symbols symbols;
static bool usable;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load_once(void) {
    if (!open_and_resolve(&library, &symbols)) return;
    // libcurl's own global state, set up once here rather than raced by its first callers.
    CURLcode code = symbols.curl_global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        snprintf(library.error, sizeof library.error, "%s: curl_global_init failed: %s", soname, symbols.curl_easy_strerror(code));
        return;
    }
    usable = true;
}

const char *gh_curl_load(void) {
    pthread_once(&once, load_once);
    return usable ? NULL : library.error;
}

const struct gh_curl_symbols *gh_curl(void) {
    if (gh_curl_load() != NULL) {
        fprintf(stderr, "libcurl called before gh_curl_load succeeded: %s\n", library.error);
        abort();
    }
    return &symbols;
}

char *gh_curl_check(const char *name) {
    struct gh_library probe = {.soname = name, .package = package};
    struct gh_curl_symbols resolved;
    bool loaded = open_and_resolve(&probe, &resolved);
    gh_library_close(&probe);
    return loaded ? NULL : strdup(probe.error);
}
