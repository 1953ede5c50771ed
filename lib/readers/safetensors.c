/*
 * readers/safetensors.c -- exact tensor bytes from safetensors headers.
 *
 * A file is an 8-byte little-endian header length N, N bytes of JSON
 * ({"__metadata__": {str: str}, "<name>": {"dtype", "shape",
 * "data_offsets": [begin, end]}}), then the data.  The bytes of a tensor
 * are end - begin; the reader checks them against dtype x shape and checks
 * that the spans tile the data from 0 without gaps or overlaps, as the
 * reference implementation (huggingface/safetensors, Metadata::validate)
 * does.  Quantized checkpoints are plain tensors here (GPTQ qweight I32,
 * scales F16, g_idx I32; FP8 weight F8_E4M3 + weight_scale F32; MXFP4
 * blocks U8), so the sum is exact for them too.
 *
 * A sharded model lists its files in model.safetensors.index.json; the
 * index reader validates the shard names (plain file names only: a
 * hostile index must not point outside the model directory).
 */
#include "internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define MAX_RANK 16u /* dimensions of one tensor */

typedef struct span {
    uint64_t begin, end;
    const char *name;
} span;

static kvb_status tfail(kvb__reader *r, kvb_status st, const char *name,
                        const char *key, const char *fmt, ...)
    KVB__PRINTF(5, 6);

static kvb_status tfail(kvb__reader *r, kvb_status st, const char *name,
                        const char *key, const char *fmt, ...)
{
    char text[256], field[64];
    const char *path[2] = {name, key};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(field, sizeof field, "safetensors.%s%s%s", name, key ? "." : "",
             key ? key : "");
    return kvb__json_fail(r, st, path, key ? 2 : 1, field, "%s", text);
}

static bool as_u64(const json_t *v, uint64_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return false;
    *out = (uint64_t)json_integer_value(v);
    return true;
}

/* Elements of a shape, overflow-checked. */
static kvb_status elements(kvb__reader *r, const char *name, json_t *shape,
                           uint64_t *n)
{
    size_t rank = json_array_size(shape);
    if (!json_is_array(shape) || rank > MAX_RANK)
        return tfail(r, KVB_EPARSE, name, "shape",
                     "shape of %s is not an array of at most %u sizes", name,
                     MAX_RANK);
    *n = 1;
    for (size_t i = 0; i < rank; i++) {
        uint64_t d = 0;
        if (!as_u64(json_array_get(shape, i), &d))
            return tfail(r, KVB_EPARSE, name, "shape",
                         "shape[%zu] of %s is not a size >= 0", i, name);
        if (!kvb__mul_ok(*n, d, n))
            return tfail(r, KVB_EOVERFLOW, name, "shape",
                         "shape of %s overflows 64 bits", name);
    }
    return KVB_OK;
}

static kvb_status tensor(kvb__reader *r, const char *name, json_t *t, span *out)
{
    if (!json_is_object(t))
        return tfail(r, KVB_EPARSE, name, NULL, "tensor %s is not an object",
                     name);
    json_t *dt = json_object_get(t, "dtype");
    json_t *offs = json_object_get(t, "data_offsets");
    if (!json_is_string(dt))
        return tfail(r, KVB_EPARSE, name, "dtype",
                     "tensor %s has no dtype string", name);
    uint32_t bits = kvb__st_dtype_bits(json_string_value(dt));
    if (!bits)
        return tfail(r, KVB_EUNSUPPORTED, name, "dtype",
                     "dtype (%.32s) of %s is not a safetensors dtype this "
                     "version knows",
                     json_string_value(dt), name);
    uint64_t n = 0, nbits = 0;
    kvb_status st = elements(r, name, json_object_get(t, "shape"), &n);
    if (st)
        return st;
    if (!kvb__mul_ok(n, bits, &nbits))
        return tfail(r, KVB_EOVERFLOW, name, "shape",
                     "size of %s overflows 64 bits", name);
    if (nbits % 8 != 0)
        return tfail(r, KVB_EPARSE, name, "shape",
                     "%s: %llu elements of %u bits do not end on a byte", name,
                     (unsigned long long)n, bits);
    if (json_array_size(offs) != 2 ||
        !as_u64(json_array_get(offs, 0), &out->begin) ||
        !as_u64(json_array_get(offs, 1), &out->end) || out->end < out->begin)
        return tfail(r, KVB_EPARSE, name, "data_offsets",
                     "data_offsets of %s is not [begin, end] with begin <= "
                     "end",
                     name);
    if (out->end - out->begin != nbits / 8)
        return tfail(r, KVB_EPARSE, name, "data_offsets",
                     "data_offsets of %s span %llu bytes; dtype and shape "
                     "need %llu",
                     name, (unsigned long long)(out->end - out->begin),
                     (unsigned long long)(nbits / 8));
    out->name = name;
    if (r->on_tensor)
        r->on_tensor(r->on_tensor_ctx, name, strlen(name),
                     json_string_value(dt), nbits / 8);
    return KVB_OK;
}

