/*
 * readers/hub.c -- a model on the Hugging Face Hub, read without
 * downloading it: only the bytes the plan needs.
 *
 *   1. GET /api/models/ORG/REPO/revision/REV: the commit and the file list
 *      (every later URL is pinned to that commit).
 *   2. safetensors: config.json and model.safetensors.index.json together;
 *      then each shard's header by Range requests, concurrently.  The first
 *      range is a guess that usually covers the whole header (from the
 *      index: each tensor's name plus the bytes of its entry), so a shard
 *      costs one resolve (a 302 to the storage host for large files) and
 *      one 206; a header longer than the guess costs one more request, to
 *      the redirect's target.
 *   3. GGUF (ORG/REPO:QUANT, hf://ORG/REPO/FILE.gguf, or a repository
 *      with one .gguf): the file's first MiB, then more as the parser asks
 *      (at most twice the header); the other splits' tensor infos likewise.
 *
 * The parsing is the format readers' (config.c, st_fast.c/safetensors.c,
 * gguf.c), on the bytes that came back.
 */
#define _POSIX_C_SOURCE 200809L

#include "readers/remote.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define API_MAX_BYTES    (16u << 20)
#define GGUF_FIRST_BYTES ((uint64_t)1 << 20)
#define ST_GUESS_MIN     ((uint64_t)256)
#define ST_GUESS_MAX     ((uint64_t)8 << 20)
#define ST_ENTRY_BYTES                                                         \
    96u /* {"dtype":"BF16","shape":[..],"data_offsets":                        \
           [..]}, and the quotes and comma of the name */

#ifndef KVB_HAVE_CURL

kvb_status kvb__hub_read(kvb__ref_read *rr, kvb_model *model, kvb_quant *quant,
                         kvb_read_info *info, kvb_error *err)
{
    (void)model, (void)quant, (void)info;
    return kvb__fail(err, KVB_EUNSUPPORTED, "hub",
                     "%s is not in the Hugging Face cache, and reading the "
                     "Hub is not built in (configure with -DKVB_WITH_HUB=ON "
                     "and libcurl)",
                     rr->ref->repo);
}

#else

typedef struct hub {
    kvb__ref_read *rr;
    kvb__reader *r;
    kvb_error *err;
    kvb__http http;
    char commit[64];
    json_t *siblings; /* the API's file list */
} hub;

/* ---- URLs ---- */

/* Percent-encode s into out (keeping '/' when keep_slash). */
static bool encode(char *out, size_t cap, const char *s, bool keep_slash)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                     (c >= '0' && c <= '9') || strchr("-._~", c) ||
                     (keep_slash && c == '/');
        if (n + 4 >= cap)
            return false;
        if (plain) {
            out[n++] = (char)c;
        } else {
            out[n++] = '%';
            out[n++] = hex[c >> 4];
            out[n++] = hex[c & 15];
        }
    }
    out[n] = '\0';
    return true;
}

static bool file_url(const hub *h, const char *file, char *out)
{
    char f[1024];
    if (!encode(f, sizeof f, file, true))
        return false;
    int n = snprintf(out, KVB__URL_CAP, "%s/%s/resolve/%s/%s",
                     h->rr->env->endpoint, h->rr->ref->repo, h->commit, f);
    return n > 0 && n < KVB__URL_CAP;
}

/* ---- errors ---- */

