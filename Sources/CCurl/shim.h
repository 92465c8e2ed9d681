// libcurl, for SMTP delivery (Sources/Mail) and HTTPS towards upstream providers
// (Sources/Server/Upstream). curl_easy_setopt and curl_easy_getinfo are
// variadic, which Swift cannot call: each argument type gets a typed inline wrapper.
#include <curl/curl.h>

static inline CURLcode gh_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gh_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gh_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gh_curl_set_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

typedef size_t (*gh_curl_read_callback)(char *buffer, size_t size, size_t count, void *context);
typedef size_t (*gh_curl_write_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*gh_curl_progress_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode gh_curl_set_read_function(CURL *handle, gh_curl_read_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, callback);
}

// For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION, which share one signature.
static inline CURLcode gh_curl_set_write_function(CURL *handle, CURLoption option, gh_curl_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode gh_curl_set_progress_function(CURL *handle, gh_curl_progress_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

static inline long gh_curl_response_code(CURL *handle) {
    long code = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code);
    return code;
}
