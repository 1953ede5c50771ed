/*
 * test_probe.c -- the probe without a GPU: status codes and messages when
 * there is no driver (or only the toolkit's stub), the mapping of CUDA's
 * errors, the driver-version parser, and the probed device turned into a
 * kvb_gpu that a plan uses.  The real driver path runs in tests/gpu.
 */
#include "testing.h"

#include <stdio.h>
#include <string.h>

/* The H200 as nvidia-smi reports it: 143771 MiB (shared/data/gpus.json,
 * NVIDIA/cuda-samples#311), 132 SMs, compute capability 9.0. */
#define H200_TOTAL ((uint64_t)143771 << 20)

static bool file_exists(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f)
        fclose(f);
    return f != NULL;
}

/* A machine with an NVIDIA driver has this file (and /dev/nvidiactl). */
static bool machine_has_driver(void)
{
    return file_exists("/proc/driver/nvidia/version") ||
           file_exists("/dev/nvidiactl");
}

static kvb_device h200_device(void)
{
    kvb_device d;
    assert_int_equal(KVB_DEVICE_INIT(&d), KVB_OK);
    d.index = 0;
    snprintf(d.name, sizeof d.name, "NVIDIA H200");
    d.total_bytes = H200_TOTAL;
    d.free_bytes = H200_TOTAL - 600 * MIB; /* a fresh context's worth used */
    d.used_by_others_bytes = 600 * MIB;
    d.compute_capability = 90;
    d.multiprocessor_count = 132;
    return d;
}

static void test_probe_status_of_cuda_errors(void **state)
{
    (void)state;
    /* CUresult numbers from cuda.h (CUDA 13.0) */
    assert_int_equal(kvb__cuda_status(0), KVB_OK);          /* SUCCESS */
    assert_int_equal(kvb__cuda_status(2), KVB_ENOMEM);      /* OUT_OF_MEMORY */
    assert_int_equal(kvb__cuda_status(100), KVB_ENODEVICE); /* NO_DEVICE */
    assert_int_equal(kvb__cuda_status(101), KVB_ENODEVICE); /* INVALID_DEVICE */
    assert_int_equal(kvb__cuda_status(34), KVB_ENODRIVER);  /* STUB_LIBRARY */
    assert_int_equal(kvb__cuda_status(3), KVB_ENODRIVER); /* NOT_INITIALIZED */
    assert_int_equal(kvb__cuda_status(803),
                     KVB_ENODRIVER);                    /* DRIVER_MISMATCH */
    assert_int_equal(kvb__cuda_status(1), KVB_ECUDA);   /* INVALID_VALUE */
    assert_int_equal(kvb__cuda_status(999), KVB_ECUDA); /* UNKNOWN */
}

static void test_probe_driver_version_parse(void **state)
{
    (void)state;
    char v[32];
    /* proprietary module, as /proc/driver/nvidia/version prints it */
    assert_true(kvb__nvidia_version(
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  "
        "5 22:23:56 UTC 2024\nGCC version:  gcc version 12.2.0\n",
        v, sizeof v));
    assert_string_equal(v, "550.54.15");
    /* open module: "for x86_64" stands between the words and the number */
    assert_true(kvb__nvidia_version(
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.03  "
        "Release Build  (dvs-builder@U16-I3-B03-4-3)  Thu Jul 31 2025\n",
        v, sizeof v));
    assert_string_equal(v, "580.159.03");
    assert_false(kvb__nvidia_version("no module here", v, sizeof v));
    assert_false(kvb__nvidia_version(
        "NVRM version: NVIDIA UNIX Kernel Module\n580.1", v, sizeof v));
    char tiny[4];
    assert_false(kvb__nvidia_version(
        "NVIDIA UNIX x86_64 Kernel Module  580.159.03", tiny, sizeof tiny));
}

static void test_probe_open_missing_library(void **state)
{
    (void)state;
    kvb_error e = KVB_ERROR_INIT;
    kvb__cuda *cu = (kvb__cuda *)&e; /* must be reset to NULL */
    kvb_status st =
        kvb__cuda_open("/nonexistent/kvbudget/libcuda.so.1", &cu, &e);
    assert_null(cu);
    assert_int_equal(e.status, st);
    assert_string_equal(e.field, "probe");
    if (!kvb__probe_has_cuda()) {
        assert_int_equal(st, KVB_ENOCUDA);
        assert_non_null(strstr(e.message, "built without CUDA support"));
        return;
    }
    assert_int_equal(st, KVB_ENODRIVER);
    assert_non_null(strstr(e.message, "no CUDA driver found: cannot load "
                                      "/nonexistent/kvbudget/libcuda.so.1"));
    assert_non_null(strstr(e.message, "this machine has no NVIDIA GPU driver"));
    kvb__cuda_close(NULL); /* harmless */
}

