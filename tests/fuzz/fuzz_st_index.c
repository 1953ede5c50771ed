/* fuzz_st_index.c -- the model.safetensors.index.json reader (internal:
 * the public path needs shard files on disk). */
#include "internal.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every shard name the reader hands out must be a plain file name. */
static kvb_status check_name(void *ctx, const char *name)
{
    (void)ctx;
    if (!*name || name[0] == '.' || strchr(name, '/') || strchr(name, '\\'))
        __builtin_trap();
    return KVB_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kvb__reader r;
    kvb_error e = KVB_ERROR_INIT;
    uint64_t total = 0, entries = 0;
    kvb__reader_init(&r, "fuzz", &e);
    kvb_status st = kvb__st_index_read(&r, (const char *)data, size, check_name,
                                       NULL, &total, &entries);
    (void)st;
    return 0;
}