static kvb_status fail_get(hub *h, const kvb__http_get *g, const char *file)
{
    const kvb__ref *ref = h->rr->ref;
    const kvb__ref_env *env = h->rr->env;
    kvb_error *err = h->err;
    if (g->transport[0])
        return kvb__fail(err, KVB_EIO, "hub",
                         "the Hub at %s did not answer: %s (after %u tries)",
                         env->endpoint, g->transport, g->attempts);
    if (g->too_large)
        return kvb__fail(err, KVB_ELIMIT, "hub",
                         "%s of %s sent more than the %llu bytes asked for",
                         file ? file : "the model API", ref->repo,
                         (unsigned long long)g->max_bytes);
    const char *code = g->error_code;
    if (g->status == 401 || g->status == 403) {
        if (!strcmp(code, "RepoNotFound"))
            return kvb__fail(err, KVB_ENOTFOUND, "ref",
                             "repository %s was not found on %s (if it is "
                             "private, set HF_TOKEN to a token with access)",
                             ref->repo, env->endpoint);
        if (!env->token[0])
            return kvb__fail(err, KVB_EIO, "hf_token",
                             "%s is gated or private (HTTP %ld) and no token "
                             "was sent: set HF_TOKEN to a token with access "
                             "(accept the model's terms on its page first)",
                             ref->repo, g->status);
        return kvb__fail(err, KVB_EIO, "hf_token",
                         "the token (from %s) has no access to %s (HTTP "
                         "%ld): accept the model's terms on its page, or "
                         "set HF_TOKEN to a token that has access",
                         env->token_source, ref->repo, g->status);
    }
    if (g->status == 404) {
        if (!strcmp(code, "RevisionNotFound"))
            return kvb__fail(err, KVB_ENOTFOUND, "ref",
                             "revision %s was not found in %s", ref->revision,
                             ref->repo);
        if (file && strcmp(code, "RepoNotFound") != 0)
            return kvb__fail(err, KVB_ENOTFOUND, "ref",
                             "file %s was not found in %s@%s", file, ref->repo,
                             ref->revision);
        return kvb__fail(err, KVB_ENOTFOUND, "ref",
                         "repository %s was not found on %s", ref->repo,
                         env->endpoint);
    }
    if (g->status == 429 || g->status >= 500)
        return kvb__fail(err, KVB_EIO, "hub",
                         "the Hub answered HTTP %ld for %s of %s after %u "
                         "tries",
                         g->status, file ? file : "the model API", ref->repo,
                         g->attempts);
    return kvb__fail(err, KVB_EIO, "hub",
                     "the Hub answered HTTP %ld for %s of %s%s%s", g->status,
                     file ? file : "the model API", ref->repo,
                     g->error_message[0] ? ": " : "", g->error_message);
}

static bool ok_status(const kvb__http_get *g)
{
    return !g->transport[0] && !g->too_large &&
           (g->status == 200 || g->status == 206);
}

static kvb_status run(hub *h, kvb__http_get *gets, size_t n)
{
    kvb_status st = kvb__http_run(&h->http, gets, n, h->err);
    h->rr->where.http_requests = h->http.requests;
    h->rr->where.http_bytes = h->http.bytes;
    return st;
}

/* ---- the model API ---- */

static kvb_status read_api(hub *h)
{
    kvb__http_get *g = calloc(1, sizeof *g);
    if (!g)
        return kvb__fail(h->err, KVB_ENOMEM, "hub", "out of memory");
    char rev[400];
    kvb_status st = KVB_OK;
    if (!encode(rev, sizeof rev, h->rr->ref->revision, false) ||
        snprintf(g->url, sizeof g->url, "%s/api/models/%s/revision/%s",
                 h->rr->env->endpoint, h->rr->ref->repo,
                 rev) >= (int)sizeof g->url)
        st = kvb__fail(h->err, KVB_ELIMIT, "ref", "URL too long");
    g->max_bytes = API_MAX_BYTES;
    if (!st)
        st = run(h, g, 1);
    if (!st && !ok_status(g))
        st = fail_get(h, g, NULL);
    json_t *root = NULL;
    if (!st) {
        json_error_t je;
        root = json_loadb((const char *)g->body, g->len, 0, &je);
        json_t *sha = json_object_get(root, "sha");
        h->siblings = json_incref(json_object_get(root, "siblings"));
        if (!json_is_string(sha) || !json_is_array(h->siblings) ||
            json_string_length(sha) >= sizeof h->commit)
            st = kvb__fail(h->err, KVB_EPARSE, "hub",
                           "the model API of %s did not give a commit and "
                           "a file list",
                           h->rr->ref->repo);
        else
            kvb__strlcpy(h->commit, json_string_value(sha), sizeof h->commit);
    }
    json_decref(root);
    kvb__http_get_reset(g);
    free(g);
    return st;
}

static bool has_file(const hub *h, const char *name)
{
    size_t i;
    json_t *s;
    json_array_foreach(h->siblings, i, s)
    {
        const char *f = json_string_value(json_object_get(s, "rfilename"));
        if (f && !strcmp(f, name))
            return true;
    }
    return false;
}

