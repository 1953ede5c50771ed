/*
 * test_check.c -- kvb_check_manifest / kvb_check_fix: the article's
 * Deployment (shared/seed-000_09a2755b7cc95e21.txt: Scout AWQ on a
 * g5.xlarge) and the error paths, through the JSON the library writes.
 */
#include "testing.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char seed[] =
    "apiVersion: apps/v1\n"
    "kind: Deployment\n"
    "metadata:\n"
    "  name: vllm-llama-scout\n"
    "spec:\n"
    "  template:\n"
    "    spec:\n"
    "      nodeSelector:\n"
    "        node.kubernetes.io/instance-type: g5.xlarge\n"
    "      containers:\n"
    "        - name: vllm\n"
    "          image: vllm/vllm-openai:v0.8.5\n"
    "          args:\n"
    "            - --model\n"
    "            - meta-llama/Llama-4-Scout-17B-Instruct-AWQ\n"
    "            # the quantization the checkpoint has\n"
    "            - \" --quantization \"\n"
    "            - awq\n"
    "            - --max_model_len=32768\n"
    "          env:\n"
    "            - name: UTIL\n"
    "              value: \"0.9\"\n"
    "          command: [\"python3\", \"-m\", "
    "\"vllm.entrypoints.openai.api_server\", "
    "\"--gpu-memory-utilization\", \"$(UTIL)\"]\n"
    "          resources:\n"
    "            limits:\n"
    "              nvidia.com/gpu: 1\n";

static json_t *check(const char *text, const kvb_check_options *o)
{
    static char buf[1 << 18];
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_check_manifest(text, strlen(text), "seed.yaml", o, buf,
                                        sizeof buf, NULL, &e),
                     KVB_OK);
    json_t *j = json_loads(buf, 0, NULL);
    assert_non_null(j);
    return j;
}

static void test_check_seed_fails(void **state)
{
    (void)state;
    json_t *j = check(seed, NULL);
    json_t *d = json_array_get(json_object_get(j, "deployments"), 0);
    assert_non_null(d);
    assert_string_equal(json_string_value(json_object_get(d, "verdict")),
                        "fails");
    assert_string_equal(json_string_value(json_object_get(d, "engine_version")),
                        "0.8.5");
    assert_string_equal(json_string_value(json_object_get(d, "instance")),
                        "g5.xlarge");
    json_t *p = json_object_get(d, "plan");
    /* $(UTIL) expanded from env; --max_model_len with an underscore */
    assert_true(json_real_value(json_object_get(p, "gpu_memory_utilization")) ==
                0.9);
    assert_int_equal(json_integer_value(json_object_get(p, "max_model_len")),
                     32768);
    /* the same figure `kvbudget plan` gives for the preset: 59.20 GiB */
    kvb_model m;
    kvb_quant q;
    kvb_gpu g;
    kvb_serving s;
    kvb_plan pl;
    kvb_instance inst;
    assert_int_equal(KVB_MODEL_INIT(&m) | KVB_QUANT_INIT(&q) |
                         KVB_GPU_INIT(&g) | KVB_SERVING_INIT(&s) |
                         KVB_PLAN_INIT(&pl) | KVB_INSTANCE_INIT(&inst),
                     KVB_OK);
    assert_int_equal(kvb_preset_model_find("Llama-4-Scout-17B-16E", &m, NULL),
                     KVB_OK);
    assert_int_equal(kvb_quant_method_find("awq", &q.method, NULL), KVB_OK);
    assert_int_equal(kvb_preset_instance_find("g5.xlarge", &inst, NULL), 0);
    assert_int_equal(kvb_instance_gpu(&inst, &g, NULL), KVB_OK);
    assert_int_equal(
        kvb_engine_parse("vllm@0.8.5", &s.engine, &s.engine_version, NULL),
        KVB_OK);
    s.max_model_len = 32768;
    s.gpu_memory_utilization = 0.9;
    assert_int_equal(kvb_plan_compute(&m, &q, &g, &s, &pl, NULL), KVB_OK);
    assert_int_equal(
        json_integer_value(json_object_get(p, "weights_bytes_per_gpu")),
        (json_int_t)pl.weights_bytes_per_gpu);
    assert_int_equal(pl.verdict, KVB_VERDICT_WEIGHTS_EXCEED);
    /* a fix that fits, with the args edited in place */
    json_t *f = json_array_get(json_object_get(d, "fixes"), 0);
    assert_true(json_is_true(json_object_get(f, "fits")));
    assert_non_null(strstr(json_string_value(json_object_get(d, "patch")),
                           "nvidia.com/gpu: \"4\""));
    json_decref(j);
}

