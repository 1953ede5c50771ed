/* fuzz_gguf.c -- the GGUF reader on arbitrary bytes, whole and, as the
 * file reader sees a large header, as a prefix of a longer file. */
#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kvb_model m;
    kvb_quant q;
    kvb_read_info info;
    kvb_error e = KVB_ERROR_INIT;
    if (KVB_MODEL_INIT(&m) || KVB_QUANT_INIT(&q) || KVB_READ_INFO_INIT(&info))
        return 0;
    kvb_status st = kvb_gguf_parse(data, size, &m, &q, &info, &e);
    /* A prefix of a longer file: the reader must ask for more, never
     * read past the prefix. */
    kvb__reader r;
    uint64_t need = 0;
    kvb__reader_init(&r, "fuzz", &e);
    st = kvb__gguf_read(&r, data, size / 2, size, &need);
    if (st == KVB_OK && need != 0)
        __builtin_trap();
    if (need > size)
        __builtin_trap();
    return 0;
}
