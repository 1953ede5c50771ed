/* fuzz_safetensors.c -- kvb_safetensors_parse on arbitrary bytes. */
#include "kvbudget.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kvb_read_info info;
    kvb_error e = KVB_ERROR_INIT;
    if (KVB_READ_INFO_INIT(&info))
        return 0;
    kvb_status st = kvb_safetensors_parse(data, size, &info, &e);
    (void)st;
    return 0;
}
