/*
 * test_presets_hw.c -- the GPU and cloud-instance preset tables
 * (lib/presets/gpus.c, lib/presets/instances.c) and their lookups.
 */
#include "testing.h"

#include <string.h>

/* Copy the alias `n` (0-based) of a comma-separated list into buf; false
 * when the list has fewer entries. */
static bool alias_at(const char *aliases, size_t n, char *buf, size_t cap)
{
    const char *a = aliases;
    for (size_t i = 0; a && *a; i++) {
        const char *end = strchr(a, ',');
        size_t len = end ? (size_t)(end - a) : strlen(a);
        if (i == n) {
            assert_true(len < cap);
            memcpy(buf, a, len);
            buf[len] = '\0';
            return true;
        }
        a = end ? end + 1 : NULL;
    }
    return false;
}

static kvb_gpu gpu_named(const char *name)
{
    kvb_gpu g;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_GPU_INIT(&g), KVB_OK);
    if (kvb_preset_gpu_find(name, &g, &e) != KVB_OK)
        fail_msg("gpu %s: %s", name, e.message);
    return g;
}

static kvb_instance instance_named(const char *name)
{
    kvb_instance in;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_INSTANCE_INIT(&in), KVB_OK);
    if (kvb_preset_instance_find(name, &in, &e) != KVB_OK)
        fail_msg("instance %s: %s", name, e.message);
    return in;
}

static void test_presets_hw_counts(void **state)
{
    (void)state;
    assert_int_equal(kvb_preset_gpu_count(), kvb__gpu_rows_count);
    assert_int_equal(kvb_preset_instance_count(), kvb__instance_rows_count);
    assert_true(kvb_preset_gpu_count() >= 20);
    assert_true(kvb_preset_instance_count() >= 30);
}

static void test_presets_hw_gpu_rows(void **state)
{
    (void)state;
    for (size_t i = 0; i < kvb__gpu_rows_count; i++) {
        const kvb__gpu_row *r = &kvb__gpu_rows[i];
        kvb_gpu g;
        kvb_error e = KVB_ERROR_INIT;
        assert_non_null(r->name);
        assert_true(r->name[0] != '\0');
        assert_true(strlen(r->name) < sizeof g.name);
        assert_non_null(r->source);
        assert_true(r->source[0] != '\0');
        /* short enough for one entry of `kvbudget list gpus` */
        assert_true(strlen(r->source) <= 200);
        assert_non_null(r->aliases);
        /* 1 GiB .. 1 TiB per GPU */
        assert_true(r->total_bytes >= GIB);
        assert_true(r->total_bytes <= (uint64_t)1 << 40);
        assert_true(r->multiprocessor_count > 0);
        assert_true(r->multiprocessor_count <= 1024);
        /* AMD rows carry no CUDA compute capability; NVIDIA rows 7.0..12.0 */
        if (strstr(r->aliases, "AMD Instinct"))
            assert_int_equal(r->compute_capability, 0);
        else
            assert_in_range(r->compute_capability, 70, 120);

        assert_string_equal(kvb_preset_gpu_name(i), r->name);
        assert_ptr_equal(kvb_preset_gpu_source(i), r->source);
        assert_int_equal(KVB_GPU_INIT(&g), KVB_OK);
        assert_int_equal(kvb_preset_gpu_get(i, &g, &e), KVB_OK);
        assert_string_equal(g.name, r->name);
        assert_true(g.total_bytes == r->total_bytes);
        assert_int_equal(g.count, 1);
        assert_int_equal(g.compute_capability, r->compute_capability);
        assert_int_equal(g.multiprocessor_count, r->multiprocessor_count);
    }
}