static int by_offset(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* The spans must tile [0, end) exactly, in offset order. */
static kvb_status tiled(kvb__reader *r, span *s, size_t n, uint64_t *end)
{
    if (n) /* qsort's pointer must not be NULL, even for 0 elements */
        qsort(s, n, sizeof *s, by_offset);
    *end = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].begin != *end)
            return tfail(r, KVB_EPARSE, s[i].name, "data_offsets",
                         "data_offsets of %s begin at %llu; the previous "
                         "tensor ends at %llu (a gap or an overlap)",
                         s[i].name, (unsigned long long)s[i].begin,
                         (unsigned long long)*end);
        *end = s[i].end;
    }
    return KVB_OK;
}

static kvb_status metadata(kvb__reader *r, json_t *v)
{
    const char *key;
    json_t *val;
    if (!json_is_object(v))
        return tfail(r, KVB_EPARSE, "__metadata__", NULL,
                     "__metadata__ is not an object");
    json_object_foreach(v, key, val)
    {
        if (!json_is_string(val))
            return tfail(r, KVB_EPARSE, "__metadata__", key,
                         "__metadata__.%.64s is not a string", key);
    }
    return KVB_OK;
}

static kvb_status tensors_of(kvb__reader *r, json_t *root, span *s, size_t *n)
{
    const char *key;
    json_t *val;
    *n = 0;
    json_object_foreach(root, key, val)
    {
        kvb_status st = strcmp(key, "__metadata__") == 0
                            ? metadata(r, val)
                            : tensor(r, key, val, &s[(*n)++]);
        if (st)
            return st;
    }
    return KVB_OK;
}

static kvb_status header_size(kvb__reader *r, const unsigned char *p,
                              size_t len, uint64_t *n)
{
    if (len < 8)
        return kvb__read_fail(r, KVB_EPARSE, "safetensors.header_size", -1, -1,
                              (int64_t)len,
                              "file ends after %zu bytes, before the 8-byte "
                              "header length",
                              len);
    *n = kvb__le64(p);
    if (*n > KVB_READ_MAX_ST_HEADER_BYTES)
        return kvb__read_fail(
            r, KVB_ELIMIT, "safetensors.header_size", -1, -1, 0,
            "header length (%llu) exceeds the %u-byte limit",
            (unsigned long long)*n, KVB_READ_MAX_ST_HEADER_BYTES);
    if (*n > len - 8)
        return kvb__read_fail(r, KVB_EPARSE, "safetensors.header_size", -1, -1,
                              (int64_t)len,
                              "header length (%llu) runs past the %zu bytes "
                              "present",
                              (unsigned long long)*n, len);
    if (*n < 2 || p[8] != '{')
        return kvb__read_fail(r, KVB_EPARSE, "safetensors.header", -1, -1, 8,
                              "header does not start with '{'");
    return KVB_OK;
}

