/*
 * test_validate.c -- validation's logic on a fake device: the order of
 * the allocations, the observed deltas per stage, freeing on every path
 * (device out of memory, a CUDA error at any call), and the tightness
 * check.  The fake is a device of N bytes, not a mock of the result: it
 * hands out memory the way PyTorch's caching allocator rounds it over the
 * driver's 2 MiB pages (c10/cuda/CUDACachingAllocator.cpp: sizes rounded
 * to kMinBlockSize 512 B; allocations up to kSmallSize 1 MiB packed into
 * kSmallBuffer 2 MiB pages; larger ones rounded up to kRoundLarge 2 MiB),
 * and reports free memory as cuMemGetInfo does.
 */
#include "testing.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PAGE      (2 * MIB)
#define SMALL_MAX MIB
#define FAKE_MAX  4096

typedef struct fake {
    uint64_t total;         /* cuMemGetInfo total */
    uint64_t used;          /* not free: the base use plus what we hold */
    uint64_t info_hides;    /* free is reported this much lower */
    uint64_t big_threshold; /* allocations of at least this size ... */
    uint64_t big_overhead;  /* ... cost this much more (0: nothing) */
    /* small allocations share 2 MiB pages */
    uint64_t page_fill[FAKE_MAX];
    uint32_t page_live[FAKE_MAX];
    int n_pages, open_page;
    struct {
        uint64_t handle, footprint;
        int page;
    } live[FAKE_MAX];
    size_t n_live;
    uint64_t next_handle;
    uint64_t log[FAKE_MAX]; /* sizes asked for, in order */
    size_t n_log;
    long alloc_calls, info_calls, release_calls;
    long fail_alloc_at, fail_info_at, fail_release_at; /* -1: never */
    long steal_at;        /* after this alloc call another process ... */
    uint64_t steal_bytes; /* ... takes this much */
} fake;

static void fake_init(fake *f, uint64_t total, uint64_t base_used)
{
    memset(f, 0, sizeof *f);
    f->total = total;
    f->used = base_used;
    f->open_page = -1;
    f->next_handle = 0x7f0000000000ull;
    f->fail_alloc_at = f->fail_info_at = f->fail_release_at = -1;
    f->steal_at = -1;
}

static kvb_status fake_info(void *ctx, uint64_t *free_bytes, uint64_t *total,
                            kvb_error *err)
{
    fake *f = ctx;
    if (f->info_calls++ == f->fail_info_at)
        return kvb__fail(err, KVB_ECUDA, "probe",
                         "cuMemGetInfo failed with CUDA_ERROR_UNKNOWN (999)");
    uint64_t fr = f->total - f->used;
    *free_bytes = fr > f->info_hides ? fr - f->info_hides : 0;
    *total = f->total;
    return KVB_OK;
}

static kvb_status fake_alloc(void *ctx, uint64_t bytes, uint64_t *handle,
                             kvb_error *err)
{
    fake *f = ctx;
    long call = f->alloc_calls++;
    assert_true(f->n_log < FAKE_MAX && f->n_live < FAKE_MAX);
    f->log[f->n_log++] = bytes;
    if (call == f->fail_alloc_at)
        return kvb__fail(err, KVB_ECUDA, "probe",
                         "cuMemAlloc failed with CUDA_ERROR_ILLEGAL_ADDRESS "
                         "(700)");
    uint64_t cost, extra = 0;
    int page = -1;
    if (bytes <= SMALL_MAX) {
        uint64_t r = (bytes + 511) / 512 * 512;
        if (f->open_page < 0 || f->page_fill[f->open_page] + r > PAGE) {
            assert_true(f->n_pages < FAKE_MAX);
            extra = PAGE; /* a new page */
            page = f->n_pages;
        } else {
            page = f->open_page;
        }
        cost = r;
    } else {
        cost = (bytes + PAGE - 1) / PAGE * PAGE;
        if (f->big_threshold && bytes >= f->big_threshold)
            cost += f->big_overhead;
        extra = cost;
    }
    if (f->used + extra > f->total)
        return KVB_ENOMEM;
    f->used += extra;
    if (bytes <= SMALL_MAX) {
        if (page == f->n_pages) {
            f->n_pages++;
            f->open_page = page;
        }
        f->page_fill[page] += cost;
        f->page_live[page]++;
        cost = 0; /* the page carries the cost */
    }
    f->live[f->n_live].handle = f->next_handle;
    f->live[f->n_live].footprint = cost;
    f->live[f->n_live].page = page;
    f->n_live++;
    *handle = f->next_handle;
    f->next_handle += 0x1000;
    if (call == f->steal_at)
        f->used += f->steal_bytes;
    return KVB_OK;
}

