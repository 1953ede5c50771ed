/*
 * engines/registry.c -- the engines the planner knows, in kvb_engine order,
 * and their names.  Adding an engine is adding its file (engines/<name>.c,
 * one kvb__engine table) and one row here.
 */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const kvb__engine *const engines[KVB_ENGINE_LAST_] = {
    [KVB_ENGINE_VLLM] = &kvb__engine_vllm,
    [KVB_ENGINE_SGLANG] = &kvb__engine_sglang,
    [KVB_ENGINE_LLAMA_CPP] = &kvb__engine_llama_cpp,
    [KVB_ENGINE_OLLAMA] = &kvb__engine_ollama,
    [KVB_ENGINE_TRTLLM] = &kvb__engine_trtllm,
    [KVB_ENGINE_TGI] = &kvb__engine_tgi,
};

const kvb__engine *kvb__engine_get(int32_t id)
{
    if (id < 0 || id >= KVB_ENGINE_LAST_)
        return NULL;
    return engines[id];
}

void kvb__engines_planning(bool sparse_indexer, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int32_t id = 0; id < KVB_ENGINE_LAST_; id++) {
        const kvb__engine *e = engines[id];
        if (!e || !(sparse_indexer ? e->sparse_indexer : e->recurrent))
            continue;
        const char *since =
            sparse_indexer ? e->sparse_indexer_since : e->recurrent_since;
        int n = snprintf(buf + used, cap - used, "%s%s%s%s%s", used ? ", " : "",
                         e->display, since ? " " : "", since ? since : "",
                         since ? " or later" : "");
        if (n < 0 || (size_t)n >= cap - used)
            return; /* truncated at a name: the text stays a list */
        used += (size_t)n;
    }
    if (!used)
        snprintf(buf, cap, "none");
}

/* Names of every kvb_engine, also of one this build does not plan for. */
const char *kvb_engine_name(int engine)
{
    static const char *const names[KVB_ENGINE_LAST_] = {
        [KVB_ENGINE_VLLM] = "vllm",           [KVB_ENGINE_SGLANG] = "sglang",
        [KVB_ENGINE_LLAMA_CPP] = "llama.cpp", [KVB_ENGINE_OLLAMA] = "ollama",
        [KVB_ENGINE_TRTLLM] = "trtllm",       [KVB_ENGINE_TGI] = "tgi",
    };
    if (engine < 0 || engine >= KVB_ENGINE_LAST_)
        return NULL;
    return names[engine];
}

const char *kvb_accounting_name(int accounting)
{
    static const char *const names[KVB_ACCOUNTING_LAST_] = {
        [KVB_ACCOUNTING_VLLM_V0] = "vllm-v0",
        [KVB_ACCOUNTING_VLLM_V1] = "vllm-v1",
        [KVB_ACCOUNTING_VLLM_V1_021] = "vllm-v1-0.21",
        [KVB_ACCOUNTING_SGLANG] = "sglang",
        [KVB_ACCOUNTING_LLAMA_CPP] = "llama.cpp",
        [KVB_ACCOUNTING_OLLAMA] = "ollama",
        [KVB_ACCOUNTING_TRTLLM_PYTORCH] = "trtllm-pytorch",
        [KVB_ACCOUNTING_TRTLLM_ENGINE] = "trtllm-engine",
        [KVB_ACCOUNTING_TGI] = "tgi",
    };
    if (accounting < 0 || accounting >= KVB_ACCOUNTING_LAST_)
        return NULL;
    return names[accounting];
}

/* "0.11", "0.21.1", "v0.7.3" or "0.7.3.dev233+gad5a35c2" -> packed. */
static bool parse_semver(const char *v, uint32_t *out)
{
    if (*v == 'v' || *v == 'V')
        v++;
    unsigned long part[3] = {0, 0, 0};
    int n = 0;
    while (n < 3 && isdigit((unsigned char)*v)) {
        char *end;
        part[n++] = strtoul(v, &end, 10);
        v = end;
        if (*v != '.')
            break;
        v++;
    }
    if (n < 2 || part[0] > 99 || part[1] > 99 || part[2] > 99)
        return false;
    *out = (uint32_t)(part[0] * 10000 + part[1] * 100 + part[2]);
    return *out != 0;
}

/* The engine a name (or variant name) means; accounting -1 unless a
 * variant forces one. */