/* The GGUF file a reference names: its :QUANT, or the repository's one
 * .gguf.  Lists what there is when nothing matches. */
static kvb_status pick_gguf(hub *h, char *out, size_t cap)
{
    const char *quant = h->rr->ref->quant;
    size_t i, count = 0;
    json_t *s;
    char seen[512] = "";
    out[0] = '\0';
    json_array_foreach(h->siblings, i, s)
    {
        const char *f = json_string_value(json_object_get(s, "rfilename"));
        unsigned no = 0, splits = 0;
        size_t n = f ? strlen(f) : 0;
        if (n < 5 || strcmp(f + n - 5, ".gguf") != 0)
            continue;
        const char *base = strrchr(f, '/');
        base = base ? base + 1 : f;
        if (!strncmp(base, "mmproj", 6))
            continue;
        if (kvb__gguf_split(f, &no, &splits) && no != 1)
            continue;
        if (strlen(seen) + n + 3 < sizeof seen)
            snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s%s",
                     seen[0] ? ", " : "", base);
        if (quant[0] && !kvb__gguf_name_matches(f, quant))
            continue;
        if (count++ == 0 || strcmp(f, out) < 0)
            kvb__strlcpy(out, f, cap);
    }
    if (count == 1 || (count > 1 && quant[0]))
        return KVB_OK;
    if (count > 1)
        return kvb__fail(h->err, KVB_EINVAL, "ref",
                         "%s holds %zu GGUF files; allowed: name one with "
                         ":QUANT (%s)",
                         h->rr->ref->repo, count, seen);
    if (quant[0])
        return kvb__fail(h->err, KVB_ENOTFOUND, "ref",
                         "%s@%s has no GGUF file of quantization %s%s%s",
                         h->rr->ref->repo, h->rr->ref->revision, quant,
                         seen[0] ? "; it has: " : "", seen);
    return kvb__fail(h->err, KVB_ENOTFOUND, "ref",
                     "%s@%s has neither config.json nor a .gguf file",
                     h->rr->ref->repo, h->rr->ref->revision);
}

/* ---- GGUF ---- */

static kvb_status get_range(hub *h, kvb__http_get *g, const char *file)
{
    kvb_status st = run(h, g, 1);
    if (!st && !ok_status(g))
        st = fail_get(h, g, file);
    return st;
}

/* More of a file already partly in g (from its redirect target). */
static kvb_status extend(hub *h, kvb__http_get *g, uint64_t to,
                         const char *file)
{
    kvb__http_get *more = calloc(1, sizeof *more);
    if (!more)
        return kvb__fail(h->err, KVB_ENOMEM, "hub", "out of memory");
    kvb__strlcpy(more->url, g->final_url[0] ? g->final_url : g->url,
                 sizeof more->url);
    more->from = g->len;
    more->to = to;
    more->max_bytes = to - g->len;
    kvb_status st = get_range(h, more, file);
    if (!st) {
        unsigned char *b = realloc(g->body, g->len + more->len + 1);
        if (!b) {
            st = kvb__fail(h->err, KVB_ENOMEM, "hub", "out of memory");
        } else {
            memcpy(b + g->len, more->body, more->len);
            g->body = b;
            g->len += more->len;
            b[g->len] = '\0';
            if (!g->total)
                g->total = more->total;
        }
    }
    kvb__http_get_reset(more);
    free(more);
    return st;
}

static uint64_t grow(uint64_t need, uint64_t have, uint64_t total)
{
    uint64_t want = kvb__max(need, 2 * have);
    return total ? kvb__min(want, total) : want;
}

