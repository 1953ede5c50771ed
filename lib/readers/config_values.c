/*
 * readers/config_values.c -- one value of a config.json at a time: the
 * first of its spellings that is present, its type and range, and errors
 * that name the key (config.<prefix>.<key>) and point at its line.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

/* The path of `key` in c->obj, for locating it in the text. */
static size_t path_of(const kvb__cfg *c, const char *key, const char *path[2])
{
    size_t n = 0;
    if (c->prefix)
        path[n++] = c->prefix;
    path[n++] = key;
    return n;
}

static void field_of(const kvb__cfg *c, const char *key, char *out, size_t cap)
{
    snprintf(out, cap, "config.%s%s%s", c->prefix ? c->prefix : "",
             c->prefix ? "." : "", key);
}

kvb_status kvb__cfg_fail(kvb__cfg *c, kvb_status st, const char *key,
                         const char *fmt, ...)
{
    char text[256], field[64];
    const char *path[2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    field_of(c, key, field, sizeof field);
    return kvb__json_fail(c->r, st, path, path_of(c, key, path), field, "%s",
                          text);
}

void kvb__cfg_mark(kvb__cfg *c, int field, const char *key)
{
    const char *path[2];
    int64_t pos[3] = {-1, -1, -1};
    kvb__json_locate(c->r, path, path_of(c, key, path), pos);
    kvb__read_mark(c->r, field, pos[0], pos[1], pos[2]);
}

/* Each spelling of the comma-separated `keys` in turn, into key[cap];
 * returns the rest of the list (NULL after the last). */
static const char *next_spelling(const char *keys, char *key, size_t cap)
{
    size_t n = strcspn(keys, ",");
    snprintf(key, cap, "%.*s", (int)(n < cap ? n : 0), keys);
    return keys[n] ? keys + n + 1 : NULL;
}

json_t *kvb__cfg_lookup(json_t *obj, const char *keys, char *found, size_t cap)
{
    for (const char *k = keys; k;) {
        k = next_spelling(k, found, cap);
        json_t *v = *found ? json_object_get(obj, found) : NULL;
        if (v && !json_is_null(v))
            return v;
    }
    return NULL;
}

bool kvb__cfg_absent(json_t *obj, const char *keys)
{
    char key[64];
    for (const char *k = keys; k;) {
        k = next_spelling(k, key, sizeof key);
        if (*key && json_object_get(obj, key))
            return false;
    }
    return true;
}

const char *kvb__cfg_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    default: return "a number";
    }
}

kvb_status kvb__cfg_as_u64(kvb__cfg *c, const char *key, const json_t *v,
                           uint64_t *out)
{
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = (uint64_t)json_integer_value(v);
        return KVB_OK;
    }
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (d >= 0 && d < 9007199254740992.0 && (double)(uint64_t)d == d) {
            *out = (uint64_t)d;
            return KVB_OK;
        }
    }
    if (json_is_number(v))
        return kvb__cfg_fail(c, KVB_ERANGE, key,
                             "%s (%g) is not a whole number >= 0; allowed: "
                             "0 or more",
                             key, json_number_value(v));
    return kvb__cfg_fail(c, KVB_EPARSE, key,
                         "%s is %s; allowed: a non-negative integer", key,
                         kvb__cfg_type_name(v));
}

kvb_status kvb__cfg_u64(kvb__cfg *c, json_t *obj, const char *keys,
                        uint64_t *out, char *key, bool *found)
{
    json_t *v = kvb__cfg_lookup(obj, keys, key, 64);
    *found = v != NULL;
    return v ? kvb__cfg_as_u64(c, key, v, out) : KVB_OK;
}

kvb_status kvb__cfg_bool(kvb__cfg *c, json_t *obj, const char *keys, bool dflt,
                         bool *out)
{
    char key[64];
    json_t *v = kvb__cfg_lookup(obj, keys, key, sizeof key);
    *out = dflt;
    if (!v)
        return KVB_OK;
    if (json_is_boolean(v) ||
        (json_is_integer(v) &&
         (json_integer_value(v) == 0 || json_integer_value(v) == 1))) {
        *out = json_is_true(v) || json_integer_value(v) == 1;
        return KVB_OK;
    }
    return kvb__cfg_fail(c, KVB_EPARSE, key, "%s is %s; allowed: true or false",
                         key, kvb__cfg_type_name(v));
}

const char *kvb__cfg_string(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static void store(kvb_model *m, const kvb__sized *s, uint64_t v)
{
    unsigned char *p = (unsigned char *)m + s->offset;
    if (s->size == sizeof(uint32_t)) {
        uint32_t x = (uint32_t)v;
        memcpy(p, &x, sizeof x);
    } else {
        memcpy(p, &v, sizeof v);
    }
}

kvb_status kvb__cfg_size(kvb__cfg *c, json_t *obj, const char *keys,
                         uint64_t dflt, uint64_t max, uint64_t *out)
{
    char key[64];
    bool found = false;
    *out = dflt;
    kvb_status st = kvb__cfg_u64(c, obj, keys, out, key, &found);
    if (st)
        return st;
    if (!found && !dflt) {
        next_spelling(keys, key, sizeof key);
        return kvb__cfg_fail(c, KVB_EPARSE, key,
                             "%s is missing (spellings read: %s); allowed: "
                             "1..%llu, which the config must give",
                             key, keys, (unsigned long long)max);
    }
    if (*out == 0 || *out > max)
        return kvb__cfg_fail(c, KVB_ERANGE, key,
                             "%s (%llu) is out of range; allowed: 1..%llu", key,
                             (unsigned long long)*out, (unsigned long long)max);
    return KVB_OK;
}

kvb_status kvb__cfg_sizes(kvb__cfg *c, json_t *obj, const kvb__sized *list)
{
    kvb_status st = KVB_OK;
    for (const kvb__sized *s = list; !st && s && s->keys; s++) {
        uint64_t v = 0;
        st = kvb__cfg_size(c, obj, s->keys, s->dflt, s->max, &v);
        if (!st)
            store(&c->r->model, s, v);
    }
    return st;
}