static kvb_status fake_release(void *ctx, uint64_t handle, kvb_error *err)
{
    fake *f = ctx;
    if (f->release_calls++ == f->fail_release_at)
        return kvb__fail(err, KVB_ECUDA, "probe",
                         "cuMemFree failed with CUDA_ERROR_UNKNOWN (999)");
    for (size_t i = 0; i < f->n_live; i++) {
        if (f->live[i].handle != handle)
            continue;
        int page = f->live[i].page;
        f->used -= f->live[i].footprint;
        if (page >= 0 && --f->page_live[page] == 0) {
            f->used -= PAGE;
            f->page_fill[page] = 0;
            if (f->open_page == page)
                f->open_page = -1;
        }
        f->live[i] = f->live[--f->n_live];
        return KVB_OK;
    }
    fail_msg("release of a handle the fake never gave: %llx",
             (unsigned long long)handle);
    return KVB_EINVAL;
}

static kvb__devmem devmem_of(fake *f)
{
    kvb__devmem d = {f, fake_info, fake_alloc, fake_release};
    return d;
}

static kvb_gpu fake_gpu(void)
{
    kvb_gpu g = gpu_of(0, 1);
    snprintf(g.name, sizeof g.name, "Fake H100");
    g.compute_capability = 90;
    g.multiprocessor_count = 132;
    return g;
}

/*
 * A model whose large tensors are whole 2 MiB pages: hidden 2048, 16
 * heads of 128, 8 KV heads, MLP 8192, vocabulary 32000, 4 layers.
 *   q, o: 2048 x 2048 x 2 B = 8 MiB;  k, v: 1024 x 2048 x 2 B = 4 MiB;
 *   gate, up, down: 8192 x 2048 x 2 B = 32 MiB;
 *   embed, lm_head: 32000 x 2048 x 2 B = 125 MiB (62.5 pages);
 *   norms: 2048 x 2 B = 4 KiB (9 of them: 2 per layer and the final one).
 */
static kvb_model mid_llama(void)
{
    kvb_model m;
    assert_int_equal(KVB_MODEL_INIT(&m), KVB_OK);
    m.arch = KVB_ARCH_LLAMA;
    m.num_hidden_layers = 4;
    m.hidden_size = 2048;
    m.num_attention_heads = 16;
    m.num_key_value_heads = 8;
    m.intermediate_size = 8192;
    m.vocab_size = 32000;
    m.max_position_embeddings = 8192;
    return m;
}

#define MID_WEIGHTS                                                            \
    (4 * (2 * 8 * MIB + 2 * 4 * MIB + 3 * 32 * MIB + 2 * 4096) +               \
     2 * 131072000ull + 4096)

static kvb_plan plan_for(const kvb_model *m, const kvb_serving *s,
                         uint64_t total, uint64_t free_bytes)
{
    kvb_gpu g = fake_gpu();
    kvb_plan p;
    kvb_error e = KVB_ERROR_INIT;
    g.total_bytes = total;
    g.free_bytes = free_bytes;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    assert_int_equal(kvb_plan_compute(m, NULL, &g, s, &p, &e), KVB_OK);
    return p;
}

static kvb_status run(fake *f, const kvb_model *m, const kvb_serving *s,
                      kvb_validation *v, kvb_error *e)
{
    kvb__devmem d = devmem_of(f);
    kvb_gpu g = fake_gpu();
    assert_int_equal(KVB_VALIDATION_INIT(v), KVB_OK);
    return kvb__validate_run(&d, &g, m, NULL, s, v, e);
}