/* Every name and alias finds its own row and matches no other row. */
static void test_presets_hw_names_unique(void **state)
{
    (void)state;
    char tok[128];
    for (size_t i = 0; i < kvb__gpu_rows_count; i++) {
        const kvb__gpu_row *r = &kvb__gpu_rows[i];
        for (size_t n = 0;; n++) {
            const char *t = r->name;
            if (n > 0) {
                if (!alias_at(r->aliases, n - 1, tok, sizeof tok))
                    break;
                t = tok;
            }
            size_t len = strlen(t);
            assert_true(len > 0);
            assert_true(t[0] != ' ' && t[len - 1] != ' ');
            for (size_t j = 0; j < kvb__gpu_rows_count; j++) {
                bool hit = kvb__name_matches(t, kvb__gpu_rows[j].name,
                                             kvb__gpu_rows[j].aliases);
                if (hit != (i == j))
                    fail_msg("\"%s\" (row %s) %s row %s", t, r->name,
                             hit ? "also matches" : "does not match",
                             kvb__gpu_rows[j].name);
            }
            kvb_gpu g = gpu_named(t);
            assert_string_equal(g.name, r->name);
        }
    }
    for (size_t i = 0; i < kvb__instance_rows_count; i++)
        for (size_t j = i + 1; j < kvb__instance_rows_count; j++)
            if (kvb__strcasecmp(kvb__instance_rows[i].name,
                                kvb__instance_rows[j].name) == 0)
                fail_msg("instance %s listed twice",
                         kvb__instance_rows[i].name);
}

static void test_presets_hw_lookup_cuda_names(void **state)
{
    (void)state;
    /* Device names exactly as cudaGetDeviceProperties / torch print them,
     * in any case, and common spellings. */
    static const struct {
        const char *query, *row;
    } cases[] = {
        {"NVIDIA A10G", "A10G"},
        {"nvidia a10g", "A10G"},
        {"Tesla T4", "T4"},
        {"TESLA T4", "T4"},
        {"NVIDIA L4", "L4"},
        {"NVIDIA L40S", "L40S"},
        {"NVIDIA H100 80GB HBM3", "H100"},
        {"h100", "H100"},
        {"H100-80GB", "H100"},
        {"NVIDIA H100 PCIe", "H100-PCIe"},
        {"NVIDIA H200", "H200"},
        {"NVIDIA A100-SXM4-80GB", "A100-80GB"},
        {"NVIDIA A100 80GB PCIe", "A100-80GB"},
        {"a100", "A100-80GB"},
        {"NVIDIA A100-SXM4-40GB", "A100-40GB"},
        {"NVIDIA GeForce RTX 4090", "RTX-4090"},
        {"4090", "RTX-4090"},
        {"rtx-4090", "RTX-4090"},
        {"NVIDIA GeForce RTX 3090", "RTX-3090"},
        {"Tesla V100-SXM2-16GB", "V100-16GB"},
        {"AMD Instinct MI300X", "MI300X"},
        {"mi300x", "MI300X"},
    };
    for (size_t i = 0; i < KVB__ARRAY_LEN(cases); i++) {
        kvb_gpu g = gpu_named(cases[i].query);
        assert_string_equal(g.name, cases[i].row);
    }
    /* a prefix or a longer name is not a match */
    kvb_gpu g;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_GPU_INIT(&g), KVB_OK);
    assert_int_equal(kvb_preset_gpu_find("NVIDIA", &g, &e), KVB_ENOTFOUND);
    assert_int_equal(kvb_preset_gpu_find("H10", &g, &e), KVB_ENOTFOUND);
    assert_int_equal(kvb_preset_gpu_find("NVIDIA H200 NVL", &g, &e),
                     KVB_ENOTFOUND);
    /* A10 and A10G are different GPUs: 72 and 80 SMs */
    assert_int_equal(gpu_named("NVIDIA A10").multiprocessor_count, 72);
    assert_int_equal(gpu_named("NVIDIA A10G").multiprocessor_count, 80);
}

