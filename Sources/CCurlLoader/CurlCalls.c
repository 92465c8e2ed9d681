// The entry points Swift calls, each through the symbol gh_curl_load resolved.
#include "CurlSymbols.h"

CURL *gh_curl_easy_init(void) { return gh_curl()->curl_easy_init(); }

void gh_curl_easy_cleanup(CURL *handle) { gh_curl()->curl_easy_cleanup(handle); }

CURLcode gh_curl_easy_perform(CURL *handle) { return gh_curl()->curl_easy_perform(handle); }

const char *gh_curl_easy_strerror(CURLcode code) { return gh_curl()->curl_easy_strerror(code); }

struct curl_slist *gh_curl_slist_append(struct curl_slist *list, const char *string) {
    return gh_curl()->curl_slist_append(list, string);
}

void gh_curl_slist_free_all(struct curl_slist *list) { gh_curl()->curl_slist_free_all(list); }

CURLcode gh_curl_set_long(CURL *handle, CURLoption option, long value) {
    return gh_curl()->curl_easy_setopt(handle, option, value);
}

CURLcode gh_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return gh_curl()->curl_easy_setopt(handle, option, value);
}

CURLcode gh_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return gh_curl()->curl_easy_setopt(handle, option, value);
}

CURLcode gh_curl_set_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return gh_curl()->curl_easy_setopt(handle, option, value);
}

CURLcode gh_curl_set_read_function(CURL *handle, gh_curl_read_callback callback) {
    return gh_curl()->curl_easy_setopt(handle, CURLOPT_READFUNCTION, callback);
}

CURLcode gh_curl_set_write_function(CURL *handle, CURLoption option, gh_curl_write_callback callback) {
    return gh_curl()->curl_easy_setopt(handle, option, callback);
}

CURLcode gh_curl_set_progress_function(CURL *handle, gh_curl_progress_callback callback) {
    return gh_curl()->curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

long gh_curl_response_code(CURL *handle) {
    long code = 0;
    gh_curl()->curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code);
    return code;
}
