/*
 * test_gpu_probe.c -- the probe and validation against a real GPU.
 * Registered by tests/gpu/CMakeLists.txt only where a driver is present;
 * exits 77 (ctest: skipped) when the driver or the device is missing
 * after all, so it never fails on a machine without a GPU.
 * Plain C with its own checks (no cmocka), so run.sh can build it with a
 * bare cc on a machine without the test dependencies.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#define SKIP 77
#define MIB_ ((uint64_t)1 << 20)
#define GIB_ ((uint64_t)1 << 30)

static int failures;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
            failures++;                                                        \
        }                                                                      \
    } while (0)

static uint64_t absdiff(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

/* Every device: sane figures, and the plan takes them. */
static void check_probe(uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        kvb_device d;
        kvb_error e = KVB_ERROR_INIT;
        CHECK(KVB_DEVICE_INIT(&d) == KVB_OK);
        CHECK(kvb_probe_device(i, &d, &e) == KVB_OK);
        printf("device %u: %s, cc %u, %u SMs, total %llu, free %llu, driver "
               "%s, %s\n",
               i, d.name, d.compute_capability, d.multiprocessor_count,
               (unsigned long long)d.total_bytes,
               (unsigned long long)d.free_bytes, d.driver_version, d.uuid);
        CHECK(d.index == (int32_t)i);
        CHECK(d.name[0] != '\0');
        CHECK(d.total_bytes >= GIB_);
        CHECK(d.free_bytes <= d.total_bytes);
        CHECK(d.used_by_others_bytes == d.total_bytes - d.free_bytes);
        CHECK(d.compute_capability >= 50);
        CHECK(d.multiprocessor_count > 0);
        CHECK(strncmp(d.uuid, "GPU-", 4) == 0 && strlen(d.uuid) == 40);
        CHECK(d.cuda_driver_version >= 11040);
        kvb_gpu g;
        CHECK(KVB_GPU_INIT(&g) == KVB_OK);
        CHECK(kvb_device_gpu(&d, &g, &e) == KVB_OK);
        CHECK(g.total_bytes == d.total_bytes && g.free_bytes == d.free_bytes);
    }
    kvb_device d;
    kvb_error e = KVB_ERROR_INIT;
    CHECK(KVB_DEVICE_INIT(&d) == KVB_OK);
    CHECK(kvb_probe_device(count, &d, &e) == KVB_ERANGE);
}

/* The seam over the driver: 1 GiB takes 1 GiB of free memory and gives
 * it back; an impossible size is KVB_ENOMEM, a result. */
static void check_devmem(void)
{
    kvb__cuda *cu = NULL;
    kvb_device d;
    kvb__devmem dm;
    kvb_error e = KVB_ERROR_INIT;
    CHECK(KVB_DEVICE_INIT(&d) == KVB_OK);
    CHECK(kvb__cuda_open(NULL, &cu, &e) == KVB_OK);
    if (!cu)
        return;
    CHECK(kvb__cuda_device(cu, 0, &d, &e) == KVB_OK);
    kvb__cuda_devmem(cu, &dm);
    uint64_t f0 = 0, f1 = 0, f2 = 0, total = 0, h = 0, h2 = 0;
    CHECK(dm.mem_get_info(dm.ctx, &f0, &total, &e) == KVB_OK);
    CHECK(total == d.total_bytes);
    CHECK(dm.alloc(dm.ctx, GIB_, &h, &e) == KVB_OK);
    CHECK(dm.mem_get_info(dm.ctx, &f1, &total, &e) == KVB_OK);
    printf("1 GiB allocation: free fell by %llu bytes\n",
           (unsigned long long)(f0 - f1));
    CHECK(absdiff(f0 - f1, GIB_) <= 2 * MIB_);
    CHECK(dm.alloc(dm.ctx, total + GIB_, &h2, &e) == KVB_ENOMEM);
    CHECK(dm.release(dm.ctx, h, &e) == KVB_OK);
    CHECK(dm.mem_get_info(dm.ctx, &f2, &total, &e) == KVB_OK);
    CHECK(absdiff(f2, f0) <= 2 * MIB_);
    kvb__cuda_close(cu);
}

/* A whole validation of a small model: every stage allocated, the
 * device given back as found. */
static void check_validate(void)
{
    kvb_model m;
    kvb_validation v;
    kvb_error e = KVB_ERROR_INIT;
    CHECK(KVB_MODEL_INIT(&m) == KVB_OK);
    CHECK(kvb_preset_model_find("Llama-3.2-1B", &m, &e) == KVB_OK);
    CHECK(KVB_VALIDATION_INIT(&v) == KVB_OK);
    kvb_status st = kvb_validate(&m, NULL, NULL, 0, &v, &e);
    CHECK(st == KVB_OK);
    if (st) {
        fprintf(stderr, "kvb_validate: %s\n", e.message);
        return;
    }
    printf("validate Llama-3.2-1B: %s\n", v.message);
    CHECK(v.failed_stage == -1);
    CHECK(v.device_index == 0);
    CHECK(v.stages[KVB_STAGE_WEIGHTS].allocations == v.weights_tensors);
    CHECK(v.stages[KVB_STAGE_KV_CACHE].allocations == v.kv_tensors);
    CHECK(v.kv_tensors == 16); /* Llama-3.2-1B: 16 layers */
    CHECK(absdiff(v.free_end_bytes, v.free_start_bytes) <= 64 * MIB_);
    CHECK(v.tight_checked == 1);
}

int main(void)
{
    uint32_t count = 0;
    kvb_error e = KVB_ERROR_INIT;
    kvb_status st = kvb_probe_count(&count, &e);
    if (st == KVB_ENOCUDA || st == KVB_ENODRIVER || st == KVB_ENODEVICE) {
        printf("skipped: %s\n", e.message);
        return SKIP;
    }
    CHECK(st == KVB_OK && count >= 1);
    if (st)
        return 1;
    check_probe(count);
    check_devmem();
    check_validate();
    printf("%s: %d failed check(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
