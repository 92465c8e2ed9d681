// libcurl, for SMTP delivery (Sources/Mail) and HTTPS towards upstream providers
// (Sources/Server/Upstream), opened with dlopen the first time one of them needs it, so a daemon
// that needs neither never maps libcurl or the thirty libraries it pulls in (README "Memory and
// start"). The header gives the types and constants; calls go through the entry points below,
// never the header's own functions (the binaries do not link libcurl, so those do not link).
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: each argument
// type gets a typed entry point.
#ifndef GH_CURL_LOADER_H
#define GH_CURL_LOADER_H

#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

/// Opens libcurl.so.4, resolves the symbols we call and runs curl_global_init, once per process
/// (pthread_once). NULL when libcurl is usable; otherwise why not (the library, the Debian package
/// libcurl4 and dlerror's text), the same text on every later call.
const char *gh_curl_load(void);

/// The tests' seam: what `gh_curl_load` would say for `soname`, without touching the process's
/// libcurl (the library is closed again). NULL when it would load; else a message to free().
char *gh_curl_check(const char *soname);

// The entry points. Each needs a successful gh_curl_load first (calling one without is a bug,
// and aborts).
CURL *gh_curl_easy_init(void);
void gh_curl_easy_cleanup(CURL *handle);
CURLcode gh_curl_easy_perform(CURL *handle);
const char *gh_curl_easy_strerror(CURLcode code);
struct curl_slist *gh_curl_slist_append(struct curl_slist *list, const char *string);
void gh_curl_slist_free_all(struct curl_slist *list);

CURLcode gh_curl_set_long(CURL *handle, CURLoption option, long value);
CURLcode gh_curl_set_string(CURL *handle, CURLoption option, const char *value);
CURLcode gh_curl_set_pointer(CURL *handle, CURLoption option, void *value);
CURLcode gh_curl_set_list(CURL *handle, CURLoption option, struct curl_slist *value);

typedef size_t (*gh_curl_read_callback)(char *buffer, size_t size, size_t count, void *context);
typedef size_t (*gh_curl_write_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*gh_curl_progress_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);

CURLcode gh_curl_set_read_function(CURL *handle, gh_curl_read_callback callback);
/// For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION, which share one signature.
CURLcode gh_curl_set_write_function(CURL *handle, CURLoption option, gh_curl_write_callback callback);
CURLcode gh_curl_set_progress_function(CURL *handle, gh_curl_progress_callback callback);

/// CURLINFO_RESPONSE_CODE: the last SMTP reply or HTTP status, 0 when none arrived.
long gh_curl_response_code(CURL *handle);

#endif
