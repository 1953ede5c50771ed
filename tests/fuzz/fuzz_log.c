/* fuzz_log.c -- the log reader behind `kvbudget explain` on arbitrary
 * bytes: parse, turn the facts into plan inputs, and word the
 * explanation, as the command does with whatever is pasted into it. */
#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kvb_log_facts f;
    kvb_model m;
    kvb_quant q;
    kvb_gpu g;
    kvb_serving s;
    kvb_error e = KVB_ERROR_INIT;
    if (KVB_LOG_FACTS_INIT(&f) || KVB_MODEL_INIT(&m) || KVB_QUANT_INIT(&q) ||
        KVB_GPU_INIT(&g) || KVB_SERVING_INIT(&s))
        return 0;
    if (kvb_log_parse((const char *)data, size, &f, &e) != KVB_OK)
        return 0;
    char text[4096];
    size_t needed = 0;
    (void)!kvb_log_explain(&f, text, sizeof text, &needed, &e);
    uint32_t known = 0;
    if (kvb_log_inputs(&f, &m, &q, &g, &s, &known, &e) == KVB_OK &&
        (known & KVB_LOG_KNOWN_MODEL)) {
        kvb_plan p;
        if (KVB_PLAN_INIT(&p) == KVB_OK)
            (void)!kvb_plan_compute(&m, &q, &g, &s, &p, &e);
    }
    return 0;
}
