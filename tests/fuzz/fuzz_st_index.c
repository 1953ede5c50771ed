/* fuzz_st_index.c -- the model.safetensors.index.json reader (internal:
 * the public path needs shard files on disk), and its fast path against
 * the jansson path: the same status, error, sums and shard names. */
#include "internal.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The shard names one path handed out, folded into a checksum. */
typedef struct seen {
    uint64_t hash, count;
} seen;

/* Every shard name the reader hands out must be a plain file name. */
static kvb_status check_name(void *ctx, const char *name)
{
    seen *s = ctx;
    if (!*name || name[0] == '.' || strchr(name, '/') || strchr(name, '\\'))
        __builtin_trap();
    for (const char *p = name; *p; p++)
        s->hash = (s->hash ^ (unsigned char)*p) * 0x100000001B3u;
    s->hash = (s->hash ^ 0xFF) * 0x100000001B3u; /* the name's end */
    s->count++;
    return KVB_OK;
}

typedef struct run {
    kvb_status st;
    kvb_error e;
    uint64_t total, entries;
    seen names;
} run;

static void run_one(run *o, const uint8_t *data, size_t size, bool fast)
{
    kvb__reader r;
    memset(o, 0, sizeof *o);
    o->names.hash = 0xCBF29CE484222325u;
    if (kvb_error_init(&o->e, sizeof o->e))
        __builtin_trap();
    kvb__reader_init(&r, "fuzz", &o->e);
    o->st = fast ? kvb__st_index_read(&r, (const char *)data, size, check_name,
                                      &o->names, &o->total, &o->entries)
                 : kvb__st_index_read_jansson(&r, (const char *)data, size,
                                              check_name, &o->names, &o->total,
                                              &o->entries);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run a, b;
    run_one(&a, data, size, true);
    run_one(&b, data, size, false);
    if (a.st != b.st || strcmp(a.e.field, b.e.field) != 0 ||
        strcmp(a.e.message, b.e.message) != 0 || a.e.line != b.e.line ||
        a.e.column != b.e.column || a.e.offset != b.e.offset ||
        a.names.count != b.names.count || a.names.hash != b.names.hash)
        __builtin_trap();
    if (a.st == KVB_OK && (a.total != b.total || a.entries != b.entries))
        __builtin_trap();
    return 0;
}
