/*
 * readers/modelref.c -- kvb_model_read_ref: a model named where it lives.
 * Parses the reference, applies the environment to the options, and
 * resolves in order: a local path (files.c), the Hugging Face cache
 * (hf_cache.c), the Hub (hub.c); or the Ollama store (ollama.c).  It sits
 * on top of the readers: nothing below calls it.
 */
#define _POSIX_C_SOURCE 200809L

#include "readers/remote.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* ---- options and report ---- */

kvb_status kvb_ref_options_init(kvb_ref_options *opt, size_t struct_size)
{
    kvb_status st =
        kvb__struct_init(opt, struct_size, sizeof *opt, "ref_options");
    if (st)
        return st;
    opt->max_parallel = 8;
    opt->max_retries = 4;
    opt->timeout_ms = 30000;
    opt->backoff_ms = 500;
    return KVB_OK;
}

kvb_status kvb_ref_info_init(kvb_ref_info *where, size_t struct_size)
{
    kvb_status st =
        kvb__struct_init(where, struct_size, sizeof *where, "ref_info");
    if (st)
        return st;
    where->num_ctx = where->num_batch = where->num_gpu = where->num_predict =
        -1;
    return KVB_OK;
}

const char *kvb_ref_source_name(int source)
{
    switch (source) {
    case KVB_REF_SOURCE_NONE: return "none";
    case KVB_REF_SOURCE_PATH: return "path";
    case KVB_REF_SOURCE_HF_CACHE: return "hf-cache";
    case KVB_REF_SOURCE_HUB: return "hub";
    case KVB_REF_SOURCE_OLLAMA: return "ollama";
    default: return NULL;
    }
}

unsigned kvb_hub_built(void)
{
    return kvb__http_built() ? 1u : 0u;
}

/* ---- parsing ---- */

/* One name of a repository or an Ollama model: [A-Za-z0-9._-], not
 * starting or ending with '.' or '-', no "..": it becomes a path in the
 * cache, so nothing may climb out of it. */
static bool name_ok(const char *s, size_t n, size_t max)
{
    if (n == 0 || n > max || s[0] == '.' || s[0] == '-' || s[n - 1] == '.' ||
        s[n - 1] == '-')
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!isalnum(c) && c != '.' && c != '-' && c != '_')
            return false;
        if (c == '.' && i + 1 < n && s[i + 1] == '.')
            return false;
    }
    return true;
}

static kvb_status bad_ref(kvb_error *err, const char *text, const char *why)
{
    return kvb__fail(err, KVB_EINVAL, "ref",
                     "reference (%.200s) %s; allowed: ORG/REPO[@REVISION]"
                     "[:QUANT], hf://ORG/REPO[@REVISION][/FILE], "
                     "ollama://NAME[:TAG]",
                     text, why);
}

static bool copy_n(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap)
        return false;
    memcpy(dst, s, n);
    dst[n] = '\0';
    return true;
}

/* A revision, quantization, tag or file: printable, no spaces, no "..",
 * no leading '/'. */
static bool token_ok(const char *s, size_t n)
{
    if (n == 0 || s[0] == '/')
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= ' ' || c >= 127 || c == '\\' || c == '?' || c == '#' ||
            c == '%')
            return false;
        if (c == '.' && i + 1 < n && s[i + 1] == '.')
            return false;
    }
    return true;
}