static void test_validate_stages_on_fake_device(void **state)
{
    (void)state;
    fake *f = test_malloc(sizeof *f);
    fake_init(f, 24 * GIB, 512 * MIB); /* a CUDA context's worth in use */
    kvb_model m = mid_llama();
    kvb_serving s = serving_default();
    kvb_validation v;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(run(f, &m, &s, &v, &e), KVB_OK);
    kvb_plan p = plan_for(&m, &s, 24 * GIB, 24 * GIB - 512 * MIB);

    assert_int_equal(v.total_bytes, 24 * GIB);
    assert_int_equal(v.free_start_bytes, 24 * GIB - 512 * MIB);
    assert_int_equal(v.free_end_bytes, v.free_start_bytes);
    assert_int_equal(f->n_live, 0); /* everything freed */
    assert_int_equal(v.stage_count, KVB_STAGE_LAST_);
    assert_int_equal(v.failed_stage, -1);
    assert_string_equal(v.device_name, "Fake H100");

    /* weights: one allocation per tensor, in inventory order */
    size_t n = 0;
    assert_int_equal(kvb_model_tensor_count(&m, &n, &e), KVB_OK);
    assert_int_equal(n, 2 + 4 * 9 + 1); /* embed, 9 per layer, norm, head */
    assert_int_equal(v.weights_tensors, n);
    for (size_t i = 0; i < n; i++) {
        kvb_tensor t;
        memset(&t, 0, sizeof t);
        t.struct_size = sizeof t;
        assert_int_equal(kvb_model_tensor_get(&m, NULL, i, &t, &e), KVB_OK);
        assert_int_equal(f->log[i], t.bytes);
    }
    const kvb_validation_stage *w = &v.stages[KVB_STAGE_WEIGHTS];
    /* predicted: the plan's weights as vLLM holds them (the inventory,
     * plus what the engine model adds at load time); asked for: exactly
     * the inventory's bytes */
    assert_int_equal(w->predicted_bytes, p.weights_bytes_per_gpu);
    assert_true(w->predicted_bytes >= MID_WEIGHTS);
    assert_int_equal(w->requested_bytes, MID_WEIGHTS);
    assert_int_equal(w->allocations, n);
    assert_int_equal(w->allocated, 1);
    /* observed: embed and lm_head take 63 pages each, the 28 linears
     * their exact size, the 9 norms (36 KiB) one shared page */
    uint64_t observed =
        4 * (2 * 8 * MIB + 2 * 4 * MIB + 3 * 32 * MIB) + 2 * 63 * PAGE + PAGE;
    assert_int_equal(w->observed_bytes, observed);
    double pred = (double)w->predicted_bytes;
    assert_true(fabs(w->error - ((double)observed - pred) / pred) < 1e-12);

    /* then the activation peak, non-torch memory, CUDA graphs */
    assert_int_equal(f->log[n], p.activation_bytes_per_gpu);
    assert_int_equal(f->log[n + 1], p.non_torch_bytes_per_gpu);
    assert_int_equal(p.cudagraph_in_budget, 1);
    assert_int_equal(f->log[n + 2], p.cudagraph_bytes_per_gpu);
    for (int i = KVB_STAGE_ACTIVATION; i <= KVB_STAGE_CUDAGRAPH; i++) {
        uint64_t b = v.stages[i].predicted_bytes;
        assert_int_equal(v.stages[i].allocations, b != 0);
        assert_int_equal(v.stages[i].observed_bytes,
                         b <= SMALL_MAX ? (b ? PAGE : 0)
                                        : (b + PAGE - 1) / PAGE * PAGE);
    }

    /* the KV cache: 4 per-layer tensors of num_blocks pages of
     * 16 tokens x 2 x 8 heads x 128 x 2 B = 64 KiB */
    assert_int_equal(v.kv_tensors, 4);
    assert_int_equal(v.block_bytes, 4 * 65536);
    assert_int_equal(v.num_blocks, p.num_blocks);
    assert_true(p.num_blocks > 0);
    uint64_t each = p.num_blocks * 65536;
    for (size_t i = n + 3; i < n + 7; i++)
        assert_int_equal(f->log[i], each);
    const kvb_validation_stage *kv = &v.stages[KVB_STAGE_KV_CACHE];
    assert_int_equal(kv->predicted_bytes, 4 * each);
    assert_int_equal(kv->observed_bytes, 4 * ((each + PAGE - 1) / PAGE * PAGE));
    assert_true(v.max_error < 0.01);

    /* tightness: the plan at (free - allowance) / total fits, +3% not */
    assert_int_equal(v.tight_checked, 1);
    assert_int_equal(v.tight_fits, 1);
    assert_int_equal(v.tight_over_fits, 0);
    assert_int_equal(v.tight, 1);
    assert_true(v.tight_num_blocks > v.num_blocks); /* 0.92 -> ~0.98 */
    assert_int_equal(v.tight_over_num_blocks,
                     (uint64_t)ceil((double)v.tight_num_blocks * 1.03));
    /* allowance: the rounding measured before the KV cache, plus one
     * page per KV tensor */
    uint64_t rounding = 0;
    for (int i = 0; i < KVB_STAGE_KV_CACHE; i++)
        if (v.stages[i].observed_bytes > v.stages[i].predicted_bytes)
            rounding +=
                v.stages[i].observed_bytes - v.stages[i].predicted_bytes;
    assert_int_equal(v.tight_allowance_bytes, rounding + 4 * PAGE);
    /* what stays free beside the tight KV cache is under allowance plus
     * one block */
    assert_true(v.tight_free_bytes < v.tight_allowance_bytes + v.block_bytes);
    assert_int_equal(v.valid, 1);
    assert_int_equal(strncmp(v.message, "valid: weights ", 15), 0);
    assert_non_null(strstr(v.message, "tight:"));
    test_free(f);
}