/* The tensor bytes of splits 2..count of `first`. */
static kvb_status gguf_splits(hub *h, const char *first, unsigned count)
{
    kvb__http_get *g = calloc(count, sizeof *g);
    if (!g)
        return kvb__fail(h->err, KVB_ENOMEM, "hub", "out of memory");
    char names[8][256];
    kvb_status st = KVB_OK;
    size_t n = strlen(first), m = count - 1;
    uint64_t bytes = h->r->info.weights_bytes,
             tensors = h->r->info.tensor_count;
    for (size_t i = 0; !st && i < m; i++) {
        char name[256], num[16];
        kvb__strlcpy(name, first, sizeof name);
        snprintf(num, sizeof num, "%05u", (unsigned)(i + 2));
        memcpy(name + n - 19, num, 5);
        if (i < 8)
            kvb__strlcpy(names[i], name, sizeof names[i]);
        if (!has_file(h, name))
            st = kvb__fail(h->err, KVB_ENOTFOUND, "ref",
                           "split %s of %s is not in %s@%s", name, first,
                           h->rr->ref->repo, h->rr->ref->revision);
        else if (!file_url(h, name, g[i].url))
            st = kvb__fail(h->err, KVB_ELIMIT, "ref", "URL too long");
        g[i].to = g[i].max_bytes = GGUF_FIRST_BYTES;
    }
    if (!st)
        st = run(h, g, m);
    for (size_t i = 0; !st && i < m; i++) {
        const char *name = i < 8 ? names[i] : first;
        if (!ok_status(&g[i])) {
            st = fail_get(h, &g[i], name);
            break;
        }
        for (;;) {
            uint64_t b = 0, t = 0, need = 0;
            st = kvb__gguf_split_bytes(g[i].body, g[i].len, g[i].total, &b, &t,
                                       &need);
            if (!st) {
                if (!kvb__add_ok(bytes, b, &bytes) ||
                    !kvb__add_ok(tensors, t, &tensors))
                    st = kvb__fail(h->err, KVB_EOVERFLOW, "weights_bytes",
                                   "weights_bytes overflows 64 bits");
                break;
            }
            if (need <= g[i].len || need > KVB_READ_MAX_GGUF_HEADER_BYTES) {
                st = kvb__fail(h->err, st, "ref",
                               "split %s has no readable GGUF tensor infos",
                               name);
                break;
            }
            st = extend(h, &g[i], grow(need, g[i].len, g[i].total), name);
            if (st)
                break;
        }
    }
    for (size_t i = 0; i < m; i++)
        kvb__http_get_reset(&g[i]);
    free(g);
    if (!st) {
        h->r->info.weights_bytes = bytes;
        h->r->info.tensor_count = tensors;
        h->rr->where.split_count = count;
        h->rr->where.file_count = count;
    }
    return st;
}

static kvb_status read_gguf(hub *h, const char *file)
{
    kvb__http_get *g = calloc(1, sizeof *g);
    if (!g)
        return kvb__fail(h->err, KVB_ENOMEM, "hub", "out of memory");
    kvb_status st = KVB_OK;
    if (!file_url(h, file, g->url))
        st = kvb__fail(h->err, KVB_ELIMIT, "ref", "URL too long");
    g->to = g->max_bytes = GGUF_FIRST_BYTES;
    if (!st)
        st = get_range(h, g, file);
    kvb__reader saved = *h->r;
    kvb__reader_source(h->r, file);
    while (!st) {
        uint64_t need = 0;
        st = kvb__gguf_read(h->r, g->body, g->len, g->total, &need);
        if (!st || need <= g->len)
            break;
        if (need > KVB_READ_MAX_GGUF_HEADER_BYTES) {
            st = kvb__read_fail(
                h->r, KVB_ELIMIT, "gguf", -1, -1, (int64_t)g->len,
                "header (over %llu bytes) exceeds the %u-byte "
                "limit",
                (unsigned long long)need, KVB_READ_MAX_GGUF_HEADER_BYTES);
            break;
        }
        *h->r = saved;
        kvb__reader_source(h->r, file);
        kvb__clear(h->err);
        st = extend(h, g, grow(need, g->len, g->total), file);
    }
    kvb__http_get_reset(g);
    free(g);
    h->rr->where.file_count = 1;
    kvb__strlcpy(h->rr->where.file, file, sizeof h->rr->where.file);
    unsigned no = 0, count = 0;
    if (!st && kvb__gguf_split(file, &no, &count) && count > 1) {
        if (no != 1)
            return kvb__fail(h->err, KVB_EINVAL, "ref",
                             "%s is split %u of %u; allowed: the first "
                             "split, which holds the metadata",
                             file, no, count);
        st = gguf_splits(h, file, count);
        if (!st) {
            /* Every split is counted: drop the reader's warning. */
            kvb__drop_split_warning(h->r->info.warning,
                                    &h->r->info.warning_count);
        }
    }
    return st;
}

