/* test_batch.c -- kvb_batch_compute equals kvb_plan_compute row by row,
 * over every model preset, every quantization method and a sample of the
 * settings a sweep varies; the call's own errors; the layout report. */
#include "testing.h"

#include <stdlib.h>
#include <string.h>

/* ---- the grid ---- */

/* Deterministic sample of the grid (a 64-bit LCG, Knuth's MMIX). */
static uint64_t next_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

static const uint32_t TPS[] = {1, 2, 3, 4, 8};
static const uint32_t PPS[] = {1, 2, 3};
static const uint64_t LENS[] = {0, 1, 2048, 4096, 8192, 32768, 131072};
static const double UTILS[] = {0, 0.5, 0.8, 0.9, 0.95, 1.0, 1.01};
/* the last value of each is out of range: the row's status is KVB_ERANGE */
static const uint32_t CONCS[] = {0, 1, 4, 64, 2000, (1u << 24) + 1};
static const uint32_t SEQS[] = {0, 1, 16, 256, (1u << 24) + 1};
static const uint32_t COUNTS[] = {0, 1, 2, 4, 8, 4097};

#define NSERV 9
#define NGPU  4

typedef struct grid {
    kvb_model *models;
    uint32_t nm;
    kvb_quant quants[KVB_QUANT_LAST_ + 3];
    uint32_t nq;
    kvb_gpu gpus[NGPU];
    kvb_serving servings[NSERV];
    /* columns */
    uint64_t n;
    uint32_t *mi, *qi, *gi, *si, *tp, *pp, *conc, *seqs, *count;
    uint64_t *mml;
    double *util;
} grid;

static void grid_tables(grid *g)
{
    g->nm = (uint32_t)kvb_preset_model_count();
    g->models = calloc(g->nm, sizeof *g->models);
    assert_non_null(g->models);
    for (uint32_t i = 0; i < g->nm; i++) {
        assert_int_equal(KVB_MODEL_INIT(&g->models[i]), KVB_OK);
        assert_int_equal(kvb_preset_model_get(i, &g->models[i], NULL), KVB_OK);
    }
    /* every method, then FP8 KV cache, a 64-element group, FP16 compute */
    g->nq = 0;
    for (int32_t m = 0; m < KVB_QUANT_LAST_; m++)
        g->quants[g->nq++] = quant_of(m);
    g->quants[g->nq] = quant_of(KVB_QUANT_AUTO);
    g->quants[g->nq++].kv_cache_dtype = KVB_DTYPE_FP8;
    g->quants[g->nq] = quant_of(KVB_QUANT_AWQ_4);
    g->quants[g->nq++].group_size = 64;
    g->quants[g->nq] = quant_of(KVB_QUANT_FP8);
    g->quants[g->nq++].dtype = KVB_DTYPE_FP16;
    /* an A10G-like card, an H100-like one (name and size decide vLLM's
     * batch defaults), an 80 GB A100 (the name exception), and a card with
     * free memory known */
    g->gpus[0] = gpu_of(22712 * MIB, 1);
    g->gpus[0].compute_capability = 86;
    g->gpus[0].multiprocessor_count = 80;
    g->gpus[1] = gpu_of(81090 * MIB, 8);
    strcpy(g->gpus[1].name, "NVIDIA H100 80GB HBM3");
    g->gpus[1].compute_capability = 90;
    g->gpus[1].multiprocessor_count = 132;
    g->gpus[2] = gpu_of(81050 * MIB, 4);
    strcpy(g->gpus[2].name, "NVIDIA A100-SXM4-80GB");
    g->gpus[2].compute_capability = 80;
    g->gpus[3] = gpu_of(48 * GIB, 2);
    g->gpus[3].free_bytes = 40 * GIB;
    /* the serving variants a sweep keeps fixed */
    for (int i = 0; i < NSERV; i++)
        g->servings[i] = serving_default();
    g->servings[1].engine_version = 605;  /* V0 */
    g->servings[2].engine_version = 1100; /* V1 before 0.21 */
    g->servings[3].enforce_eager = 1;
    g->servings[4].disable_hybrid_kv_cache = 1;
    g->servings[4].block_size = 32;
    g->servings[5].kv_cache_memory_bytes = 3 * GIB;
    g->servings[6].weights_bytes = 9 * GIB;
    g->servings[6].activation_bytes = 512 * MIB;
    g->servings[7].enable_expert_parallel = 1;
    g->servings[7].engine_version = 900;
    g->servings[8].engine_version = 200; /* before the length check */
    g->servings[8].enable_chunked_prefill = 0;
}