static void test_presets_hw_anchor_totals(void **state)
{
    (void)state;
    kvb_gpu g;

    /* torch total_memory=22587MB (MiB) on an A10G, torch 2.15+cu130
     * (meta-pytorch/torchcodec CUDA decoding tutorial):
     * 22587 x 2^20 = 23684186112 */
    g = gpu_named("A10G");
    assert_true(g.total_bytes == 23684186112ull);
    assert_int_equal(g.compute_capability, 86);
    assert_int_equal(g.multiprocessor_count, 80);

    /* torch total_memory=81090MB on H100 80GB HBM3; 81090 x 2^20 =
     * 85029027840 = 79.19 GiB, vLLM's logged total_gpu_memory
     * (kubernetes-sigs/gateway-api-inference-extension#550) */
    g = gpu_named("H100");
    assert_true(g.total_bytes == 85029027840ull);
    assert_true(g.total_bytes == 81090 * MIB);
    assert_int_equal(g.compute_capability, 90);
    assert_int_equal(g.multiprocessor_count, 132);
    /* not the marketing 80 GB, not nvidia-smi's 81559 MiB */
    assert_true(g.total_bytes < 81559 * MIB);

    /* mixbench "Total global mem 81049 MB", A100 80GB PCIe, ECC on
     * (ekondis/mixbench#47): 81049 x 2^20 = 84986036224 */
    g = gpu_named("A100-80GB");
    assert_true(g.total_bytes == 84986036224ull);
    assert_int_equal(g.compute_capability, 80);
    assert_int_equal(g.multiprocessor_count, 108);

    /* torch total_memory=143156MB on an H200 (ai-bot-pro/achatbot
     * deploy/modal/src/llm/vllm/vlm/skywork_r1v.py): 143156 x 2^20 =
     * 150109945856 = 139.80 GiB; nvidia-smi shows 143771 MiB */
    g = gpu_named("H200");
    assert_true(g.total_bytes == 150109945856ull);
    assert_true(g.total_bytes < 143771 * MIB);

    /* deviceQuery "(42298834944 bytes)", A100-SXM4-40GB
     * (bottlerocket-os/bottlerocket#3873) */
    assert_true(gpu_named("A100-40GB").total_bytes == 42298834944ull);

    /* derived: the L40 takes the L40S's measured total */
    assert_true(gpu_named("L40").total_bytes == gpu_named("L40S").total_bytes);
}

static void test_presets_hw_instance_rows(void **state)
{
    (void)state;
    for (size_t i = 0; i < kvb__instance_rows_count; i++) {
        const kvb__instance_row *r = &kvb__instance_rows[i];
        kvb_instance in;
        kvb_gpu g;
        kvb_error e = KVB_ERROR_INIT;
        assert_non_null(r->name);
        assert_true(r->name[0] != '\0');
        assert_true(strlen(r->name) < sizeof in.name);
        assert_non_null(r->source);
        assert_true(r->source[0] != '\0');
        assert_true(strlen(r->source) <= 200);
        /* every source says where the price came from (or that it is
         * unknown) */
        assert_non_null(strstr(r->source, "price"));
        assert_true(strcmp(r->cloud, "aws") == 0 ||
                    strcmp(r->cloud, "gcp") == 0 ||
                    strcmp(r->cloud, "azure") == 0);
        assert_in_range(r->gpu_count, 1, 16);
        assert_true(r->vcpus > 0);
        /* host memory is whole GiB, between 8 GiB and 4 TiB */
        assert_true(r->host_memory_bytes % GIB == 0);
        assert_in_range(r->host_memory_bytes / GIB, 8, 4096);
        assert_true(r->price_per_hour >= 0.0 && r->price_per_hour < 1000.0);

        /* gpu is a canonical GPU name, not an alias */
        bool canonical = false;
        for (size_t j = 0; j < kvb__gpu_rows_count; j++)
            canonical |= strcmp(r->gpu, kvb__gpu_rows[j].name) == 0;
        if (!canonical)
            fail_msg("%s: gpu \"%s\" is not a GPU preset name", r->name,
                     r->gpu);

        assert_string_equal(kvb_preset_instance_name(i), r->name);
        assert_ptr_equal(kvb_preset_instance_source(i), r->source);
        assert_int_equal(KVB_INSTANCE_INIT(&in), KVB_OK);
        assert_int_equal(kvb_preset_instance_get(i, &in, &e), KVB_OK);
        assert_string_equal(in.name, r->name);
        assert_string_equal(in.cloud, r->cloud);
        assert_int_equal(in.vcpus, r->vcpus);
        assert_true(in.host_memory_bytes == r->host_memory_bytes);
        assert_true(in.price_per_hour == r->price_per_hour);

        assert_int_equal(KVB_GPU_INIT(&g), KVB_OK);
        if (kvb_instance_gpu(&in, &g, &e) != KVB_OK)
            fail_msg("%s: %s", r->name, e.message);
        assert_string_equal(g.name, r->gpu);
        assert_int_equal(g.count, r->gpu_count);
    }
}