/* The toolkit's stub libcuda.so exports every symbol, and its cuInit
 * returns CUDA_ERROR_STUB_LIBRARY (34): the "driver found but unusable"
 * path, run for real on a machine with the toolkit and no driver. */
static void test_probe_open_stub_library(void **state)
{
    (void)state;
    static const char *const stubs[] = {
        "/usr/local/cuda/lib64/stubs/libcuda.so",
        "/usr/local/cuda/targets/x86_64-linux/lib/stubs/libcuda.so",
    };
    const char *stub = NULL;
    for (size_t i = 0; i < sizeof stubs / sizeof stubs[0] && !stub; i++)
        if (file_exists(stubs[i]))
            stub = stubs[i];
    if (!kvb__probe_has_cuda() || !stub)
        skip();
    kvb_error e = KVB_ERROR_INIT;
    kvb__cuda *cu = NULL;
    assert_int_equal(kvb__cuda_open(stub, &cu, &e), KVB_ENODRIVER);
    assert_null(cu);
    assert_non_null(strstr(e.message, "no CUDA driver found"));
    assert_non_null(strstr(e.message, "is the CUDA toolkit's stub"));
}

/* The public calls on this machine.  Without a driver they must say so,
 * leave *count 0 and write nothing else; with one, tests/gpu covers them. */
static void test_probe_public_without_driver(void **state)
{
    (void)state;
    if (machine_has_driver() && kvb__probe_has_cuda())
        skip();
    kvb_status want = kvb__probe_has_cuda() ? KVB_ENODRIVER : KVB_ENOCUDA;
    kvb_error e = KVB_ERROR_INIT;
    uint32_t count = 77;
    assert_int_equal(kvb_probe_count(&count, &e), want);
    assert_int_equal(count, 0);
    assert_int_equal(e.status, want);
    assert_string_equal(e.field, "probe");
    assert_string_equal(kvb_strerror(want), want == KVB_ENODRIVER
                                                ? "no CUDA driver"
                                                : "built without CUDA support");

    kvb_device d;
    assert_int_equal(KVB_DEVICE_INIT(&d), KVB_OK);
    kvb_error e2 = KVB_ERROR_INIT;
    assert_int_equal(kvb_probe_device(0, &d, &e2), want);
    assert_int_equal(d.index, -1); /* untouched */
    assert_int_equal(d.total_bytes, 0);
    assert_string_equal(e2.message, e.message);

    kvb_model m = preset_model("Llama-3.1-8B");
    kvb_validation v;
    assert_int_equal(KVB_VALIDATION_INIT(&v), KVB_OK);
    kvb_error e3 = KVB_ERROR_INIT;
    assert_int_equal(kvb_validate(&m, NULL, NULL, 0, &v, &e3), want);
    assert_int_equal(v.failed_stage, -1); /* untouched */
    assert_int_equal(v.total_bytes, 0);
    assert_string_equal(e3.message, e.message);
}

static void test_probe_null_and_abi(void **state)
{
    (void)state;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_probe_count(NULL, &e), KVB_EINVAL);
    assert_string_equal(e.field, "count");
    kvb_device d;
    assert_int_equal(kvb_device_init(&d, sizeof d - 8), KVB_EABI);
    assert_int_equal(kvb_device_init(NULL, sizeof d), KVB_EINVAL);
    assert_int_equal(KVB_DEVICE_INIT(&d), KVB_OK);
    assert_int_equal(d.index, -1);
    assert_int_equal(d.struct_size, sizeof d);
    d.struct_size = 3;
    assert_int_equal(kvb_probe_device(0, &d, &e), KVB_EABI);
    assert_int_equal(kvb_probe_device(0, NULL, &e), KVB_EINVAL);
    kvb_validation v;
    assert_int_equal(kvb_validation_init(&v, 12), KVB_EABI);
    assert_int_equal(KVB_VALIDATION_INIT(&v), KVB_OK);
    assert_int_equal(v.failed_stage, -1);
    assert_int_equal(v.device_index, -1);
    v.struct_size = 0;
    kvb_model m = preset_model("Llama-3.1-8B");
    assert_int_equal(kvb_validate(&m, NULL, NULL, 0, &v, &e), KVB_EABI);
}

/* Bad input is reported as such before any driver is looked for, so the
 * answer does not depend on the machine. */