#define PICK(a, s) (a)[next_rand(s) % KVB__ARRAY_LEN(a)]

/* `per` random settings for every (model, quant) pair. */
static void grid_rows(grid *g, uint32_t per, uint64_t seed)
{
    g->n = (uint64_t)g->nm * g->nq * per;
    g->mi = calloc(g->n, sizeof *g->mi);
    g->qi = calloc(g->n, sizeof *g->qi);
    g->gi = calloc(g->n, sizeof *g->gi);
    g->si = calloc(g->n, sizeof *g->si);
    g->tp = calloc(g->n, sizeof *g->tp);
    g->pp = calloc(g->n, sizeof *g->pp);
    g->conc = calloc(g->n, sizeof *g->conc);
    g->seqs = calloc(g->n, sizeof *g->seqs);
    g->count = calloc(g->n, sizeof *g->count);
    g->mml = calloc(g->n, sizeof *g->mml);
    g->util = calloc(g->n, sizeof *g->util);
    assert_true(g->mi && g->qi && g->gi && g->si && g->tp && g->pp && g->conc &&
                g->seqs && g->count && g->mml && g->util);
    uint64_t s = seed, i = 0;
    for (uint32_t m = 0; m < g->nm; m++) {
        for (uint32_t q = 0; q < g->nq; q++) {
            for (uint32_t k = 0; k < per; k++, i++) {
                g->mi[i] = m;
                g->qi[i] = q;
                g->gi[i] = (uint32_t)(next_rand(&s) % NGPU);
                g->si[i] = (uint32_t)(next_rand(&s) % NSERV);
                g->tp[i] = k == 0 ? 1 : PICK(TPS, &s);
                g->pp[i] = k == 0 ? 1 : PICK(PPS, &s);
                g->mml[i] = PICK(LENS, &s);
                g->util[i] = PICK(UTILS, &s);
                g->conc[i] = PICK(CONCS, &s);
                g->seqs[i] = PICK(SEQS, &s);
                g->count[i] = PICK(COUNTS, &s);
            }
        }
    }
}

static void grid_free(grid *g)
{
    free(g->models);
    free(g->mi);
    free(g->qi);
    free(g->gi);
    free(g->si);
    free(g->tp);
    free(g->pp);
    free(g->conc);
    free(g->seqs);
    free(g->count);
    free(g->mml);
    free(g->util);
}

static void batch_over(const grid *g, kvb_batch *b)
{
    assert_int_equal(KVB_BATCH_INIT(b), KVB_OK);
    b->models = g->models;
    b->num_models = g->nm;
    b->quants = g->quants;
    b->num_quants = g->nq;
    b->gpus = g->gpus;
    b->num_gpus = NGPU;
    b->servings = g->servings;
    b->num_servings = NSERV;
    b->count = g->n;
    b->model_index = g->mi;
    b->quant_index = g->qi;
    b->gpu_index = g->gi;
    b->serving_index = g->si;
    b->tensor_parallel_size = g->tp;
    b->pipeline_parallel_size = g->pp;
    b->max_model_len = g->mml;
    b->gpu_memory_utilization = g->util;
    b->concurrency = g->conc;
    b->max_num_seqs = g->seqs;
    b->gpu_count = g->count;
}

/* Row i by hand: the tables' entries with the row's non-zero overrides. */
static kvb_status plan_row(const grid *g, uint64_t i, kvb_plan *p)
{
    kvb_gpu gpu = g->gpus[g->gi[i]];
    kvb_serving s = g->servings[g->si[i]];
    if (g->count[i])
        gpu.count = g->count[i];
    if (g->tp[i])
        s.tensor_parallel_size = g->tp[i];
    if (g->pp[i])
        s.pipeline_parallel_size = g->pp[i];
    if (g->mml[i])
        s.max_model_len = g->mml[i];
    if (g->util[i] != 0.0)
        s.gpu_memory_utilization = g->util[i];
    if (g->conc[i])
        s.concurrency = g->conc[i];
    if (g->seqs[i])
        s.max_num_seqs = g->seqs[i];
    assert_int_equal(KVB_PLAN_INIT(p), KVB_OK);
    return kvb_plan_compute(&g->models[g->mi[i]], &g->quants[g->qi[i]], &gpu,
                            &s, p, NULL);
}