static const kvb__engine *find(const char *name, int32_t *accounting)
{
    *accounting = -1;
    for (int i = 0; i < KVB_ENGINE_LAST_; i++) {
        const kvb__engine *e = engines[i];
        if (!e)
            continue;
        if (!kvb__strcasecmp(name, e->name) ||
            (e->variant && e->variant(name, accounting)))
            return e;
    }
    return NULL;
}

static void allowed(char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < KVB_ENGINE_LAST_ && n < cap; i++)
        if (engines[i])
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "",
                                  engines[i]->name);
}

kvb_status kvb__engine_spec(const char *spec, int32_t *engine,
                            uint32_t *version, int32_t *accounting,
                            kvb_error *err)
{
    if (!spec || !engine || !version)
        return kvb__fail(err, KVB_EINVAL, "serving.engine",
                         "serving.engine: spec, engine and version must not "
                         "be NULL");
    const char *at = strchr(spec, '@');
    char name[32];
    size_t n = at ? (size_t)(at - spec) : strlen(spec);
    if (n >= sizeof name)
        n = sizeof name - 1;
    memcpy(name, spec, n);
    name[n] = '\0';
    int32_t forced;
    const kvb__engine *e = find(name, &forced);
    if (!e) {
        char list[160];
        allowed(list, sizeof list);
        return kvb__fail(err, KVB_ENOTFOUND, "serving.engine",
                         "serving.engine (%s) is not known; allowed: %s, "
                         "each optionally @<version>",
                         spec, list);
    }
    *engine = e->id;
    *version = 0;
    if (accounting)
        *accounting = forced;
    if (!at || kvb__strcasecmp(at + 1, "latest") == 0)
        return KVB_OK;
    bool ok = e->parse_version ? e->parse_version(at + 1, version)
                               : parse_semver(at + 1, version);
    if (!ok)
        return kvb__fail(err, KVB_EINVAL, "serving.engine_version",
                         "serving.engine_version (%s) is not a %s version; "
                         "allowed: MAJOR.MINOR[.PATCH] such as 0.11 or "
                         "0.21.1, or latest",
                         at + 1, e->display);
    return KVB_OK;
}

kvb_status kvb_engine_parse(const char *spec, int32_t *engine,
                            uint32_t *version, kvb_error *err)
{
    return kvb__engine_spec(spec, engine, version, NULL, err);
}

kvb_status kvb_serving_engine_set(kvb_serving *serving, const char *spec,
                                  kvb_error *err)
{
    kvb_serving s;
    kvb_status st = kvb__struct_in(serving, sizeof s, &s, "serving", err);
    if (!st)
        st = kvb__engine_spec(spec, &s.engine, &s.engine_version, &s.accounting,
                              err);
    if (st)
        return st;
    kvb__struct_out(&s, sizeof s, serving);
    return KVB_OK;
}

const char *kvb__engine_remedy(const kvb__engine *e, int32_t kind,
                               int32_t quant)
{
    return e && e->remedy ? e->remedy(kind, quant) : NULL;
}

void kvb__engine_version_text(const kvb__engine *e, uint32_t version, char *buf,
                              size_t cap)
{
    if (!cap)
        return;
    if (version == 0)
        snprintf(buf, cap, "newest");
    else if (e && e->format_version)
        e->format_version(version, buf, cap);
    else
        snprintf(buf, cap, "%u.%u.%u", version / 10000, version / 100 % 100,
                 version % 100);
}

kvb_status kvb_engine_version_format(int engine, uint32_t version, char *buf,
                                     size_t cap, kvb_error *err)
{
    if (!buf || !cap)
        return kvb__fail(err, KVB_EINVAL, "buf",
                         "buf must not be NULL and cap must be positive");
    const kvb__engine *e = kvb__engine_get(engine);
    if (!e) {
        buf[0] = '\0';
        return kvb__fail(err, KVB_ERANGE, "engine",
                         "engine (%d) is not a kvb_engine this build plans "
                         "for",
                         engine);
    }
    kvb__engine_version_text(e, version, buf, cap);
    return KVB_OK;
}

bool kvb__engine_version_parse(const kvb__engine *e, const char *text,
                               uint32_t *version)
{
    return e->parse_version ? e->parse_version(text, version)
                            : parse_semver(text, version);
}