/* A small model packs into shared pages: weights observed well above the
 * predicted bytes, and validation says invalid (and why). */
static void test_validate_small_model_is_invalid(void **state)
{
    (void)state;
    fake *f = test_malloc(sizeof *f);
    fake_init(f, 4 * GIB, 256 * MIB);
    kvb_model m = tiny_llama();
    kvb_serving s = serving_default();
    kvb_validation v;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(run(f, &m, &s, &v, &e), KVB_OK);
    const kvb_validation_stage *w = &v.stages[KVB_STAGE_WEIGHTS];
    /* every tensor is under 1 MiB: pages of 2 MiB hold them */
    assert_int_equal(w->observed_bytes % PAGE, 0);
    assert_true(w->observed_bytes > w->predicted_bytes);
    assert_true(w->error > 0.01);
    assert_int_equal(v.valid, 0);
    assert_non_null(strstr(v.message, "invalid: weights +"));
    assert_int_equal(f->n_live, 0);
    test_free(f);
}

static void test_validate_out_of_memory_in_weights(void **state)
{
    (void)state;
    fake *f = test_malloc(sizeof *f);
    fake_init(f, 700 * MIB, 10 * MIB); /* 690 MiB free, 730 MiB needed */
    kvb_model m = mid_llama();
    kvb_serving s = serving_default();
    kvb_validation v;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(run(f, &m, &s, &v, &e), KVB_OK); /* a result */
    assert_int_equal(v.failed_stage, KVB_STAGE_WEIGHTS);
    assert_int_equal(v.stages[KVB_STAGE_WEIGHTS].allocated, 0);
    assert_true(v.failed_bytes > 0);
    assert_int_equal(v.plan_verdict, KVB_VERDICT_WEIGHTS_EXCEED);
    assert_int_equal(v.valid, 0);
    assert_int_equal(v.tight_checked, 0);
    assert_non_null(
        strstr(v.message, "out of device memory in the weights stage"));
    assert_int_equal(f->n_live, 0);
    assert_int_equal(v.free_end_bytes, v.free_start_bytes);
    test_free(f);
}

/* Another process takes 2 GiB after the activation allocation: the KV
 * cache planned for the memory free at the start no longer fits. */
static void test_validate_out_of_memory_in_kv(void **state)
{
    (void)state;
    fake *f = test_malloc(sizeof *f);
    fake_init(f, 24 * GIB, 512 * MIB);
    kvb_model m = mid_llama();
    kvb_serving s = serving_default();
    s.gpu_memory_utilization = 0.97;
    size_t n = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_model_tensor_count(&m, &n, &e), KVB_OK);
    f->steal_at = (long)n; /* the activation allocation */
    f->steal_bytes = 2 * GIB;
    kvb_validation v;
    assert_int_equal(run(f, &m, &s, &v, &e), KVB_OK);
    assert_int_equal(v.failed_stage, KVB_STAGE_KV_CACHE);
    assert_int_equal(v.stages[KVB_STAGE_WEIGHTS].allocated, 1);
    assert_int_equal(v.stages[KVB_STAGE_KV_CACHE].allocated, 0);
    assert_int_equal(v.failed_bytes, v.num_blocks * 65536);
    assert_int_equal(f->n_live, 0);
    /* what the other process took is still gone at the end */
    assert_int_equal(v.free_end_bytes, v.free_start_bytes - 2 * GIB);
    test_free(f);
}