/* Every field of the plan but the message, through the layout report. */
static void assert_same_plan(const kvb_plan *want, const kvb_plan *got,
                             uint64_t row)
{
    size_t idx = 0, fields = 0;
    const char *name = NULL;
    for (; idx < kvb_layout_count(); idx++) {
        assert_int_equal(kvb_layout_struct_get(idx, &name, NULL, &fields, NULL),
                         KVB_OK);
        if (strcmp(name, "kvb_plan") == 0)
            break;
    }
    assert_true(idx < kvb_layout_count());
    for (size_t f = 0; f < fields; f++) {
        const char *fname = NULL;
        size_t off = 0, size = 0;
        assert_int_equal(
            kvb_layout_field_get(idx, f, &fname, NULL, &off, &size, NULL),
            KVB_OK);
        if (strcmp(fname, "message") == 0)
            continue;
        if (memcmp((const char *)want + off, (const char *)got + off, size))
            fail_msg("row %llu: kvb_plan.%s differs (%s)",
                     (unsigned long long)row, fname, want->message);
    }
}

/* The tentpole: ~9000 rows, every model x quant pair, every verdict. */
static void test_batch_equals_plan_compute(void **state)
{
    (void)state;
    grid g;
    grid_tables(&g);
    grid_rows(&g, 16, 42);
    int32_t *status = calloc(g.n, sizeof *status);
    uint32_t *fits = calloc(g.n, sizeof *fits);
    int32_t *verdict = calloc(g.n, sizeof *verdict);
    uint64_t *u64[6];
    for (int k = 0; k < 6; k++)
        assert_non_null(u64[k] = calloc(g.n, sizeof(uint64_t)));
    double *conc = calloc(g.n, sizeof *conc);
    kvb_plan *plans = calloc(g.n, sizeof *plans);
    assert_true(status && fits && verdict && conc && plans);

    kvb_batch b;
    batch_over(&g, &b);
    b.status = status;
    b.fits = fits;
    b.verdict = verdict;
    b.weights_bytes_per_gpu = u64[0];
    b.kv_budget_bytes_per_gpu = u64[1];
    b.max_kv_tokens = u64[2];
    b.max_model_len_fit = u64[3];
    b.num_blocks = u64[4];
    b.max_concurrency = conc;
    b.plans = plans;
    b.plan_size = sizeof *plans;
    uint64_t failed = 99;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_batch_compute(&b, &failed, &e), KVB_OK);
    assert_int_equal(e.status, KVB_OK);

    uint64_t seen_verdicts = 0, seen_status = 0, nfailed = 0;
    for (uint64_t i = 0; i < g.n; i++) {
        kvb_plan want;
        kvb_status st = plan_row(&g, i, &want);
        if (status[i] != (int32_t)st)
            fail_msg("row %llu: status %d, kvb_plan_compute %d",
                     (unsigned long long)i, status[i], st);
        seen_status |= 1ull << st;
        if (st) {
            nfailed++;
            assert_int_equal(fits[i], 0);
            assert_int_equal(verdict[i], -1);
            assert_int_equal(plans[i].verdict, -1);
            assert_int_equal(u64[2][i], 0);
            continue;
        }
        seen_verdicts |= 1ull << want.verdict;
        assert_same_plan(&want, &plans[i], i);
        assert_int_equal(plans[i].struct_size, sizeof(kvb_plan));
        assert_string_equal(plans[i].message, "");
        assert_int_equal(fits[i], want.fits);
        assert_int_equal(verdict[i], want.verdict);
        assert_int_equal(u64[0][i], want.weights_bytes_per_gpu);
        assert_int_equal(u64[1][i], want.kv_budget_bytes_per_gpu);
        assert_int_equal(u64[2][i], want.max_kv_tokens);
        assert_int_equal(u64[3][i], want.max_model_len_fit);
        assert_int_equal(u64[4][i], want.num_blocks);
        assert_memory_equal(&conc[i], &want.max_concurrency, sizeof(double));
    }
    assert_int_equal(failed, nfailed);
    /* the sample reaches every verdict, and rows that fail (lengths past a
     * model's maximum: ERANGE; AWQ on shapes it cannot store: EUNSUPPORTED) */
    for (int v = 0; v < KVB_VERDICT_LAST_; v++)
        if (!(seen_verdicts & (1ull << v)))
            fail_msg("no row reached verdict %s", kvb_verdict_name(v));
    assert_true(seen_status & (1ull << KVB_ERANGE));
    assert_true(seen_status & (1ull << KVB_EUNSUPPORTED));

    for (int k = 0; k < 6; k++)
        free(u64[k]);
    free(status);
    free(fits);
    free(verdict);
    free(conc);
    free(plans);
    grid_free(&g);
}

