/* fuzz_safetensors.c -- kvb_safetensors_parse on arbitrary bytes, and the
 * fast path against the jansson path: on every input both give the same
 * status, error (field, message, position) and sums. */
#include "internal.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same_error(const kvb_error *a, const kvb_error *b)
{
    if (a->status != b->status || strcmp(a->field, b->field) != 0 ||
        strcmp(a->message, b->message) != 0 || a->line != b->line ||
        a->column != b->column || a->offset != b->offset ||
        strcmp(a->source, b->source) != 0)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kvb_read_info info;
    kvb_error e = KVB_ERROR_INIT, ref_e = KVB_ERROR_INIT;
    if (KVB_READ_INFO_INIT(&info))
        return 0;
    kvb_status st = kvb_safetensors_parse(data, size, &info, &e);
    kvb__reader r;
    uint64_t bytes = 0, tensors = 0;
    kvb__reader_init(&r, "", &ref_e);
    kvb_status ref = kvb__st_read_jansson(&r, data, size, &bytes, &tensors);
    if (st != ref)
        __builtin_trap();
    same_error(&e, &ref_e);
    if (st == KVB_OK &&
        (info.weights_bytes != bytes || info.tensor_count != tensors))
        __builtin_trap();
    return 0;
}