/* A CUDA error at any allocation: the error comes back, nothing leaks. */
static void test_validate_cuda_error_at_every_allocation(void **state)
{
    (void)state;
    fake *f = test_malloc(sizeof *f);
    kvb_model m = mid_llama();
    kvb_serving s = serving_default();
    kvb_validation v;
    fake_init(f, 24 * GIB, 512 * MIB);
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(run(f, &m, &s, &v, &e), KVB_OK);
    long calls = f->alloc_calls;
    /* 39 tensors, 3 reserves, 4 KV tensors, then 4 + 4 for tightness */
    assert_int_equal(calls, 39 + 3 + 4 + 8);
    for (long k = 0; k < calls; k++) {
        fake_init(f, 24 * GIB, 512 * MIB);
        f->fail_alloc_at = k;
        kvb_error ek = KVB_ERROR_INIT;
        assert_int_equal(run(f, &m, &s, &v, &ek), KVB_ECUDA);
        assert_int_equal(ek.status, KVB_ECUDA);
        assert_non_null(strstr(ek.message, "cuMemAlloc failed"));
        assert_int_equal(f->n_live, 0);
        assert_int_equal(f->used, 512 * MIB);
    }
    test_free(f);
}

/* A failing cuMemGetInfo at any point: likewise. */
static void test_validate_cuda_error_at_every_info(void **state)
{
    (void)state;
    fake *f = test_malloc(sizeof *f);
    kvb_model m = mid_llama();
    kvb_serving s = serving_default();
    kvb_validation v;
    fake_init(f, 24 * GIB, 512 * MIB);
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(run(f, &m, &s, &v, &e), KVB_OK);
    long calls = f->info_calls;
    /* start, 2 per stage, 1 after the tight KV cache, 1 at the end */
    assert_int_equal(calls, 1 + 2 * 5 + 1 + 1);
    for (long k = 0; k < calls; k++) {
        fake_init(f, 24 * GIB, 512 * MIB);
        f->fail_info_at = k;
        kvb_error ek = KVB_ERROR_INIT;
        assert_int_equal(run(f, &m, &s, &v, &ek), KVB_ECUDA);
        assert_non_null(strstr(ek.message, "cuMemGetInfo failed"));
        assert_int_equal(f->n_live, 0);
    }
    test_free(f);
}

/* A failing cuMemFree: reported, and every other buffer is still freed. */
static void test_validate_release_error_frees_the_rest(void **state)
{
    (void)state;
    fake *f = test_malloc(sizeof *f);
    kvb_model m = mid_llama();
    kvb_serving s = serving_default();
    kvb_validation v;
    fake_init(f, 24 * GIB, 512 * MIB);
    f->fail_release_at = 20;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(run(f, &m, &s, &v, &e), KVB_ECUDA);
    assert_non_null(strstr(e.message, "cuMemFree failed"));
    assert_int_equal(f->n_live, 1); /* only the one the driver refused */
    test_free(f);
}

/* A device that hides 8 GiB from cuMemGetInfo: the plan leaves room
 * unused, 3% more blocks fit, and validation says the plan is not tight. */
static void test_validate_not_tight_when_memory_is_left(void **state)
{
    (void)state;
    fake *f = test_malloc(sizeof *f);
    fake_init(f, 24 * GIB, 512 * MIB);
    f->info_hides = 8 * GIB;
    kvb_model m = mid_llama();
    kvb_serving s = serving_default();
    kvb_validation v;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(run(f, &m, &s, &v, &e), KVB_OK);
    assert_int_equal(v.tight_checked, 1);
    assert_int_equal(v.tight_fits, 1);
    assert_int_equal(v.tight_over_fits, 1);
    assert_int_equal(v.tight, 0);
    assert_int_equal(v.valid, 0);
    assert_non_null(strstr(v.message, "not tight"));
    assert_int_equal(f->n_live, 0);
    test_free(f);
}

/* KV tensors that cost 16 MiB more than their size (an allocator the plan
 * does not know): each stage is within 1%, but the tight KV cache does
 * not fit, so the plan is not tight. */