static kvb_status parse_hf(const char *text, const char *s, bool explicit_,
                           kvb__ref *out, kvb_error *err)
{
    out->kind = KVB__REF_HF;
    const char *slash = strchr(s, '/');
    if (!slash)
        return bad_ref(err, text, "has no ORG/");
    if (!name_ok(s, (size_t)(slash - s), 96))
        return bad_ref(err, text, "has an invalid organisation");
    const char *name = slash + 1, *end = name;
    while (*end && *end != '@' && *end != ':' && *end != '/')
        end++;
    if (!name_ok(name, (size_t)(end - name), 96))
        return bad_ref(err, text, "has an invalid repository name");
    copy_n(out->repo, sizeof out->repo, s, (size_t)(end - s));
    strcpy(out->revision, "main");
    if (*end == '@') {
        const char *rev = end + 1;
        end = rev;
        while (*end && *end != ':' && *end != '/')
            end++;
        if (!token_ok(rev, (size_t)(end - rev)) ||
            !copy_n(out->revision, sizeof out->revision, rev,
                    (size_t)(end - rev)))
            return bad_ref(err, text, "has an invalid revision");
    }
    if (*end == '/') {
        if (!explicit_)
            return bad_ref(err, text, "names a file (use hf://)");
        const char *file = end + 1;
        end = file + strlen(file);
        const char *colon = strrchr(file, ':');
        if (colon)
            end = colon;
        if (!token_ok(file, (size_t)(end - file)) ||
            !copy_n(out->file, sizeof out->file, file, (size_t)(end - file)))
            return bad_ref(err, text, "has an invalid file name");
    }
    if (*end == ':') {
        const char *q = end + 1;
        size_t n = strlen(q);
        if (!name_ok(q, n, sizeof out->quant - 1))
            return bad_ref(err, text, "has an invalid quantization");
        copy_n(out->quant, sizeof out->quant, q, n);
        end = q + n;
    }
    if (*end)
        return bad_ref(err, text, "has trailing characters");
    return KVB_OK;
}

static kvb_status parse_ollama(const char *text, const char *s, kvb__ref *out,
                               kvb_error *err)
{
    out->kind = KVB__REF_OLLAMA;
    strcpy(out->tag, "latest");
    strcpy(out->host, "registry.ollama.ai");
    const char *colon = strrchr(s, ':'), *end = s + strlen(s);
    if (colon && !strchr(colon, '/')) {
        if (!name_ok(colon + 1, strlen(colon + 1), sizeof out->tag - 1))
            return bad_ref(err, text, "has an invalid tag");
        copy_n(out->tag, sizeof out->tag, colon + 1, strlen(colon + 1));
        end = colon;
    }
    /* NAME, NAMESPACE/NAME or HOST/NAMESPACE/NAME */
    const char *parts[3];
    size_t lens[3], count = 0;
    for (const char *p = s; p < end && count < 3;) {
        const char *q = memchr(p, '/', (size_t)(end - p));
        if (!q)
            q = end;
        parts[count] = p;
        lens[count++] = (size_t)(q - p);
        p = q + (q < end);
        if (q < end && q + 1 == end)
            return bad_ref(err, text, "ends with '/'");
        if (q < end && count == 3)
            return bad_ref(err, text, "has too many '/'");
    }
    if (count == 0)
        return bad_ref(err, text, "names no model");
    for (size_t i = 0; i < count; i++)
        if (!name_ok(parts[i], lens[i], 96))
            return bad_ref(err, text, "has an invalid name");
    size_t first = 0;
    if (count == 3) {
        copy_n(out->host, sizeof out->host, parts[0], lens[0]);
        first = 1;
    }
    if (count == 1)
        snprintf(out->repo, sizeof out->repo, "library/%.*s", (int)lens[0],
                 parts[0]);
    else
        snprintf(out->repo, sizeof out->repo, "%.*s/%.*s", (int)lens[first],
                 parts[first], (int)lens[first + 1], parts[first + 1]);
    return KVB_OK;
}

kvb_status kvb__ref_parse(const char *text, kvb__ref *out, kvb_error *err)
{
    memset(out, 0, sizeof *out);
    if (strncmp(text, "ollama://", 9) == 0)
        return parse_ollama(text, text + 9, out, err);
    if (strncmp(text, "hf://", 5) == 0)
        return parse_hf(text, text + 5, true, out, err);
    if (strstr(text, "://"))
        return bad_ref(err, text, "has an unknown scheme");
    return parse_hf(text, text, false, out, err);
}

/* ---- the environment ---- */

