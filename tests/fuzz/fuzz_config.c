/* fuzz_config.c -- kvb_config_parse on arbitrary bytes. */
#include "kvbudget.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kvb_model m;
    kvb_quant q;
    kvb_read_info info;
    kvb_error e = KVB_ERROR_INIT;
    if (KVB_MODEL_INIT(&m) || KVB_QUANT_INIT(&q) || KVB_READ_INFO_INIT(&info))
        return 0;
    /* The result does not matter; not crashing, not leaking, and not
     * reading outside the buffer do. */
    kvb_status st =
        kvb_config_parse((const char *)data, size, &m, &q, &info, &e);
    (void)st;
    return 0;
}