/* ---- safetensors ---- */

typedef struct shard {
    char name[256];
    uint64_t guess; /* first range: bytes */
} shard;

typedef struct shards {
    shard *v;
    size_t n, cap;
    kvb_error *err;
} shards;

static kvb_status add_shard(void *ctx, const char *name)
{
    shards *s = ctx;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        shard *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return kvb__fail(s->err, KVB_ENOMEM, "hub", "out of memory");
        s->v = v;
        s->cap = cap;
    }
    memset(&s->v[s->n], 0, sizeof s->v[s->n]);
    kvb__strlcpy(s->v[s->n].name, name, sizeof s->v[s->n].name);
    s->v[s->n++].guess = ST_GUESS_MIN;
    return KVB_OK;
}

/* Each shard's header size, guessed from the names the index maps to
 * it: 256 bytes for the length and the __metadata__, and per tensor its
 * name and ST_ENTRY_BYTES (a little more than an entry takes); rounded
 * up to 1 KiB. */
static void guess_from_index(shards *s, const char *json, size_t len)
{
    json_t *root = json_loadb(json, len, 0, NULL);
    json_t *map = json_object_get(root, "weight_map");
    const char *key;
    json_t *v;
    json_object_foreach(map, key, v)
    {
        const char *file = json_string_value(v);
        for (size_t i = 0; file && i < s->n; i++)
            if (!strcmp(s->v[i].name, file)) {
                s->v[i].guess += strlen(key) + ST_ENTRY_BYTES;
                break;
            }
    }
    json_decref(root);
    for (size_t i = 0; i < s->n; i++)
        s->v[i].guess =
            kvb__min(ST_GUESS_MAX, (s->v[i].guess + 1023) / 1024 * 1024);
}

/* One file without an index: from the architecture, about 12 tensors a
 * layer (4 per linear when quantized), plus the experts'. */
static uint64_t guess_from_config(const kvb__reader *r)
{
    const kvb_model *m = &r->model;
    uint64_t per_layer = 12 + 3 * (uint64_t)m->num_experts;
    if (r->quant.method > KVB_QUANT_BF16)
        per_layer *= 4;
    uint64_t g = ST_GUESS_MIN + (uint64_t)m->num_hidden_layers * per_layer *
                                    (ST_ENTRY_BYTES + 48);
    return kvb__min(ST_GUESS_MAX, (g + 4095) / 4096 * 4096);
}

