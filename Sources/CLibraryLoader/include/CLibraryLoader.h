// A shared library opened at run time with dlopen, and its symbols resolved with dlsym, each
// failure worded for an operator: the library, the Debian package that ships it, dlerror's text.
// CCurlLoader and CLibPQLoader build on it (README "Memory and start").
#ifndef GH_LIBRARY_LOADER_H
#define GH_LIBRARY_LOADER_H

#include <stdbool.h>

/// One library to open: its soname, the Debian package to install, and what went wrong.
struct gh_library {
    const char *soname;
    const char *package;
    /// dlopen's handle; NULL until `gh_library_open` succeeds and after `gh_library_close`.
    void *handle;
    /// Empty while nothing failed; else the operator's message (the first failure wins).
    char error[512];
};

/// dlopen(soname, RTLD_NOW | RTLD_LOCAL): every symbol bound now, none of them made global.
bool gh_library_open(struct gh_library *library);

/// The address of `name`, or NULL with `error` set (the library is then closed).
void *gh_library_symbol(struct gh_library *library, const char *name);

void gh_library_close(struct gh_library *library);

#endif