/* NULL columns: index 0 everywhere, no overrides, defaults for the NULL
 * tables; the row is kvb_plan_compute(models[0], NULL, gpus[0], NULL). */
static void test_batch_null_columns(void **state)
{
    (void)state;
    kvb_model m = preset_model("Llama-3.1-8B");
    kvb_gpu gpu = gpu_of(80 * GIB, 1);
    kvb_plan want, got[3];
    assert_int_equal(KVB_PLAN_INIT(&want), KVB_OK);
    assert_int_equal(kvb_plan_compute(&m, NULL, &gpu, NULL, &want, NULL),
                     KVB_OK);
    uint64_t tokens[3] = {0, 0, 0};
    kvb_batch b;
    assert_int_equal(KVB_BATCH_INIT(&b), KVB_OK);
    b.models = &m;
    b.num_models = 1;
    b.gpus = &gpu;
    b.num_gpus = 1;
    b.count = 3;
    b.max_kv_tokens = tokens;
    b.plans = got;
    b.plan_size = sizeof got[0];
    assert_int_equal(kvb_batch_compute(&b, NULL, NULL), KVB_OK);
    for (int i = 0; i < 3; i++) {
        assert_same_plan(&want, &got[i], (uint64_t)i);
        assert_int_equal(tokens[i], want.max_kv_tokens);
    }
    /* Llama-3.1-8B at 131072 on 80 GiB fits (test_plan_fits's model) */
    assert_int_equal(want.kv_bytes_per_token, 131072);
    assert_int_equal(want.max_model_len, 131072);
}

/* A tower the engine leaves out (llama.cpp without --mmproj, vLLM with
 * every modality limited to 0) is left out of a batch row too: the rows
 * equal kvb_plan_compute's plans, which are smaller than the loaded
 * tower's (test_llama_mmproj has the bytes). */
static void test_batch_tower_left_out(void **state)
{
    (void)state;
    kvb_model m = preset_model("Gemma-3-27B");
    kvb_gpu gpu = gpu_of(80 * GIB, 1);
    kvb_serving s[3] = {serving_default(), serving_default(),
                        serving_default()};
    s[0].engine = KVB_ENGINE_LLAMA_CPP;
    s[0].context_size = 8192;
    s[1] = s[0];
    s[1].mmproj = KVB_MMPROJ_LOAD;
    s[2].mm_disabled = KVB_MM_ALL;
    s[2].max_model_len = 8192;
    kvb_plan want[3], got[3];
    uint32_t si[3] = {0, 1, 2};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(KVB_PLAN_INIT(&want[i]), KVB_OK);
        assert_int_equal(
            kvb_plan_compute(&m, NULL, &gpu, &s[i], &want[i], NULL), KVB_OK);
    }
    kvb_batch b;
    assert_int_equal(KVB_BATCH_INIT(&b), KVB_OK);
    b.models = &m;
    b.num_models = 1;
    b.gpus = &gpu;
    b.num_gpus = 1;
    b.servings = s;
    b.num_servings = 3;
    b.serving_index = si;
    b.count = 3;
    b.plans = got;
    b.plan_size = sizeof got[0];
    assert_int_equal(kvb_batch_compute(&b, NULL, NULL), KVB_OK);
    for (int i = 0; i < 3; i++)
        assert_same_plan(&want[i], &got[i], (uint64_t)i);
    assert_true(got[0].weights_bytes_per_gpu < got[1].weights_bytes_per_gpu);
    assert_non_null(strstr(got[0].warning, "no --mmproj"));
    assert_non_null(strstr(got[2].warning, "text-only mode"));
}