static void test_validate_not_tight_when_kv_costs_more(void **state)
{
    (void)state;
    fake *f = test_malloc(sizeof *f);
    fake_init(f, 24 * GIB, 512 * MIB);
    f->big_threshold = GIB;
    f->big_overhead = 16 * MIB;
    kvb_model m = mid_llama();
    kvb_serving s = serving_default();
    kvb_validation v;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(run(f, &m, &s, &v, &e), KVB_OK);
    assert_true(v.max_error < 0.01);
    assert_int_equal(v.tight_fits, 0);
    assert_int_equal(v.tight, 0);
    assert_int_equal(v.valid, 0);
    assert_non_null(strstr(v.message, "did not fit"));
    assert_int_equal(f->n_live, 0);
    test_free(f);
}

/* Sliding-window and full layers: vLLM's groups share tensors, one layer
 * of each group per tensor.  Gemma-2-9B cut to 4 layers: 2 sliding, 2
 * full, so 2 tensors of 16 x 2 x 8 heads x 256 x 2 B = 128 KiB pages. */
static void test_validate_hybrid_kv_tensors(void **state)
{
    (void)state;
    fake *f = test_malloc(sizeof *f);
    fake_init(f, 80 * GIB, 512 * MIB);
    kvb_model m = preset_model("Gemma-2-9B");
    m.num_hidden_layers = 4;
    kvb_serving s = serving_default();
    kvb_validation v;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(run(f, &m, &s, &v, &e), KVB_OK);
    assert_int_equal(v.kv_tensors, 2);
    assert_int_equal(v.block_bytes, 2 * 131072);
    const kvb_validation_stage *kv = &v.stages[KVB_STAGE_KV_CACHE];
    assert_int_equal(kv->allocations, 2);
    assert_int_equal(kv->predicted_bytes, v.num_blocks * 2 * 131072);
    assert_int_equal(f->n_live, 0);
    test_free(f);
}

static void test_validate_rejects_parallelism_and_bad_input(void **state)
{
    (void)state;
    fake *f = test_malloc(sizeof *f);
    fake_init(f, 24 * GIB, 512 * MIB);
    kvb_model m = mid_llama();
    kvb_serving s = serving_default();
    s.tensor_parallel_size = 2;
    kvb_validation v;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(run(f, &m, &s, &v, &e), KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "serving.tensor_parallel_size");
    assert_int_equal(f->alloc_calls, 0);
    s = serving_default();
    s.gpu_memory_utilization = 1.5;
    assert_int_equal(run(f, &m, &s, &v, &e), KVB_ERANGE);
    assert_string_equal(e.field, "serving.gpu_memory_utilization");
    m.num_hidden_layers = 0;
    assert_int_equal(run(f, &m, NULL, &v, &e), KVB_ERANGE);
    assert_int_equal(f->alloc_calls, 0);
    test_free(f);
}

static void test_validate_stage_names(void **state)
{
    (void)state;
    assert_string_equal(kvb_stage_name(KVB_STAGE_WEIGHTS), "weights");
    assert_string_equal(kvb_stage_name(KVB_STAGE_KV_CACHE), "kv_cache");
    assert_null(kvb_stage_name(KVB_STAGE_LAST_));
    assert_null(kvb_stage_name(-1));
    assert_non_null(strstr(kvb_stage_reason(KVB_STAGE_KV_CACHE), "num_blocks"));
    assert_null(kvb_stage_reason(99));
    assert_true(KVB_STAGE_LAST_ <= KVB_VALIDATION_STAGES);
}

KVB_TESTS(cmocka_unit_test(test_validate_stages_on_fake_device),
          cmocka_unit_test(test_validate_small_model_is_invalid),
          cmocka_unit_test(test_validate_out_of_memory_in_weights),
          cmocka_unit_test(test_validate_out_of_memory_in_kv),
          cmocka_unit_test(test_validate_cuda_error_at_every_allocation),
          cmocka_unit_test(test_validate_cuda_error_at_every_info),
          cmocka_unit_test(test_validate_release_error_frees_the_rest),
          cmocka_unit_test(test_validate_not_tight_when_memory_is_left),
          cmocka_unit_test(test_validate_not_tight_when_kv_costs_more),
          cmocka_unit_test(test_validate_hybrid_kv_tensors),
          cmocka_unit_test(test_validate_rejects_parallelism_and_bad_input),
          cmocka_unit_test(test_validate_stage_names));