static const char *env(const kvb__ref_env *e, const char *name)
{
    if (e->flags & KVB_REF_NO_ENV)
        return NULL;
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static bool env_true(const kvb__ref_env *e, const char *name)
{
    const char *v = env(e, name);
    return v && (!strcmp(v, "1") || !strcasecmp(v, "true") ||
                 !strcasecmp(v, "yes") || !strcasecmp(v, "on"));
}

static bool fmt(char *out, size_t cap, const char *a, const char *b)
{
    int n = snprintf(out, cap, "%s%s", a, b);
    return n >= 0 && (size_t)n < cap;
}

/* The token file: its first line, trimmed. */
static void read_token_file(kvb__ref_env *e, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512];
    if (fgets(line, sizeof line, f)) {
        size_t n = strcspn(line, "\r\n");
        while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
            n--;
        line[n] = '\0';
        if (n) {
            kvb__strlcpy(e->token, line, sizeof e->token);
            kvb__strlcpy(e->token_source, "token file", sizeof e->token_source);
        }
    }
    fclose(f);
}

static kvb_status range_check(const char *field, uint32_t v, uint32_t lo,
                              uint32_t hi, kvb_error *err)
{
    if (v >= lo && v <= hi)
        return KVB_OK;
    return kvb__fail(err, KVB_ERANGE, field,
                     "%s (%u) is out of range; "
                     "allowed: %u..%u",
                     field, v, lo, hi);
}

static kvb_status env_load(const kvb_ref_options *opt, kvb__ref_env *e,
                           kvb_error *err)
{
    kvb_ref_options o;
    KVB__CANNOT_FAIL(kvb_ref_options_init(&o, sizeof o));
    if (opt) {
        kvb_status st = kvb__struct_in(opt, sizeof o, &o, "ref_options", err);
        if (st)
            return st;
    }
    kvb_status st =
        range_check("ref_options.max_parallel", o.max_parallel, 1, 64, err);
    if (!st)
        st = range_check("ref_options.max_retries", o.max_retries, 0, 16, err);
    if (!st)
        st = range_check("ref_options.timeout_ms", o.timeout_ms, 100, 600000,
                         err);
    if (!st)
        st = range_check("ref_options.backoff_ms", o.backoff_ms, 0, 60000, err);
    if (st)
        return st;
    memset(e, 0, sizeof *e);
    e->flags = o.flags;
    e->max_parallel = o.max_parallel;
    e->max_retries = o.max_retries;
    e->timeout_ms = o.timeout_ms;
    e->backoff_ms = o.backoff_ms;
    if (env_true(e, "HF_HUB_OFFLINE"))
        e->flags |= KVB_REF_OFFLINE;

    const char *home = env(e, "HOME");
    char hf_home[KVB__PATH_CAP] = "";
    const char *v = env(e, "HF_HOME");
    if (v)
        kvb__strlcpy(hf_home, v, sizeof hf_home);
    else if ((v = env(e, "XDG_CACHE_HOME")) != NULL)
        fmt(hf_home, sizeof hf_home, v, "/huggingface");
    else if (home)
        fmt(hf_home, sizeof hf_home, home, "/.cache/huggingface");

    const char *endpoint =
        o.hf_endpoint ? o.hf_endpoint : env(e, "HF_ENDPOINT");
    kvb__strlcpy(e->endpoint, endpoint ? endpoint : "https://huggingface.co",
                 sizeof e->endpoint);
    size_t n = strlen(e->endpoint);
    while (n && e->endpoint[n - 1] == '/')
        e->endpoint[--n] = '\0';

    if (o.hf_token) {
        kvb__strlcpy(e->token, o.hf_token, sizeof e->token);
        kvb__strlcpy(e->token_source, "options", sizeof e->token_source);
    } else if ((v = env(e, "HF_TOKEN")) != NULL ||
               (v = env(e, "HUGGING_FACE_HUB_TOKEN")) != NULL) {
        kvb__strlcpy(e->token, v, sizeof e->token);
        kvb__strlcpy(e->token_source, "HF_TOKEN", sizeof e->token_source);
    } else if ((v = env(e, "HF_TOKEN_PATH")) != NULL) {
        read_token_file(e, v);
    } else if (hf_home[0]) {
        char path[KVB__PATH_CAP];
        if (fmt(path, sizeof path, hf_home, "/token"))
            read_token_file(e, path);
    }

    if (o.hf_cache)
        kvb__strlcpy(e->hf_cache, o.hf_cache, sizeof e->hf_cache);
    else if ((v = env(e, "HF_HUB_CACHE")) != NULL ||
             (v = env(e, "HUGGINGFACE_HUB_CACHE")) != NULL)
        kvb__strlcpy(e->hf_cache, v, sizeof e->hf_cache);
    else if (hf_home[0])
        fmt(e->hf_cache, sizeof e->hf_cache, hf_home, "/hub");

    if (o.ollama_models)
        kvb__strlcpy(e->ollama_models, o.ollama_models,
                     sizeof e->ollama_models);
    else if ((v = env(e, "OLLAMA_MODELS")) != NULL)
        kvb__strlcpy(e->ollama_models, v, sizeof e->ollama_models);
    else if (home)
        fmt(e->ollama_models, sizeof e->ollama_models, home, "/.ollama/models");
    return KVB_OK;
}