/* The seed's V0 case of test_plan.c through the batch: 1 GiB of KV cache
 * is 512 blocks of 16 tokens of 131072 bytes = 8192 tokens. */
static void test_batch_known_values(void **state)
{
    (void)state;
    kvb_model m = preset_model("Llama-3.1-8B");
    kvb_gpu gpu = gpu_of(80 * GIB, 1);
    kvb_serving s = serving_default();
    s.engine_version = 703;
    s.kv_cache_memory_bytes = GIB;
    /* two rows: 32768 (too long for 8192 tokens) and 8192 (fits) */
    uint64_t lens[2] = {32768, 8192};
    uint64_t blocks[2], tokens[2], fit[2];
    int32_t verdict[2], status[2];
    kvb_batch b;
    assert_int_equal(KVB_BATCH_INIT(&b), KVB_OK);
    b.models = &m;
    b.num_models = 1;
    b.gpus = &gpu;
    b.num_gpus = 1;
    b.servings = &s;
    b.num_servings = 1;
    b.count = 2;
    b.max_model_len = lens;
    b.num_blocks = blocks;
    b.max_kv_tokens = tokens;
    b.max_model_len_fit = fit;
    b.verdict = verdict;
    b.status = status;
    assert_int_equal(kvb_batch_compute(&b, NULL, NULL), KVB_OK);
    assert_int_equal(status[0], KVB_OK);
    assert_int_equal(blocks[0], 512);  /* 1 GiB / (32 x 64 KiB) */
    assert_int_equal(tokens[0], 8192); /* 512 x 16 */
    assert_int_equal(fit[0], 8192);
    assert_int_equal(verdict[0], KVB_VERDICT_MAX_LEN_EXCEEDS_KV);
    assert_int_equal(verdict[1], KVB_VERDICT_FITS);
}

/* The weights as loaded depend on the GPU: MXFP4 experts are padded for
 * the kernel each compute capability runs (Marlin below 9.0, Triton on
 * 9.x, FlashInfer on 10.x), so rows that differ only in the GPU differ. */
static void test_batch_weights_follow_the_gpu(void **state)
{
    (void)state;
    kvb_model m = preset_model("gpt-oss-20b");
    kvb_quant q = quant_of(KVB_QUANT_MXFP4);
    static const uint32_t cc[4] = {0, 86, 90, 100};
    kvb_gpu gpus[4];
    for (int i = 0; i < 4; i++) {
        gpus[i] = gpu_of(80 * GIB, 1);
        gpus[i].compute_capability = cc[i];
    }
    /* each GPU twice, interleaved, so a cache keyed without the GPU
     * would hand one GPU's weights to the next */
    uint32_t gi[8] = {0, 1, 2, 3, 0, 1, 2, 3};
    kvb_plan plans[8];
    kvb_batch b;
    assert_int_equal(KVB_BATCH_INIT(&b), KVB_OK);
    b.models = &m;
    b.num_models = 1;
    b.quants = &q;
    b.num_quants = 1;
    b.gpus = gpus;
    b.num_gpus = 4;
    b.count = 8;
    b.gpu_index = gi;
    b.plans = plans;
    b.plan_size = sizeof plans[0];
    assert_int_equal(kvb_batch_compute(&b, NULL, NULL), KVB_OK);
    for (int i = 0; i < 8; i++) {
        kvb_plan want;
        assert_int_equal(KVB_PLAN_INIT(&want), KVB_OK);
        assert_int_equal(
            kvb_plan_compute(&m, &q, &gpus[gi[i]], NULL, &want, NULL), KVB_OK);
        assert_same_plan(&want, &plans[i], (uint64_t)i);
    }
    /* Marlin pads the 2880-wide experts to 2944 x 3072: more bytes than
     * no padding (compute capability unknown) */
    assert_true(plans[1].weights_bytes_per_gpu >
                plans[0].weights_bytes_per_gpu);
}

