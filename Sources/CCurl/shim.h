#ifndef PIPELINE_CCURL_SHIM_H
#define PIPELINE_CCURL_SHIM_H
#include <curl/curl.h>

/* Swift cannot call C variadic functions: typed wrappers for the calls we use. */

static inline CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
/* A blob option (CURLOPT_CAINFO_BLOB): libcurl copies the bytes before this returns. */
static inline CURLcode ccurl_setopt_blob(CURL *handle, CURLoption option, const void *data, size_t length) {
    struct curl_blob blob = { (void *)data, length, CURL_BLOB_COPY };
    return curl_easy_setopt(handle, option, &blob);
}
static inline CURLcode ccurl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

typedef size_t (*ccurl_data_callback)(char *buffer, size_t size, size_t count, void *context);
typedef int (*ccurl_progress_callback)(void *context, curl_off_t download_total, curl_off_t download_now,
                                       curl_off_t upload_total, curl_off_t upload_now);

static inline CURLcode ccurl_setopt_data_callback(CURL *handle, CURLoption option, ccurl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}
static inline CURLcode ccurl_setopt_progress_callback(CURL *handle, ccurl_progress_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

typedef int (*ccurl_trailer_callback)(struct curl_slist **list, void *context);

static inline CURLcode ccurl_setopt_trailer_callback(CURL *handle, ccurl_trailer_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_TRAILERFUNCTION, callback);
}

typedef curl_socket_t (*ccurl_opensocket_callback)(void *context, curlsocktype purpose, struct curl_sockaddr *address);

static inline CURLcode ccurl_setopt_opensocket_callback(CURL *handle, ccurl_opensocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
}

static inline long ccurl_getinfo_long(CURL *handle, CURLINFO info) {
    long value = 0;
    curl_easy_getinfo(handle, info, &value);
    return value;
}
static inline void *ccurl_getinfo_pointer(CURL *handle, CURLINFO info) {
    char *value = NULL;
    curl_easy_getinfo(handle, info, &value);
    return value;
}

static inline CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

static inline size_t ccurl_read_abort(void) {
    return CURL_READFUNC_ABORT;
}

/* CURLMsg.data is a union; read the transfer result without touching unions from Swift. */
static inline CURLcode ccurl_message_result(CURLMsg *message) {
    return message->data.result;
}
static inline CURLcode ccurl_global_init(void) {
    return curl_global_init(CURL_GLOBAL_ALL);
}
#endif