static kvb_status read_shards(hub *h, shards *s, uint64_t *bytes,
                              uint64_t *tensors)
{
    kvb__http_get *g = calloc(s->n ? s->n : 1, sizeof *g);
    if (!g)
        return kvb__fail(h->err, KVB_ENOMEM, "hub", "out of memory");
    kvb_status st = KVB_OK;
    for (size_t i = 0; !st && i < s->n; i++) {
        if (!file_url(h, s->v[i].name, g[i].url))
            st = kvb__fail(h->err, KVB_ELIMIT, "ref", "URL too long");
        g[i].to = g[i].max_bytes = s->v[i].guess;
    }
    if (!st)
        st = run(h, g, s->n);
    /* Headers longer than the guess: the rest, all at once. */
    size_t again = 0;
    for (size_t i = 0; !st && i < s->n; i++) {
        if (!ok_status(&g[i])) {
            st = fail_get(h, &g[i], s->v[i].name);
            break;
        }
        kvb__reader_source(h->r, s->v[i].name);
        if (g[i].len < 8) {
            st = kvb__read_fail(h->r, KVB_EPARSE, "safetensors.header_size", -1,
                                -1, (int64_t)g[i].len,
                                "file (%zu bytes) ends before the 8-byte "
                                "header length",
                                g[i].len);
            break;
        }
        uint64_t n = kvb__le64(g[i].body);
        if (n > KVB_READ_MAX_ST_HEADER_BYTES) {
            st = kvb__read_fail(
                h->r, KVB_ELIMIT, "safetensors.header_size", -1, -1, 0,
                "header length (%llu) exceeds the %u-byte "
                "limit",
                (unsigned long long)n, KVB_READ_MAX_ST_HEADER_BYTES);
            break;
        }
        if (g[i].total && n > g[i].total - 8) {
            st = kvb__read_fail(h->r, KVB_EPARSE, "safetensors.header_size", -1,
                                -1, (int64_t)g[i].total,
                                "header length (%llu) runs past the end of "
                                "the file (%llu bytes)",
                                (unsigned long long)n,
                                (unsigned long long)g[i].total);
            break;
        }
        if (g[i].len < 8 + n)
            again++;
    }
    if (!st && again) {
        kvb__http_get *more = calloc(again, sizeof *more);
        size_t k = 0;
        if (!more)
            st = kvb__fail(h->err, KVB_ENOMEM, "hub", "out of memory");
        for (size_t i = 0; !st && i < s->n; i++) {
            uint64_t end = 8 + kvb__le64(g[i].body);
            if (g[i].len >= end)
                continue;
            kvb__strlcpy(more[k].url,
                         g[i].final_url[0] ? g[i].final_url : g[i].url,
                         sizeof more[k].url);
            more[k].from = g[i].len;
            more[k].to = end;
            more[k].max_bytes = end - g[i].len;
            k++;
        }
        if (!st)
            st = run(h, more, again);
        k = 0;
        for (size_t i = 0; !st && i < s->n; i++) {
            uint64_t end = 8 + kvb__le64(g[i].body);
            if (g[i].len >= end)
                continue;
            kvb__http_get *m = &more[k++];
            if (!ok_status(m) || g[i].len + m->len != end) {
                st = ok_status(m)
                         ? kvb__fail(h->err, KVB_EIO, "hub",
                                     "%s: the Hub sent %zu of the %llu "
                                     "header bytes asked for",
                                     s->v[i].name, m->len,
                                     (unsigned long long)(end - g[i].len))
                         : fail_get(h, m, s->v[i].name);
                break;
            }
            unsigned char *b = realloc(g[i].body, end + 1);
            if (!b) {
                st = kvb__fail(h->err, KVB_ENOMEM, "hub", "out of memory");
                break;
            }
            memcpy(b + g[i].len, m->body, m->len);
            g[i].body = b;
            g[i].len = (size_t)end;
        }
        for (size_t i = 0; more && i < again; i++)
            kvb__http_get_reset(&more[i]);
        free(more);
    }
    for (size_t i = 0; !st && i < s->n; i++) {
        uint64_t b = 0, t = 0, n = kvb__le64(g[i].body);
        kvb__reader_source(h->r, s->v[i].name);
        st = kvb__st_read(h->r, g[i].body, (size_t)(8 + n), &b, &t);
        if (!st)
            st = kvb__read_add(h->r, bytes, b, "weights_bytes");
        if (!st)
            st = kvb__read_add(h->r, tensors, t, "tensor_count");
        if (!st)
            st = kvb__read_add(h->r, &h->r->info.header_bytes, 8 + n,
                               "header_bytes");
    }
    for (size_t i = 0; i < s->n; i++)
        kvb__http_get_reset(&g[i]);
    free(g);
    return st;
}

static void store(hub *h, const char *file, const kvb__http_get *g)
{
    if (!(h->rr->env->flags & KVB_REF_STORE_CACHE))
        return;
    if (kvb__hf_cache_store(h->rr, h->commit, file, g->etag, g->body, g->len) !=
        KVB_OK)
        kvb__read_warn(h->r, "%s could not be stored in the cache (%s)", file,
                       h->rr->env->hf_cache);
}

static void set_weights(kvb__reader *r, int32_t format, uint64_t bytes,
                        uint64_t tensors, uint32_t shards_read)
{
    r->info.weights_format = format;
    r->info.weights_bytes = bytes;
    r->info.tensor_count = tensors;
    r->info.shard_count = shards_read;
    if (bytes)
        kvb__read_mark(r, KVB_READ_FIELD_WEIGHTS_BYTES, -1, -1, -1);
}