static void test_probe_validate_checks_input_first(void **state)
{
    (void)state;
    kvb_model m = preset_model("Llama-3.1-8B");
    kvb_serving s = serving_default();
    kvb_validation v;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_VALIDATION_INIT(&v), KVB_OK);
    s.tensor_parallel_size = 2;
    assert_int_equal(kvb_validate(&m, NULL, &s, 0, &v, &e), KVB_EUNSUPPORTED);
    assert_string_equal(e.field, "serving.tensor_parallel_size");
    s = serving_default();
    s.gpu_memory_utilization = 2.0;
    assert_int_equal(kvb_validate(&m, NULL, &s, 0, &v, &e), KVB_ERANGE);
    assert_string_equal(e.field, "serving.gpu_memory_utilization");
    assert_int_equal(kvb_validate(NULL, NULL, NULL, 0, &v, &e), KVB_EINVAL);
}

static void test_probe_device_to_gpu(void **state)
{
    (void)state;
    kvb_device d = h200_device();
    kvb_gpu g;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_GPU_INIT(&g), KVB_OK);
    assert_int_equal(kvb_device_gpu(&d, &g, &e), KVB_OK);
    assert_string_equal(g.name, "NVIDIA H200");
    assert_int_equal(g.total_bytes, H200_TOTAL);
    assert_int_equal(g.free_bytes, H200_TOTAL - 600 * MIB);
    assert_int_equal(g.count, 1);
    assert_int_equal(g.compute_capability, 90);
    assert_int_equal(g.multiprocessor_count, 132);

    /* kvb_gpu.name holds 63 bytes and a NUL */
    memset(d.name, 'x', 200);
    d.name[200] = '\0';
    assert_int_equal(kvb_device_gpu(&d, &g, &e), KVB_OK);
    assert_int_equal(strlen(g.name), 63);
}

static void test_probe_device_to_gpu_rejects(void **state)
{
    (void)state;
    kvb_device d = h200_device();
    kvb_gpu g;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_GPU_INIT(&g), KVB_OK);
    d.free_bytes = d.total_bytes + 1;
    assert_int_equal(kvb_device_gpu(&d, &g, &e), KVB_ERANGE);
    assert_string_equal(e.field, "device.free_bytes");
    d = h200_device();
    d.total_bytes = 0;
    d.free_bytes = 0;
    assert_int_equal(kvb_device_gpu(&d, &g, &e), KVB_EINVAL);
    assert_string_equal(e.field, "device.total_bytes");
    d = h200_device();
    assert_int_equal(kvb_device_gpu(NULL, &g, &e), KVB_EINVAL);
    assert_int_equal(kvb_device_gpu(&d, NULL, &e), KVB_EINVAL);
    g.struct_size = 1;
    assert_int_equal(kvb_device_gpu(&d, &g, &e), KVB_EABI);
}

/* `kvbudget plan --gpu probe`: the probed free memory is the start-up free
 * memory of the plan (plan.c: startup_free = gpu.free_bytes when known),
 * so other processes' memory counts against the utilization check. */
static void test_probe_device_feeds_plan(void **state)
{
    (void)state;
    kvb_device d = h200_device();
    kvb_gpu g;
    kvb_plan p;
    kvb_error e = KVB_ERROR_INIT;
    kvb_model m = preset_model("Llama-3.1-8B");
    assert_int_equal(KVB_GPU_INIT(&g), KVB_OK);
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    assert_int_equal(kvb_device_gpu(&d, &g, &e), KVB_OK);
    assert_int_equal(kvb_plan_compute(&m, NULL, &g, NULL, &p, &e), KVB_OK);
    assert_int_equal(p.gpu_total_bytes, H200_TOTAL);
    assert_int_equal(p.startup_free_bytes_per_gpu, H200_TOTAL - 600 * MIB);
    assert_int_equal(p.fits, 1);

    /* another process holds 20 GiB: 0.92 x 140.4 GiB no longer fits in the
     * 119.8 GiB left, and the plan says so (the vLLM start-up check) */
    d.free_bytes = H200_TOTAL - 20 * GIB - 600 * MIB;
    assert_int_equal(kvb_device_gpu(&d, &g, &e), KVB_OK);
    assert_int_equal(kvb_plan_compute(&m, NULL, &g, NULL, &p, &e), KVB_OK);
    assert_int_equal(p.verdict, KVB_VERDICT_HEADROOM_TOO_SMALL);
    assert_int_equal(p.fits, 0);
}

KVB_TESTS(cmocka_unit_test(test_probe_status_of_cuda_errors),
          cmocka_unit_test(test_probe_driver_version_parse),
          cmocka_unit_test(test_probe_open_missing_library),
          cmocka_unit_test(test_probe_open_stub_library),
          cmocka_unit_test(test_probe_public_without_driver),
          cmocka_unit_test(test_probe_null_and_abi),
          cmocka_unit_test(test_probe_validate_checks_input_first),
          cmocka_unit_test(test_probe_device_to_gpu),
          cmocka_unit_test(test_probe_device_to_gpu_rejects),
          cmocka_unit_test(test_probe_device_feeds_plan));
