/*
 * check.c -- libkvbudget's side of the llama.cpp oracle: read a GGUF,
 * plan it as llama.cpp would run it, and print the lines llama.cpp prints
 * for the same context (llama-kv-cache.cpp's "llama_kv_cache: size = ..."
 * per cache, llama-context.cpp's "compute buffer size = ..."), so that
 * run_oracle.sh can compare them with llama.cpp's own, byte for byte.
 *
 * usage: check FILE.gguf CTX SEQS UBATCH FA CTK CTV SWA_FULL
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int32_t type_of(const char *s)
{
    int32_t t = KVB_STORAGE_F16;
    if (!kvb__ggml_type_parse(s, &t)) {
        fprintf(stderr, "check: %s is not a cache type\n", s);
        exit(2);
    }
    return t;
}

/* One cache (the full-attention layers, or the sliding ones). */
static void cache_line(const kvb_model *m, const kvb__ggml *g, bool swa)
{
    uint64_t k = 0, v = 0, cells = 0;
    uint32_t layers = 0;
    for (uint32_t il = 0; il < g->n_layer; il++) {
        uint64_t lk, lv;
        if (kvb__ggml_layer_swa(m, il) != swa)
            continue;
        kvb__ggml_layer_kv(m, g, il, &lk, &lv);
        k += lk;
        v += lv;
        cells = kvb__ggml_layer_cells(m, g, il) / g->n_stream;
        layers++;
    }
    if (!layers)
        return;
    double mib = 1024.0 * 1024.0;
    printf("llama_kv_cache: size = %7.2f MiB (%6u cells, %3u layers, %2u/%u "
           "seqs), K (%s): %7.2f MiB, V (%s): %7.2f MiB\n",
           (double)(k + v) / mib, (unsigned)cells, layers, g->n_stream,
           g->n_seq, kvb__ggml_type_name(g->type_k), (double)k / mib,
           kvb__ggml_type_name(g->type_v), (double)v / mib);
}

int main(int argc, char **argv)
{
    if (argc != 9) {
        fprintf(stderr, "usage: check FILE CTX SEQS UBATCH FA CTK CTV "
                        "SWA_FULL\n");
        return 2;
    }
    kvb_model m;
    kvb_quant q;
    kvb_error e;
    if (kvb_model_init(&m, sizeof m) || kvb_quant_init(&q, sizeof q) ||
        kvb_error_init(&e, sizeof e))
        return 2;
    if (kvb_model_read(argv[1], &m, &q, NULL, &e)) {
        fprintf(stderr, "check: %s: %s\n", argv[1], e.message);
        return 1;
    }
    kvb_serving s;
    if (kvb_serving_init(&s, sizeof s))
        return 2;
    s.engine = KVB_ENGINE_LLAMA_CPP;
    s.context_size = strtoull(argv[2], NULL, 10);
    s.max_num_seqs = (uint32_t)strtoul(argv[3], NULL, 10);
    s.ubatch_size = (uint32_t)strtoul(argv[4], NULL, 10);
    s.max_num_batched_tokens = s.ubatch_size; /* node-llama-cpp: b = ub */
    s.flash_attn = !strcmp(argv[5], "on") ? 1 : 0;
    s.cache_type_k = type_of(argv[6]);
    s.cache_type_v = type_of(argv[7]);
    s.swa_full = (uint32_t)atoi(argv[8]);
    /* the oracle's build reserves logits for every token (PR #12545,
     * before llama-server's PR #23861) */
    kvb__ggml_opts o = {256, true, 1, false};
    kvb__ggml g;
    kvb__ggml_resolve(&m, &s, &o, &g);
    cache_line(&m, &g, false);
    cache_line(&m, &g, true);
    printf("output buffer size = %8.2f MiB\n",
           (double)kvb__ggml_output_buffer(&m, &g) / (1024.0 * 1024.0));
    printf("compute buffer size = %8.2f MiB\n",
           (double)kvb__ggml_compute(&m, &g, true) / (1024.0 * 1024.0));
    return 0;
}