/* Other *.safetensors files when there is no index and no
 * model.safetensors (consolidated.safetensors only when alone). */
static kvb_status list_safetensors(hub *h, shards *s)
{
    size_t i;
    json_t *e;
    bool consolidated = false;
    json_array_foreach(h->siblings, i, e)
    {
        const char *f = json_string_value(json_object_get(e, "rfilename"));
        size_t n = f ? strlen(f) : 0;
        if (n < 12 || strcmp(f + n - 12, ".safetensors") || strchr(f, '/'))
            continue;
        if (!strcmp(f, "consolidated.safetensors")) {
            consolidated = true;
            continue;
        }
        kvb_status st = add_shard(s, f);
        if (st)
            return st;
    }
    if (s->n == 0 && consolidated)
        return add_shard(s, "consolidated.safetensors");
    return KVB_OK;
}

/* NVIDIA ModelOpt checkpoints state their quantization in
 * hf_quant_config.json, not in config.json (readers/quant_config.c). */
static void modelopt_quant(hub *h, const kvb__http_get *g)
{
    kvb__modelopt_read(h->r, (const char *)g->body, g->len);
}

static kvb_status read_safetensors(hub *h)
{
    kvb__reader *r = h->r;
    bool index = has_file(h, "model.safetensors.index.json");
    bool modelopt = has_file(h, "hf_quant_config.json");
    kvb__http_get *g = calloc(3, sizeof *g);
    if (!g)
        return kvb__fail(h->err, KVB_ENOMEM, "hub", "out of memory");
    /* config.json, then the index and hf_quant_config.json when listed,
     * all at once */
    const char *files[3] = {"config.json", NULL, NULL};
    size_t n = 1, at_modelopt = 0;
    if (index) /* files[1] */
        files[n++] = "model.safetensors.index.json";
    if (modelopt)
        files[at_modelopt = n++] = "hf_quant_config.json";
    kvb_status st = KVB_OK;
    for (size_t i = 0; i < n; i++) {
        if (!file_url(h, files[i], g[i].url))
            st = kvb__fail(h->err, KVB_ELIMIT, "ref", "URL too long");
        g[i].max_bytes = KVB_READ_MAX_JSON_BYTES;
    }
    if (!st)
        st = run(h, g, n);
    for (size_t i = 0; !st && i < n; i++)
        if (!ok_status(&g[i]))
            st = fail_get(h, &g[i], files[i]);
    if (!st) {
        kvb__reader_source(r, "config.json");
        st = kvb__config_read(r, (const char *)g[0].body, g[0].len);
        store(h, "config.json", &g[0]);
    }
    if (!st && modelopt)
        modelopt_quant(h, &g[at_modelopt]);
    shards s = {NULL, 0, 0, h->err};
    uint64_t total = 0, entries = 0, bytes = 0, tensors = 0;
    if (!st && index) {
        kvb__reader_source(r, files[1]);
        st = kvb__st_index_read(r, (const char *)g[1].body, g[1].len, add_shard,
                                &s, &total, &entries);
        if (!st) {
            guess_from_index(&s, (const char *)g[1].body, g[1].len);
            st = kvb__read_add(r, &r->info.header_bytes, g[1].len,
                               "header_bytes");
            store(h, files[1], &g[1]);
        }
        kvb__strlcpy(h->rr->where.file, files[1], sizeof h->rr->where.file);
    } else if (!st && has_file(h, "model.safetensors")) {
        st = add_shard(&s, "model.safetensors");
        if (!st)
            s.v[0].guess = guess_from_config(r);
        kvb__strlcpy(h->rr->where.file, "model.safetensors",
                     sizeof h->rr->where.file);
    } else if (!st) {
        st = list_safetensors(h, &s);
        uint64_t guess = guess_from_config(r) / (s.n ? s.n : 1);
        for (size_t i = 0; i < s.n; i++)
            s.v[i].guess = kvb__max(ST_GUESS_MIN, (guess + 4095) / 4096 * 4096);
        kvb__strlcpy(h->rr->where.file, s.n ? s.v[0].name : "config.json",
                     sizeof h->rr->where.file);
    }
    for (size_t i = 0; i < 3; i++)
        kvb__http_get_reset(&g[i]);
    free(g);
    if (!st && s.n > KVB_READ_MAX_SHARDS)
        st = kvb__fail(h->err, KVB_ELIMIT, "ref",
                       "%s has %zu safetensors files; allowed: at most %u",
                       h->rr->ref->repo, s.n, KVB_READ_MAX_SHARDS);
    if (!st && s.n)
        st = read_shards(h, &s, &bytes, &tensors);
    if (!st && s.n) {
        if (index && total && total != bytes)
            kvb__read_warn(r,
                           "the index's total_size (%llu) differs from the "
                           "shards' tensor bytes (%llu); using the shards",
                           (unsigned long long)total,
                           (unsigned long long)bytes);
        if (index && entries != tensors)
            kvb__read_warn(r, "the index lists %llu tensors, the shards %llu",
                           (unsigned long long)entries,
                           (unsigned long long)tensors);
        set_weights(
            r, index ? KVB_FORMAT_SAFETENSORS_INDEX : KVB_FORMAT_SAFETENSORS,
            bytes, tensors, (uint32_t)s.n);
    } else if (!st) {
        kvb__read_warn(r,
                       "%s has no safetensors weights; weights are "
                       "estimated from the architecture",
                       h->rr->ref->repo);
    }
    h->rr->where.file_count = (uint32_t)s.n + 1u + (index ? 1u : 0u);
    free(s.v);
    return st;
}

