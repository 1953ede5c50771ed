/* test_fastpaths.c -- the performance paths (issue 8) against the slow
 * code they replace: the closed-form max_model_len against the binary
 * search, the counted layer kinds against the walk, the batch against
 * kvb_plan_compute on the releases between the two length checks, and the
 * GGUF file reader (read as it parses) against the buffer reader. */
#define _POSIX_C_SOURCE 200809L

#include "testing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t next_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* kvb__kv_count_kinds equals the walk of kvb__layer_attn. */
static void test_fastpaths_count_kinds(void **state)
{
    (void)state;
    uint64_t s = 7;
    for (int n = 0; n < 20000; n++) {
        kvb_model m = tiny_llama();
        m.num_hidden_layers = 1 + (uint32_t)(next_rand(&s) % 130);
        m.sliding_window = next_rand(&s) % 3 ? 0 : 4096;
        m.sliding_window_pattern = (uint32_t)(next_rand(&s) % 8);
        m.attention_chunk_size = next_rand(&s) % 3 ? 0 : 8192;
        m.attention_chunk_pattern = (uint32_t)(next_rand(&s) % 8);
        uint32_t first = (uint32_t)(next_rand(&s) % m.num_hidden_layers);
        uint32_t last = first + (uint32_t)(next_rand(&s) %
                                           (m.num_hidden_layers - first + 1));
        for (int hybrid = 0; hybrid < 2; hybrid++) {
            uint32_t want[3] = {0, 0, 0}, got[3];
            for (uint32_t i = first; i < last; i++)
                want[hybrid ? kvb__layer_attn(&m, i) : KVB__ATTN_FULL]++;
            kvb__kv_count_kinds(&m, first, last, hybrid != 0, got);
            assert_memory_equal(want, got, sizeof want);
        }
    }
}

/* kvb__vllm_fit_len equals the binary search over random stages,
 * budgets and settings (every release line, hybrid and not). */
static void test_fastpaths_fit_len(void **state)
{
    (void)state;
    static const uint32_t versions[] = {0, 1100, 605};
    static const uint64_t maxlens[] = {1, 2, 17, 4096, 32768, 131072, 10485760};
    uint64_t s = 11;
    for (int n = 0; n < 40000; n++) {
        kvb_model m = tiny_llama();
        kvb_quant q = quant_of(KVB_QUANT_AUTO);
        kvb_gpu g = gpu_of(80 * GIB, 1);
        m.num_hidden_layers = 1 + (uint32_t)(next_rand(&s) % 64);
        m.sliding_window = next_rand(&s) % 2 ? 0 : 1 + next_rand(&s) % 9000;
        m.sliding_window_pattern = (uint32_t)(next_rand(&s) % 7);
        m.attention_chunk_size =
            next_rand(&s) % 3 ? 0 : 1 + next_rand(&s) % 9000;
        m.attention_chunk_pattern = (uint32_t)(next_rand(&s) % 5);
        m.max_position_embeddings =
            maxlens[next_rand(&s) % KVB__ARRAY_LEN(maxlens)];
        kvb__engine_in in;
        memset(&in, 0, sizeof in);
        in.model = &m;
        in.quant = &q;
        in.gpu = &g;
        in.s = serving_default();
        in.s.block_size = (uint32_t)(1 + next_rand(&s) % 64);
        in.s.max_num_batched_tokens = 1 + next_rand(&s) % 16384;
        in.s.max_model_len = m.max_position_embeddings;
        in.version = versions[next_rand(&s) % 3];
        in.accounting = kvb__vllm_accounting(in.version);
        uint32_t first = (uint32_t)(next_rand(&s) % m.num_hidden_layers);
        uint32_t last =
            first + 1 +
            (uint32_t)(next_rand(&s) % (m.num_hidden_layers - first));
        kvb__kv_stage ks;
        kvb__kv_stage_make(&m, &q, 1, first, last, in.s.block_size,
                           next_rand(&s) % 4 != 0, &ks);
        uint64_t full =
            kvb__vllm_needed_bytes(&in, &ks, m.max_position_embeddings);
        /* budgets around the interesting points: nothing, one block,
         * inside the window, just under and over the whole length */
        uint64_t avail[6] = {0,
                             ks.page_bytes,
                             next_rand(&s) % (full + 1),
                             full ? full - 1 : 0,
                             full,
                             full + 1 + next_rand(&s)};
        for (int a = 0; a < 6; a++) {
            uint64_t blocks = kvb__vllm_num_blocks(&in, &ks, avail[a]);
            uint64_t want =
                kvb__vllm_fit_len_search(&in, &ks, avail[a], blocks);
            uint64_t got = kvb__vllm_fit_len(&in, &ks, avail[a], blocks);
            if (want != got)
                fail_msg("case %d budget %llu: search %llu, closed form %llu",
                         n, (unsigned long long)avail[a],
                         (unsigned long long)want, (unsigned long long)got);
        }
    }
}

/* The batch and kvb_plan_compute agree on releases 0.2.7-0.2.x (the length
 * check's start), where batch.c's own copy of the verdict once said 0.3. */