/* The header through jansson: the reference, and every error's source. */
static kvb_status st_jansson(kvb__reader *r, const unsigned char *p, uint64_t n,
                             uint64_t *bytes, uint64_t *count)
{
    json_t *root = NULL;
    kvb_status st =
        kvb__json_load(r, (const char *)p + 8, (size_t)n, 8,
                       "safetensors header", KVB__JSON_MAX_ST_TOKENS, &root);
    if (st)
        return st;
    size_t entries = json_object_size(root);
    span *s = NULL;
    if (!json_is_object(root))
        st = kvb__json_fail(r, KVB_EPARSE, NULL, 0, "safetensors.header",
                            "header is not a JSON object");
    else if (entries > KVB_READ_MAX_TENSORS + 1u)
        st = kvb__json_fail(r, KVB_ELIMIT, NULL, 0, "safetensors.header",
                            "header lists %zu tensors; allowed: at most %u",
                            entries, KVB_READ_MAX_TENSORS);
    else if (entries && !(s = calloc(entries, sizeof *s)))
        st = kvb__read_fail(r, KVB_ENOMEM, "safetensors.header", -1, -1, -1,
                            "cannot allocate %zu tensor spans", entries);
    size_t got = 0;
    if (!st)
        st = tensors_of(r, root, s, &got);
    if (!st)
        st = tiled(r, s, got, bytes);
    *count = got;
    free(s);
    json_decref(root);
    r->json = NULL;
    return st;
}

kvb_status kvb__st_read(kvb__reader *r, const void *buf, size_t len,
                        uint64_t *bytes, uint64_t *count)
{
    const unsigned char *p = buf;
    uint64_t n = 0;
    kvb_status st = header_size(r, p, len, &n);
    if (st)
        return st;
    /* A plain header needs no tree; anything else goes to jansson, which
     * reports it (readers/st_fast.c). */
    if (kvb__st_fast(r, (const char *)p + 8, (size_t)n, bytes, count))
        return KVB_OK;
    return st_jansson(r, p, n, bytes, count);
}

kvb_status kvb__st_read_jansson(kvb__reader *r, const void *buf, size_t len,
                                uint64_t *bytes, uint64_t *count)
{
    uint64_t n = 0;
    kvb_status st = header_size(r, buf, len, &n);
    return st ? st : st_jansson(r, buf, n, bytes, count);
}

/* ---- model.safetensors.index.json ---- */

static bool plain_file_name(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && n < 256 && s[0] != '.' && !strchr(s, '/') &&
           !strchr(s, '\\');
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static kvb_status index_total(kvb__reader *r, json_t *root, uint64_t *total)
{
    static const char *const path[] = {"metadata", "total_size"};
    json_t *v =
        json_object_get(json_object_get(root, "metadata"), "total_size");
    *total = 0;
    if (!v || json_is_null(v))
        return KVB_OK;
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *total = (uint64_t)json_integer_value(v);
        return KVB_OK;
    }
    double d = json_is_real(v) ? json_real_value(v) : -1;
    if (d >= 0 && d < 9007199254740992.0 && (double)(uint64_t)d == d) {
        *total = (uint64_t)d; /* some writers emit 1.6e10 */
        return KVB_OK;
    }
    return kvb__json_fail(r, KVB_EPARSE, path, 2, "index.metadata.total_size",
                          "metadata.total_size is not a byte count");
}

/* Every value of weight_map, checked, sorted and made unique. */
static kvb_status shard_names(kvb__reader *r, json_t *map, const char **names,
                              size_t *n)
{
    const char *key;
    json_t *val;
    *n = 0;
    json_object_foreach(map, key, val)
    {
        const char *path[2] = {"weight_map", key};
        if (!json_is_string(val) || !plain_file_name(json_string_value(val)))
            return kvb__json_fail(r, KVB_EPARSE, path, 2, "index.weight_map",
                                  "weight_map[%.64s] is not a plain file "
                                  "name",
                                  key);
        names[(*n)++] = json_string_value(val);
    }
    if (*n)
        qsort(names, *n, sizeof *names, by_name);
    size_t u = 0;
    for (size_t i = 0; i < *n; i++)
        if (u == 0 || strcmp(names[u - 1], names[i]) != 0)
            names[u++] = names[i];
    *n = u;
    return KVB_OK;
}