/* ---- the entry point ---- */

kvb_status kvb__hub_read(kvb__ref_read *rr, kvb_model *model, kvb_quant *quant,
                         kvb_read_info *info, kvb_error *err)
{
    kvb__reader *r = malloc(sizeof *r);
    if (!r)
        return kvb__fail(err, KVB_ENOMEM, "hub", "out of memory");
    kvb__reader_init(r, rr->ref->repo, err);
    kvb__reader_options(r, info);
    hub h;
    memset(&h, 0, sizeof h);
    h.rr = rr;
    h.r = r;
    h.err = err;
    h.http.token = rr->env->token[0] ? rr->env->token : NULL;
    h.http.max_parallel = rr->env->max_parallel;
    h.http.max_retries = rr->env->max_retries;
    h.http.timeout_ms = rr->env->timeout_ms;
    h.http.backoff_ms = rr->env->backoff_ms;
    rr->where.source = KVB_REF_SOURCE_HUB;
    kvb_status st = read_api(&h);
    if (!st)
        kvb__strlcpy(rr->where.commit, h.commit, sizeof rr->where.commit);
    char file[512] = "";
    const kvb__ref *ref = rr->ref;
    if (!st && ref->file[0]) {
        kvb__strlcpy(file, ref->file, sizeof file);
        if (!has_file(&h, file))
            st = kvb__fail(err, KVB_ENOTFOUND, "ref",
                           "file %s was not found in %s@%s", file, ref->repo,
                           ref->revision);
    } else if (!st && (ref->quant[0] || !has_file(&h, "config.json"))) {
        st = pick_gguf(&h, file, sizeof file);
    }
    if (!st && file[0]) {
        size_t n = strlen(file);
        r->info.format = KVB_FORMAT_GGUF;
        st = n > 5 && !strcmp(file + n - 5, ".gguf")
                 ? read_gguf(&h, file)
                 : kvb__fail(err, KVB_EUNSUPPORTED, "ref",
                             "%s: only a .gguf file can be named alone "
                             "(for safetensors, name the repository)",
                             file);
    } else if (!st) {
        r->info.format = KVB_FORMAT_DIRECTORY;
        st = read_safetensors(&h);
    }
    if (!st) {
        const char *slash = strchr(ref->repo, '/');
        if (ref->quant[0] || !ref->file[0] || !r->model.name[0])
            snprintf(r->model.name, sizeof r->model.name, "%.40s%s%.20s",
                     slash + 1, ref->quant[0] ? ":" : "", ref->quant);
        kvb__reader_source(r, ref->repo);
        st = kvb__read_finish(r, model, quant, info);
    }
    json_decref(h.siblings);
    free(r);
    return st;
}

#endif