static void test_fastpaths_batch_len_check_releases(void **state)
{
    (void)state;
    kvb_model m = preset_model("Llama-3.1-8B");
    kvb_gpu g = gpu_of(22 * GIB, 1);
    static const uint32_t versions[] = {206, 207, 250, 299, 300};
    for (size_t v = 0; v < KVB__ARRAY_LEN(versions); v++) {
        kvb_serving s = serving_default();
        s.engine_version = versions[v];
        s.max_model_len = 131072;
        kvb_plan want, got;
        assert_int_equal(KVB_PLAN_INIT(&want), KVB_OK);
        assert_int_equal(kvb_plan_compute(&m, NULL, &g, &s, &want, NULL),
                         KVB_OK);
        kvb_batch b;
        assert_int_equal(KVB_BATCH_INIT(&b), KVB_OK);
        b.models = &m;
        b.num_models = 1;
        b.gpus = &g;
        b.num_gpus = 1;
        b.servings = &s;
        b.num_servings = 1;
        b.count = 1;
        b.plans = &got;
        b.plan_size = sizeof got;
        assert_int_equal(kvb_batch_compute(&b, NULL, NULL), KVB_OK);
        assert_int_equal(got.verdict, want.verdict);
        assert_int_equal(got.max_model_len_fit, want.max_model_len_fit);
    }
}

/* kvb_model_read on a GGUF file (read as it parses, in slices) gives what
 * kvb_gguf_parse gives on the whole file in memory, for headers around
 * the slice sizes. */
static void test_fastpaths_gguf_file_reader(void **state)
{
    (void)state;
    static const uint32_t vocab[] = {10, 5000, 30000, 200000};
    for (size_t k = 0; k < KVB__ARRAY_LEN(vocab); k++) {
        char path[] = "/tmp/kvb_fastpaths_XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        FILE *f = fdopen(fd, "wb");
        assert_non_null(f);
        /* a minimal llama header with a vocabulary of vocab[k] strings */
        const char *keys[] = {"llama.block_count", "llama.embedding_length",
                              "llama.attention.head_count",
                              "llama.context_length",
                              "llama.feed_forward_length"};
        const uint32_t vals[] = {2, 256, 4, 4096, 512};
        uint64_t n_kv = 2 + KVB__ARRAY_LEN(keys);
        fwrite("GGUF", 1, 4, f);
        uint32_t ver = 3, t32;
        uint64_t t64 = 0;
        fwrite(&ver, 4, 1, f);
        fwrite(&t64, 8, 1, f); /* no tensors */
        fwrite(&n_kv, 8, 1, f);
#define STR(s)                                                                 \
    do {                                                                       \
        uint64_t len_ = strlen(s);                                             \
        fwrite(&len_, 8, 1, f);                                                \
        fwrite(s, 1, len_, f);                                                 \
    } while (0)
        STR("general.architecture");
        t32 = 8;
        fwrite(&t32, 4, 1, f);
        STR("llama");
        for (size_t i = 0; i < KVB__ARRAY_LEN(keys); i++) {
            STR(keys[i]);
            t32 = 4;
            fwrite(&t32, 4, 1, f);
            fwrite(&vals[i], 4, 1, f);
        }
        STR("tokenizer.ggml.tokens");
        t32 = 9;
        fwrite(&t32, 4, 1, f);
        t32 = 8;
        fwrite(&t32, 4, 1, f);
        t64 = vocab[k];
        fwrite(&t64, 8, 1, f);
        for (uint32_t i = 0; i < vocab[k]; i++) {
            char tok[16];
            snprintf(tok, sizeof tok, "t%u", i * 7919u);
            STR(tok);
        }
#undef STR
        long len = ftell(f);
        assert_int_equal(fclose(f), 0);
        f = fopen(path, "rb");
        assert_non_null(f);
        char *all = malloc((size_t)len);
        assert_non_null(all);
        assert_int_equal(fread(all, 1, (size_t)len, f), (size_t)len);
        fclose(f);
        kvb_model m1, m2;
        kvb_read_info i1, i2;
        assert_int_equal(KVB_MODEL_INIT(&m1), KVB_OK);
        assert_int_equal(KVB_MODEL_INIT(&m2), KVB_OK);
        assert_int_equal(KVB_READ_INFO_INIT(&i1), KVB_OK);
        assert_int_equal(KVB_READ_INFO_INIT(&i2), KVB_OK);
        assert_int_equal(kvb_gguf_parse(all, (size_t)len, &m1, NULL, &i1, NULL),
                         KVB_OK);
        assert_int_equal(kvb_model_read(path, &m2, NULL, &i2, NULL), KVB_OK);
        assert_int_equal(m1.vocab_size, vocab[k]);
        assert_int_equal(m2.vocab_size, vocab[k]);
        assert_int_equal(i1.header_bytes, (uint64_t)len);
        assert_int_equal(i2.header_bytes, (uint64_t)len);
        /* cut inside the vocabulary: the same error both ways */
        size_t cut = (size_t)len - 3;
        kvb_error e1 = KVB_ERROR_INIT, e2 = KVB_ERROR_INIT;
        assert_int_equal(kvb_gguf_parse(all, cut, &m1, NULL, &i1, &e1),
                         KVB_EPARSE);
        assert_int_equal(truncate(path, (off_t)cut), 0);
        assert_int_equal(kvb_model_read(path, &m2, NULL, &i2, &e2), KVB_EPARSE);
        assert_string_equal(e1.message, e2.message);
        free(all);
        remove(path);
    }
}

KVB_TESTS(cmocka_unit_test(test_fastpaths_count_kinds),
          cmocka_unit_test(test_fastpaths_fit_len),
          cmocka_unit_test(test_fastpaths_batch_len_check_releases),
          cmocka_unit_test(test_fastpaths_gguf_file_reader));
