/*
 * readers/http.c -- the transport of the Hub reader: GETs (whole files or
 * byte ranges) run concurrently over one libcurl multi handle, in the
 * calling thread, with a bound on parallel transfers, retries with
 * backoff on 429 / 5xx / transport errors, bounded timeouts, and the
 * response headers the Hub uses (X-Repo-Commit, X-Linked-Size, ETag,
 * X-Error-Code).
 *
 * libcurl's process-wide state: each run calls curl_global_init and ends
 * with curl_global_cleanup.  libcurl counts those calls, and from 7.84
 * (the "threadsafe" feature) they are thread-safe, so a program may read
 * models from several threads, or use libcurl itself, without setting
 * anything up.  No state outlives a run.
 *
 * Built only with KVB_HAVE_CURL (CMake option KVB_WITH_HUB); without it
 * kvb__http_run says the Hub is not built in.
 */
#define _POSIX_C_SOURCE 200809L

#include "readers/remote.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

void kvb__http_get_reset(kvb__http_get *g)
{
    free(g->body);
    g->body = NULL;
    g->len = 0;
}

#ifndef KVB_HAVE_CURL

bool kvb__http_built(void)
{
    return false;
}

kvb_status kvb__http_run(kvb__http *h, kvb__http_get *gets, size_t n,
                         kvb_error *err)
{
    (void)h, (void)gets, (void)n;
    return kvb__fail(err, KVB_EUNSUPPORTED, "hub",
                     "the Hugging Face Hub is not built in (configure with "
                     "-DKVB_WITH_HUB=ON and libcurl)");
}

#else

#include <ctype.h>
#include <curl/curl.h>

bool kvb__http_built(void)
{
    return true;
}

typedef struct job {
    kvb__http_get *g;
    uint64_t not_before_ms; /* monotonic; 0 = now */
    uint32_t tries;
    bool done;
    bool active; /* in a slot now */
} job;

typedef struct slot {
    CURL *easy;
    struct curl_slist *headers;
    kvb__http_get *g;
    job *job; /* the job this slot runs */
    kvb__http *h;
    char errbuf[CURL_ERROR_SIZE];
    size_t cap;
    uint64_t retry_after_ms; /* from Retry-After; 0: none */
    uint64_t content_length;
    uint64_t linked_size;
} slot;

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *ctx)
{
    slot *s = ctx;
    kvb__http_get *g = s->g;
    size_t n = size * nmemb;
    /* A body past its limit (a range the server ignored, an error page
     * that never ends) stops the transfer. */
    if (g->len + n > g->max_bytes) {
        g->too_large = true;
        return 0;
    }
    if (g->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < g->len + n + 1)
            cap *= 2;
        unsigned char *b = realloc(g->body, cap);
        if (!b)
            return 0;
        g->body = b;
        s->cap = cap;
    }
    memcpy(g->body + g->len, p, n);
    g->len += n;
    g->body[g->len] = '\0';
    s->h->bytes += n;
    return n;
}

/* Header value of `name` in line (case-insensitive), copied trimmed. */
static bool header_is(const char *line, size_t n, const char *name, char *out,
                      size_t cap)
{
    size_t k = strlen(name);
    if (n <= k || line[k] != ':')
        return false;
    for (size_t i = 0; i < k; i++)
        if (tolower((unsigned char)line[i]) != tolower((unsigned char)name[i]))
            return false;
    const char *v = line + k + 1, *end = line + n;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
        end--;
    size_t m = (size_t)(end - v);
    if (m >= cap)
        m = cap - 1;
    memcpy(out, v, m);
    out[m] = '\0';
    return true;
}