static void test_presets_hw_instance_examples(void **state)
{
    (void)state;
    kvb_gpu g;
    kvb_error e = KVB_ERROR_INIT;

    /* g5.12xlarge: 4x A10G, 48 vCPUs, 192 GiB (AWS Batch GPU-jobs table) */
    kvb_instance in = instance_named("g5.12xlarge");
    assert_string_equal(in.gpu_name, "A10G");
    assert_int_equal(in.gpu_count, 4);
    assert_int_equal(in.vcpus, 48);
    assert_true(in.host_memory_bytes == 192 * GIB);
    assert_int_equal(KVB_GPU_INIT(&g), KVB_OK);
    assert_int_equal(kvb_instance_gpu(&in, &g, &e), KVB_OK);
    assert_int_equal(g.count, 4);
    /* the A10G row: torch total_memory=22587MB (presets_gpus.c source) */
    assert_true(g.total_bytes == 22587 * MIB);

    /* case-insensitive */
    in = instance_named("G5.12XLARGE");
    assert_string_equal(in.name, "g5.12xlarge");

    /* p5.48xlarge: 8x H100 SXM, 2048 GiB (skypilot-catalog v8 aws) */
    in = instance_named("p5.48xlarge");
    assert_string_equal(in.gpu_name, "H100");
    assert_int_equal(in.gpu_count, 8);
    assert_true(in.host_memory_bytes == 2048 * GIB);

    /* p4d has the 40 GB A100, p4de the 80 GB one */
    assert_string_equal(instance_named("p4d.24xlarge").gpu_name, "A100-40GB");
    assert_string_equal(instance_named("p4de.24xlarge").gpu_name, "A100-80GB");

    /* p5e is sold as Capacity Blocks only: no on-demand price */
    in = instance_named("p5e.48xlarge");
    assert_string_equal(in.gpu_name, "H200");
    assert_true(in.price_per_hour == 0.0);

    /* GCP g2-standard-24: 2x L4; Azure NC40ads H100 v5: 1x H100 NVL */
    in = instance_named("g2-standard-24");
    assert_string_equal(in.cloud, "gcp");
    assert_string_equal(in.gpu_name, "L4");
    assert_int_equal(in.gpu_count, 2);
    in = instance_named("Standard_NC40ads_H100_v5");
    assert_string_equal(in.cloud, "azure");
    assert_string_equal(in.gpu_name, "H100-NVL");
}

