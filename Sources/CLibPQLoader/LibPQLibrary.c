// Opening libpq once per process, for gh_pq_load, and for gh_pq_check on another soname.
#include "LibPQSymbols.h"

#include <CLibraryLoader.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char package[] = "libpq5";

static bool open_and_resolve(struct gh_library *library, struct gh_pq_symbols *symbols) {
    if (!gh_library_open(library)) return false;
#define GH_PQ_RESOLVE(name) \
    if ((symbols->name = (__typeof__(&name))gh_library_symbol(library, #name)) == NULL) return false;
    GH_PQ_SYMBOLS(GH_PQ_RESOLVE)
#undef GH_PQ_RESOLVE
    return true;
}

static struct gh_library library = {.soname = "libpq.so.5", .package = package};
static struct gh_pq_symbols symbols;
static bool usable;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load_once(void) { usable = open_and_resolve(&library, &symbols); }

const char *gh_pq_load(void) {
    pthread_once(&once, load_once);
    return usable ? NULL : library.error;
}

const struct gh_pq_symbols *gh_pq(void) {
    if (gh_pq_load() != NULL) {
        fprintf(stderr, "libpq called before gh_pq_load succeeded: %s\n", library.error);
        abort();
    }
    return &symbols;
}

char *gh_pq_check(const char *soname) {
    struct gh_library probe = {.soname = soname, .package = package};
    struct gh_pq_symbols resolved;
    bool loaded = open_and_resolve(&probe, &resolved);
    gh_library_close(&probe);
    return loaded ? NULL : strdup(probe.error);
}