static void copy_unquoted(char *dst, size_t cap, const char *v)
{
    if (strncmp(v, "W/", 2) == 0)
        v += 2;
    size_t n = strlen(v);
    if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
        v++;
        n -= 2;
    }
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, v, n);
    dst[n] = '\0';
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *ctx)
{
    slot *s = ctx;
    kvb__http_get *g = s->g;
    size_t n = size * nmemb;
    char v[256];
    if (header_is(p, n, "X-Repo-Commit", v, sizeof v))
        kvb__strlcpy(g->commit, v, sizeof g->commit);
    else if (header_is(p, n, "X-Linked-Etag", v, sizeof v))
        copy_unquoted(g->etag, sizeof g->etag, v);
    else if (header_is(p, n, "ETag", v, sizeof v) && !g->etag[0])
        copy_unquoted(g->etag, sizeof g->etag, v);
    else if (header_is(p, n, "X-Error-Code", v, sizeof v))
        kvb__strlcpy(g->error_code, v, sizeof g->error_code);
    else if (header_is(p, n, "X-Error-Message", v, sizeof v))
        kvb__strlcpy(g->error_message, v, sizeof g->error_message);
    else if (header_is(p, n, "X-Linked-Size", v, sizeof v))
        s->linked_size = strtoull(v, NULL, 10);
    else if (header_is(p, n, "Content-Length", v, sizeof v))
        s->content_length = strtoull(v, NULL, 10);
    else if (header_is(p, n, "Retry-After", v, sizeof v))
        s->retry_after_ms = strtoull(v, NULL, 10) * 1000u;
    else if (header_is(p, n, "Content-Range", v, sizeof v)) {
        const char *slash = strchr(v, '/');
        if (slash && slash[1] != '*')
            g->total = strtoull(slash + 1, NULL, 10);
    }
    return n;
}

static void set_protocols(CURL *e)
{
#if LIBCURL_VERSION_NUM >= 0x075500 /* 7.85: the string forms */
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(e, CURLOPT_PROTOCOLS, CURLPROTO_HTTP | CURLPROTO_HTTPS);
    curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS,
                     CURLPROTO_HTTP | CURLPROTO_HTTPS);
#endif
}

static bool slot_start(CURLM *multi, slot *s, kvb__http *h, kvb__http_get *g)
{
    memset(s, 0, sizeof *s);
    s->g = g;
    s->h = h;
    kvb__http_get_reset(g);
    g->status = 0;
    g->total = 0;
    g->too_large = false;
    g->transport[0] = g->final_url[0] = '\0';
    s->easy = curl_easy_init();
    if (!s->easy)
        return false;
    CURL *e = s->easy;
    curl_easy_setopt(e, CURLOPT_URL, g->url);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(e, CURLOPT_MAXREDIRS, 5L);
    set_protocols(e);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "kvbudget/" KVB_VERSION_STRING);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                     (long)kvb__min(h->timeout_ms, 10000));
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)h->timeout_ms);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, s);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, s->errbuf);
    curl_easy_setopt(e, CURLOPT_PRIVATE, s);
    if (g->to > g->from) {
        char range[64];
        snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)g->from,
                 (unsigned long long)g->to - 1);
        curl_easy_setopt(e, CURLOPT_RANGE, range);
    }
    /* A custom Authorization header goes to the first host only: libcurl
     * drops it when a redirect leads to another host (the Hub's CDN gets
     * a signed URL, never the token). */
    if (h->token && *h->token) {
        char auth[600];
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", h->token);
        s->headers = curl_slist_append(NULL, auth);
        if (!s->headers)
            return false;
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, s->headers);
    }
    return curl_multi_add_handle(multi, e) == CURLM_OK;
}

static void slot_end(CURLM *multi, slot *s)
{
    if (s->easy) {
        curl_multi_remove_handle(multi, s->easy);
        curl_easy_cleanup(s->easy);
    }
    curl_slist_free_all(s->headers);
    s->easy = NULL;
    s->headers = NULL;
    s->g = NULL;
}

static bool retryable(const kvb__http_get *g)
{
    if (g->too_large)
        return false;
    if (g->transport[0])
        return true;
    return g->status == 429 || (g->status >= 500 && g->status <= 599);
}

/* A finished transfer: record the outcome; true when it is to be tried
 * again (after *delay_ms). */