static void test_presets_hw_errors(void **state)
{
    (void)state;
    kvb_gpu g;
    kvb_instance in;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_GPU_INIT(&g), KVB_OK);
    assert_int_equal(KVB_INSTANCE_INIT(&in), KVB_OK);

    /* unknown names */
    assert_int_equal(kvb_preset_gpu_find("no-such-gpu", &g, &e), KVB_ENOTFOUND);
    assert_int_equal(e.status, KVB_ENOTFOUND);
    assert_string_equal(e.field, "gpu");
    assert_non_null(strstr(e.message, "no-such-gpu"));
    assert_int_equal(kvb_preset_instance_find("p9.huge", &in, &e),
                     KVB_ENOTFOUND);
    assert_string_equal(e.field, "instance");
    /* an instance name is not a GPU name, nor the other way round */
    assert_int_equal(kvb_preset_gpu_find("g5.xlarge", &g, &e), KVB_ENOTFOUND);
    assert_int_equal(kvb_preset_instance_find("A10G", &in, &e), KVB_ENOTFOUND);

    /* NULL names: not found, no crash */
    assert_int_equal(kvb_preset_gpu_find(NULL, &g, &e), KVB_ENOTFOUND);
    assert_non_null(strstr(e.message, "(null)"));
    assert_int_equal(kvb_preset_instance_find(NULL, &in, &e), KVB_ENOTFOUND);

    /* past the end */
    size_t ng = kvb_preset_gpu_count(), ni = kvb_preset_instance_count();
    assert_int_equal(kvb_preset_gpu_get(ng, &g, &e), KVB_ERANGE);
    assert_string_equal(e.field, "index");
    assert_null(kvb_preset_gpu_name(ng));
    assert_null(kvb_preset_gpu_source(ng));
    assert_int_equal(kvb_preset_instance_get(ni, &in, &e), KVB_ERANGE);
    assert_null(kvb_preset_instance_name(ni));
    assert_null(kvb_preset_instance_source(ni));
    assert_int_equal(kvb_preset_gpu_get((size_t)-1, &g, NULL), KVB_ERANGE);

    /* NULL output */
    assert_int_equal(kvb_preset_gpu_get(0, NULL, &e), KVB_EINVAL);
    assert_int_equal(kvb_preset_instance_get(0, NULL, &e), KVB_EINVAL);

    /* a struct_size this library does not know */
    g.struct_size = sizeof g - 8;
    assert_int_equal(kvb_preset_gpu_find("H100", &g, &e), KVB_EABI);
    assert_int_equal(e.status, KVB_EABI);
    g.struct_size = sizeof g + 8;
    assert_int_equal(kvb_preset_gpu_get(0, &g, &e), KVB_EABI);
    in.struct_size = sizeof in + 8;
    assert_int_equal(kvb_preset_instance_find("g5.xlarge", &in, &e), KVB_EABI);
    assert_int_equal(kvb_instance_init(&in, sizeof in - 8), KVB_EABI);

    /* kvb_instance_gpu checks both structs */
    assert_int_equal(KVB_INSTANCE_INIT(&in), KVB_OK);
    assert_int_equal(kvb_preset_instance_find("g5.xlarge", &in, &e), KVB_OK);
    in.struct_size = 0;
    assert_int_equal(kvb_instance_gpu(&in, &g, &e), KVB_EABI);
    in.struct_size = sizeof in;
    g.struct_size = 0;
    assert_int_equal(kvb_instance_gpu(&in, &g, &e), KVB_EABI);
    /* an instance whose GPU is not a preset */
    assert_int_equal(KVB_GPU_INIT(&g), KVB_OK);
    strcpy(in.gpu_name, "no-such-gpu");
    assert_int_equal(kvb_instance_gpu(&in, &g, &e), KVB_ENOTFOUND);
}

KVB_TESTS(cmocka_unit_test(test_presets_hw_counts),
          cmocka_unit_test(test_presets_hw_gpu_rows),
          cmocka_unit_test(test_presets_hw_names_unique),
          cmocka_unit_test(test_presets_hw_lookup_cuda_names),
          cmocka_unit_test(test_presets_hw_anchor_totals),
          cmocka_unit_test(test_presets_hw_instance_rows),
          cmocka_unit_test(test_presets_hw_instance_examples),
          cmocka_unit_test(test_presets_hw_errors));