static void test_check_gpu_from_options(void **state)
{
    (void)state;
    static const char pod[] =
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
        "  containers:\n  - name: c\n    image: vllm/vllm-openai:latest\n"
        "    args: [--model, Qwen/Qwen2.5-7B-Instruct, --max-model-len, "
        "'8192']\n    resources: {limits: {nvidia.com/gpu: 1}}\n";
    json_t *j = check(pod, NULL);
    json_t *d = json_array_get(json_object_get(j, "deployments"), 0);
    assert_string_equal(json_string_value(json_object_get(d, "verdict")),
                        "unknown");
    json_decref(j);
    kvb_check_options o;
    assert_int_equal(KVB_CHECK_OPTIONS_INIT(&o), KVB_OK);
    assert_int_equal(o.max_fixes, 3);
    strcpy(o.gpu, "L4");
    j = check(pod, &o);
    d = json_array_get(json_object_get(j, "deployments"), 0);
    assert_string_equal(json_string_value(json_object_get(d, "verdict")),
                        "fits");
    json_decref(j);
}

static void test_check_errors(void **state)
{
    (void)state;
    char buf[64];
    size_t need = 0;
    kvb_error e = KVB_ERROR_INIT;
    static const char bad[] = "kind: Deployment\nspec: [a, b\nx: y\n";
    assert_int_equal(kvb_check_manifest(bad, strlen(bad), NULL, NULL, buf,
                                        sizeof buf, NULL, &e),
                     KVB_EPARSE);
    assert_int_equal(e.line, 3);
    assert_non_null(strstr(e.message, "invalid YAML at line 3"));
    /* too small a buffer: EBUFSIZE and the size needed */
    assert_int_equal(kvb_check_manifest(seed, strlen(seed), NULL, NULL, buf,
                                        sizeof buf, &need, NULL),
                     KVB_EBUFSIZE);
    assert_true(need > sizeof buf);
    assert_int_equal(strlen(buf), sizeof buf - 1);
    kvb_check_options o;
    assert_int_equal(KVB_CHECK_OPTIONS_INIT(&o), KVB_OK);
    o.max_fixes = 33;
    assert_int_equal(
        kvb_check_manifest(seed, strlen(seed), NULL, &o, NULL, 0, &need, &e),
        KVB_ERANGE);
    o.max_fixes = 1;
    strcpy(o.gpu, "no-such-gpu");
    assert_int_equal(
        kvb_check_manifest(seed, strlen(seed), NULL, &o, NULL, 0, &need, &e),
        KVB_ENOTFOUND);
    o.struct_size = 3;
    assert_int_equal(
        kvb_check_manifest(seed, strlen(seed), NULL, &o, NULL, 0, &need, &e),
        KVB_EABI);
}

static void test_check_fix_edits(void **state)
{
    (void)state;
    static char buf[1 << 16];
    uint32_t changed = 0;
    assert_int_equal(kvb_check_fix(seed, strlen(seed), NULL, buf, sizeof buf,
                                   NULL, &changed, NULL),
                     KVB_OK);
    assert_int_equal(changed, 1);
    /* the same family first (issue 17): g5.xlarge -> g5.12xlarge */
    assert_non_null(strstr(buf, "instance-type: \"g5.12xlarge\""));
    assert_non_null(strstr(buf, "- \"--tensor-parallel-size\"\n"));
    assert_non_null(strstr(buf, "nvidia.com/gpu: \"4\""));
    /* the fixed manifest fits */
    json_t *j = check(buf, NULL);
    json_t *d = json_array_get(json_object_get(j, "deployments"), 0);
    assert_string_equal(json_string_value(json_object_get(d, "verdict")),
                        "fits");
    json_decref(j);
}

KVB_TESTS(cmocka_unit_test(test_check_seed_fails),
          cmocka_unit_test(test_check_gpu_from_options),
          cmocka_unit_test(test_check_errors),
          cmocka_unit_test(test_check_fix_edits));