/* ---- the entry point ---- */

static kvb_status read_path(kvb__ref_read *rr, const char *path,
                            kvb_model *model, kvb_quant *quant,
                            kvb_read_info *info, kvb_error *err)
{
    kvb_status st = kvb_model_read(path, model, quant, info, err);
    if (!st) {
        rr->where.source = KVB_REF_SOURCE_PATH;
        kvb__strlcpy(rr->where.path, path, sizeof rr->where.path);
    }
    return st;
}

static kvb_status read_hf(kvb__ref_read *rr, kvb_model *model, kvb_quant *quant,
                          kvb_read_info *info, kvb_error *err)
{
    const kvb__ref *ref = rr->ref;
    kvb__strlcpy(rr->where.repo, ref->repo, sizeof rr->where.repo);
    kvb__strlcpy(rr->where.revision, ref->revision, sizeof rr->where.revision);
    if (!(rr->env->flags & KVB_REF_NO_CACHE) && rr->env->hf_cache[0]) {
        char snap[KVB__PATH_CAP];
        bool found = false;
        kvb_status st = kvb__hf_cache_find(rr, snap, &found);
        if (st)
            return st;
        if (found)
            return kvb__hf_cache_read(rr, snap, model, quant, info, err);
    }
    if (rr->env->flags & KVB_REF_OFFLINE)
        return kvb__fail(err, KVB_ENOTFOUND, "ref",
                         "%s@%s is not in the Hugging Face cache (%s) and "
                         "the Hub is off (HF_HUB_OFFLINE)",
                         ref->repo, ref->revision,
                         rr->env->hf_cache[0] ? rr->env->hf_cache : "unset");
    return kvb__hub_read(rr, model, quant, info, err);
}

kvb_status kvb_model_read_ref(const char *ref, const kvb_ref_options *opt,
                              kvb_model *model, kvb_quant *quant,
                              kvb_read_info *info, kvb_ref_info *where,
                              kvb_error *err)
{
    kvb__clear(err);
    kvb_status st = kvb__read_outputs_check(model, quant, info, err);
    if (!st && where)
        st = kvb__struct_check(where, sizeof(kvb_ref_info), "ref_info", err);
    if (st)
        return st;
    if (!ref || !*ref)
        return kvb__fail(err, KVB_EINVAL, "ref",
                         "ref is NULL or empty; allowed: a path, "
                         "ORG/REPO, hf://ORG/REPO or ollama://NAME");
    kvb__ref_env e;
    st = env_load(opt, &e, err);
    if (st)
        return st;
    kvb__ref parsed;
    kvb__ref_read rr;
    memset(&rr, 0, sizeof rr);
    KVB__CANNOT_FAIL(kvb_ref_info_init(&rr.where, sizeof rr.where));
    rr.env = &e;
    rr.ref = &parsed;
    struct stat sb;
    if (!strstr(ref, "://") && stat(ref, &sb) == 0)
        st = read_path(&rr, ref, model, quant, info, err);
    else if ((st = kvb__ref_parse(ref, &parsed, err)) == KVB_OK)
        st = parsed.kind == KVB__REF_OLLAMA
                 ? kvb__ollama_read(&rr, model, quant, info, err)
                 : read_hf(&rr, model, quant, info, err);
    if (where && !st)
        kvb__struct_out(&rr.where, sizeof rr.where, where);
    else if (where)
        /* requests and bytes are worth knowing on failure too */
        where->http_requests = rr.where.http_requests,
        where->http_bytes = rr.where.http_bytes;
    return st;
}