static void test_batch_row_errors(void **state)
{
    (void)state;
    kvb_model m = preset_model("Llama-3.1-8B");
    kvb_gpu gpu = gpu_of(80 * GIB, 1);
    /* 0 keeps the model maximum; 131073 is past it (ERANGE); 1.5 is not a
     * utilization (ERANGE); 2000 is not a TP size (1..1024) */
    uint64_t lens[4] = {0, 131073, 0, 0};
    double util[4] = {0, 0, 1.5, 0};
    uint32_t tp[4] = {0, 0, 0, 2000};
    int32_t status[4];
    kvb_batch b;
    assert_int_equal(KVB_BATCH_INIT(&b), KVB_OK);
    b.models = &m;
    b.num_models = 1;
    b.gpus = &gpu;
    b.num_gpus = 1;
    b.count = 4;
    b.max_model_len = lens;
    b.gpu_memory_utilization = util;
    b.tensor_parallel_size = tp;
    b.status = status;
    uint64_t failed = 0;
    assert_int_equal(kvb_batch_compute(&b, &failed, NULL), KVB_OK);
    assert_int_equal(failed, 3);
    assert_int_equal(status[0], KVB_OK);
    assert_int_equal(status[1], KVB_ERANGE);
    assert_int_equal(status[2], KVB_ERANGE);
    assert_int_equal(status[3], KVB_ERANGE);

    /* without a status column the first failing row fails the call, with
     * kvb_plan_compute's own detail */
    b.status = NULL;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_batch_compute(&b, &failed, &e), KVB_ERANGE);
    assert_int_equal(failed, 1);
    assert_string_equal(e.field, "serving.max_model_len");
    assert_string_equal(e.source, "batch row 1");
    assert_non_null(strstr(e.message, "131073"));

    /* an invalid model is a row status too (kvb_model_validate's) */
    kvb_model bad = m;
    bad.num_key_value_heads = 5; /* does not divide 32 heads */
    b.models = &bad;
    b.count = 1;
    b.status = status;
    assert_int_equal(kvb_batch_compute(&b, &failed, NULL), KVB_OK);
    assert_int_equal(status[0], KVB_EINVAL);
}

static void test_batch_call_errors(void **state)
{
    (void)state;
    kvb_model m = preset_model("Llama-3.1-8B");
    kvb_gpu gpu = gpu_of(80 * GIB, 1);
    kvb_error e = KVB_ERROR_INIT;
    kvb_batch b;
    assert_int_equal(kvb_batch_compute(NULL, NULL, &e), KVB_EINVAL);
    assert_int_equal(kvb_batch_init(&b, sizeof b - 8), KVB_EABI);
    assert_int_equal(kvb_batch_init(NULL, sizeof b), KVB_EINVAL);
    assert_int_equal(KVB_BATCH_INIT(&b), KVB_OK);
    b.count = 1;
    assert_int_equal(kvb_batch_compute(&b, NULL, &e), KVB_EINVAL);
    assert_string_equal(e.field, "batch.models");
    b.models = &m;
    b.num_models = 1;
    assert_int_equal(kvb_batch_compute(&b, NULL, &e), KVB_EINVAL);
    assert_string_equal(e.field, "batch.gpus");
    b.gpus = &gpu;
    b.num_gpus = 1;
    b.num_quants = 2; /* quants is NULL */
    assert_int_equal(kvb_batch_compute(&b, NULL, &e), KVB_EINVAL);
    assert_string_equal(e.field, "batch.num_quants");
    b.num_quants = 0;
    b.num_servings = 1;
    assert_int_equal(kvb_batch_compute(&b, NULL, &e), KVB_EINVAL);
    assert_string_equal(e.field, "batch.num_servings");
    b.num_servings = 0;
    /* an index past its table */
    uint32_t idx[2] = {0, 1};
    b.count = 2;
    b.gpu_index = idx;
    assert_int_equal(kvb_batch_compute(&b, NULL, &e), KVB_ERANGE);
    assert_string_equal(e.field, "batch.gpu_index");
    assert_non_null(strstr(e.message, "batch.gpu_index[1] (1)"));
    b.gpu_index = NULL;
    /* plans need a plan_size this library knows */
    kvb_plan plans[2];
    b.plans = plans;
    b.plan_size = sizeof plans[0] - 8;
    assert_int_equal(kvb_batch_compute(&b, NULL, &e), KVB_EABI);
    assert_string_equal(e.field, "batch.plan_size");
    b.plans = NULL;
    /* a table entry with a bad struct_size fails the call */
    kvb_gpu bad = gpu;
    bad.struct_size = 8;
    b.gpus = &bad;
    assert_int_equal(kvb_batch_compute(&b, NULL, &e), KVB_EABI);
    assert_string_equal(e.field, "gpu");
    b.gpus = &gpu;
    /* zero rows is nothing to do */
    b.count = 0;
    uint64_t failed = 7;
    assert_int_equal(kvb_batch_compute(&b, &failed, &e), KVB_OK);
    assert_int_equal(failed, 0);
    /* and the batch struct itself is checked */
    b.struct_size = 16;
    assert_int_equal(kvb_batch_compute(&b, NULL, &e), KVB_EABI);
}