static kvb_status index_map(kvb__reader *r, json_t *root, json_t **map)
{
    static const char *const path[] = {"weight_map"};
    *map = json_object_get(root, "weight_map");
    if (!json_is_object(root))
        return kvb__json_fail(r, KVB_EPARSE, NULL, 0, "index",
                              "index is not a JSON object");
    if (!json_is_object(*map))
        return kvb__json_fail(r, KVB_EPARSE, path, 1, "index.weight_map",
                              "index has no weight_map object");
    if (json_object_size(*map) > KVB_READ_MAX_TENSORS)
        return kvb__json_fail(r, KVB_ELIMIT, path, 1, "index.weight_map",
                              "weight_map lists %zu tensors; allowed: at most "
                              "%u",
                              json_object_size(*map), KVB_READ_MAX_TENSORS);
    return KVB_OK;
}

static kvb_status each_shard(kvb__reader *r, const char **names, size_t n,
                             kvb__shard_fn fn, void *ctx)
{
    if (n > KVB_READ_MAX_SHARDS)
        return kvb__json_fail(r, KVB_ELIMIT, NULL, 0, "index.weight_map",
                              "index names %zu shard files; allowed: at most "
                              "%u",
                              n, KVB_READ_MAX_SHARDS);
    for (size_t i = 0; i < n; i++) {
        kvb_status st = fn(ctx, names[i]);
        if (st)
            return st;
    }
    return KVB_OK;
}

static kvb_status index_size(kvb__reader *r, size_t len)
{
    if (len <= KVB_READ_MAX_JSON_BYTES)
        return KVB_OK;
    return kvb__read_fail(r, KVB_ELIMIT, "index", -1, -1,
                          (int64_t)KVB_READ_MAX_JSON_BYTES,
                          "index (%zu bytes) exceeds the %u-byte limit", len,
                          KVB_READ_MAX_JSON_BYTES);
}

/* The index through jansson: the reference, and every error's source. */
static kvb_status index_jansson(kvb__reader *r, const char *json, size_t len,
                                kvb__shard_fn fn, void *ctx,
                                uint64_t *total_size, uint64_t *entries)
{
    json_t *root = NULL, *map = NULL;
    kvb_status st = kvb__json_load(r, json, len, 0, "index",
                                   KVB__JSON_MAX_INDEX_TOKENS, &root);
    if (st)
        return st;
    const char **names = NULL;
    size_t n = 0;
    st = index_map(r, root, &map);
    if (!st)
        st = index_total(r, root, total_size);
    if (!st && json_object_size(map) &&
        !(names = calloc(json_object_size(map), sizeof *names)))
        st = kvb__read_fail(r, KVB_ENOMEM, "index", -1, -1, -1,
                            "cannot allocate %zu names", json_object_size(map));
    if (!st)
        st = shard_names(r, map, names, &n);
    if (!st) {
        *entries = json_object_size(map);
        r->json = NULL; /* shard errors are about the shard, not the index */
        st = each_shard(r, names, n, fn, ctx);
    }
    free(names);
    json_decref(root);
    r->json = NULL;
    return st;
}

kvb_status kvb__st_index_read(kvb__reader *r, const char *json, size_t len,
                              kvb__shard_fn fn, void *ctx, uint64_t *total_size,
                              uint64_t *entries)
{
    kvb__st_index_scan x;
    kvb_status st = index_size(r, len);
    if (st)
        return st;
    /* A plain index needs no tree; anything else goes to jansson, which
     * reports it (readers/st_fast.c).  Then the shards, as jansson's path
     * does it, so that their errors are the same. */
    if (!kvb__st_index_fast(json, len, &x))
        return index_jansson(r, json, len, fn, ctx, total_size, entries);
    *total_size = x.total_size;
    *entries = x.entries;
    r->json = NULL; /* shard errors are about the shard, not the index */
    st = each_shard(r, x.names, x.count, fn, ctx);
    free(x.names);
    return st;
}

kvb_status kvb__st_index_read_jansson(kvb__reader *r, const char *json,
                                      size_t len, kvb__shard_fn fn, void *ctx,
                                      uint64_t *total_size, uint64_t *entries)
{
    kvb_status st = index_size(r, len);
    return st ? st : index_jansson(r, json, len, fn, ctx, total_size, entries);
}