static bool slot_done(slot *s, CURLcode code, const kvb__http *h,
                      uint32_t tries, uint64_t *delay_ms)
{
    kvb__http_get *g = s->g;
    long status = 0, redirects = 0;
    char *url = NULL;
    curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(s->easy, CURLINFO_REDIRECT_COUNT, &redirects);
    curl_easy_getinfo(s->easy, CURLINFO_EFFECTIVE_URL, &url);
    s->h->requests += 1u + (uint32_t)redirects;
    g->status = status;
    if (url)
        kvb__strlcpy(g->final_url, url, sizeof g->final_url);
    if (code != CURLE_OK && !g->too_large)
        snprintf(g->transport, sizeof g->transport, "%s",
                 s->errbuf[0] ? s->errbuf : curl_easy_strerror(code));
    if (!g->total)
        g->total = s->linked_size ? s->linked_size : s->content_length;
    g->attempts = tries;
    if (!retryable(g) || tries > h->max_retries)
        return false;
    /* Exponential backoff from backoff_ms, doubled per try, capped at 30 s;
     * a Retry-After the server sent wins when longer (capped the same). */
    uint64_t d = (uint64_t)h->backoff_ms << kvb__min(tries - 1, 16);
    d = kvb__max(d, s->retry_after_ms);
    *delay_ms = kvb__min(d, 30000);
    return true;
}

kvb_status kvb__http_run(kvb__http *h, kvb__http_get *gets, size_t n,
                         kvb_error *err)
{
    if (n == 0)
        return KVB_OK;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return kvb__fail(err, KVB_EIO, "hub", "libcurl cannot start");
    uint32_t par = h->max_parallel ? h->max_parallel : 1;
    slot *slots = calloc(par, sizeof *slots);
    job *jobs = calloc(n, sizeof *jobs);
    CURLM *multi = curl_multi_init();
    kvb_status st = KVB_OK;
    if (!slots || !jobs || !multi) {
        st = kvb__fail(err, KVB_ENOMEM, "hub", "cannot start the transfers");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        jobs[i].g = &gets[i];
    size_t left = n;
    while (left) {
        uint64_t now = now_ms(), wait_ms = 1000;
        /* Fill free slots with jobs that are due. */
        for (uint32_t k = 0; k < par; k++) {
            if (slots[k].easy)
                continue;
            for (size_t i = 0; i < n; i++) {
                job *j = &jobs[i];
                if (j->done || j->active || j->not_before_ms > now)
                    continue;
                j->tries++;
                j->active = true;
                bool started = slot_start(multi, &slots[k], h, j->g);
                slots[k].job = j; /* slot_start cleared the slot */
                if (!started) {
                    slot_end(multi, &slots[k]);
                    st = kvb__fail(err, KVB_ENOMEM, "hub",
                                   "cannot start a transfer");
                    goto out;
                }
                break;
            }
        }
        int running = 0;
        curl_multi_perform(multi, &running);
        CURLMsg *msg;
        int queued;
        bool freed = false;
        while ((msg = curl_multi_info_read(multi, &queued)) != NULL) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            slot *s = NULL;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &s);
            job *j = s->job;
            uint64_t delay = 0;
            j->active = false;
            if (slot_done(s, msg->data.result, h, j->tries, &delay)) {
                j->not_before_ms = now_ms() + delay;
            } else {
                j->done = true;
                left--;
            }
            slot_end(multi, s);
            freed = true;
        }
        bool active = false;
        for (uint32_t k = 0; k < par; k++)
            active |= slots[k].easy != NULL;
        if (!left)
            break;
        now = now_ms();
        for (size_t i = 0; i < n; i++)
            if (!jobs[i].done && jobs[i].not_before_ms > now)
                wait_ms = kvb__min(wait_ms, jobs[i].not_before_ms - now);
            else if (!jobs[i].done && !active)
                wait_ms = 0;
        if (!freed && (active || wait_ms))
            curl_multi_poll(multi, NULL, 0, (int)wait_ms, NULL);
    }
out:
    if (slots)
        for (uint32_t k = 0; k < par; k++)
            if (slots[k].easy)
                slot_end(multi, &slots[k]);
    if (multi)
        curl_multi_cleanup(multi);
    free(slots);
    free(jobs);
    curl_global_cleanup();
    return st;
}

#endif