/* The layout report agrees with this compilation of the header. */
static void test_layout_report(void **state)
{
    (void)state;
    const char *name = NULL, *type = NULL;
    size_t size = 0, fields = 0, off = 0, fsize = 0;
    size_t n = kvb_layout_count();
    assert_int_equal(n, 21); /* every public struct */
    assert_int_equal(kvb_layout_struct_get(0, &name, &size, &fields, NULL),
                     KVB_OK);
    assert_string_equal(name, "kvb_error");
    assert_int_equal(size, sizeof(kvb_error));
    assert_int_equal(fields, 9);
    assert_int_equal(
        kvb_layout_field_get(0, 3, &name, &type, &off, &fsize, NULL), KVB_OK);
    assert_string_equal(name, "message");
    assert_string_equal(type, "char");
    assert_int_equal(off, offsetof(kvb_error, message));
    assert_int_equal(fsize, 256);
    /* every struct: fields in order, inside the struct, not overlapping,
     * the last one ending where the struct's padding begins */
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(kvb_layout_struct_get(i, &name, &size, &fields, NULL),
                         KVB_OK);
        size_t end = 0;
        for (size_t f = 0; f < fields; f++) {
            assert_int_equal(
                kvb_layout_field_get(i, f, NULL, &type, &off, &fsize, NULL),
                KVB_OK);
            assert_true(off >= end);
            assert_true(off + fsize <= size);
            end = off + fsize;
            /* every struct but the one embedded in kvb_validation begins
             * with struct_size */
            if (f == 0 && strcmp(name, "kvb_validation_stage") != 0)
                assert_string_equal(type, "size_t");
        }
        assert_true(size - end < 8);
    }
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_layout_struct_get(n, &name, NULL, NULL, &e),
                     KVB_ERANGE);
    assert_string_equal(e.field, "index");
    assert_int_equal(kvb_layout_field_get(0, 9, &name, NULL, NULL, NULL, &e),
                     KVB_ERANGE);
    assert_string_equal(e.field, "field");
    /* spot checks against offsetof */
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(kvb_layout_struct_get(i, &name, &size, &fields, NULL),
                         KVB_OK);
        if (strcmp(name, "kvb_plan") != 0)
            continue;
        assert_int_equal(size, sizeof(kvb_plan));
        for (size_t f = 0; f < fields; f++) {
            assert_int_equal(
                kvb_layout_field_get(i, f, &name, &type, &off, NULL, NULL),
                KVB_OK);
            if (strcmp(name, "max_concurrency") == 0) {
                assert_int_equal(off, offsetof(kvb_plan, max_concurrency));
                assert_string_equal(type, "double");
            }
        }
    }
}

KVB_TESTS(cmocka_unit_test(test_batch_equals_plan_compute),
          cmocka_unit_test(test_batch_null_columns),
          cmocka_unit_test(test_batch_tower_left_out),
          cmocka_unit_test(test_batch_known_values),
          cmocka_unit_test(test_batch_weights_follow_the_gpu),
          cmocka_unit_test(test_batch_row_errors),
          cmocka_unit_test(test_batch_call_errors),
          cmocka_unit_test(test_layout_report));
