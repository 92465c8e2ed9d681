#include "CLibraryLoader.h"

#include <dlfcn.h>
#include <stdio.h>

bool gh_library_open(struct gh_library *library) {
    dlerror();
    library->handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (library->handle != NULL) return true;
    const char *reason = dlerror();
    snprintf(library->error, sizeof library->error, "%s cannot be loaded (install the Debian package %s): %s",
             library->soname, library->package, reason != NULL ? reason : "dlopen failed");
    return false;
}

void *gh_library_symbol(struct gh_library *library, const char *name) {
    dlerror();
    void *symbol = dlsym(library->handle, name);
    const char *reason = dlerror();
    // Every symbol we resolve is a function, so NULL is a failure even without a dlerror text.
    if (symbol != NULL && reason == NULL) return symbol;
    snprintf(library->error, sizeof library->error, "%s has no %s (install or upgrade the Debian package %s): %s",
             library->soname, name, library->package, reason != NULL ? reason : "the symbol is NULL");
    gh_library_close(library);
    return NULL;
}

void gh_library_close(struct gh_library *library) {
    if (library->handle != NULL) dlclose(library->handle);
    library->handle = NULL;
}
