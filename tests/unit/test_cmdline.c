/*
 * test_cmdline.c -- engine command lines read into serving settings: the
 * engine found from the program, both flag spellings, underscores, the
 * environment, ignored and unknown flags, and shell-string splitting.
 * The commands are the ones vLLM's docs show (docs.vllm.ai, "OpenAI-
 * Compatible Server" and "Using Kubernetes": `vllm serve MODEL --flags`
 * and `python3 -m vllm.entrypoints.openai.api_server --model MODEL`).
 */
#include "testing.h"

#include <string.h>

typedef struct read_result {
    kvb_status st;
    kvb_command cmd;
    kvb_serving s;
    kvb_error err;
} read_result;

static read_result read_argv(size_t argc, const char *const *argv,
                             const char *const *env, int32_t hint)
{
    read_result r;
    memset(&r, 0, sizeof r);
    kvb_error fresh = KVB_ERROR_INIT;
    r.err = fresh;
    assert_int_equal(KVB_COMMAND_INIT(&r.cmd), KVB_OK);
    assert_int_equal(KVB_SERVING_INIT(&r.s), KVB_OK);
    r.st = kvb_command_read(argc, argv, env, hint, &r.cmd, &r.s, &r.err);
    return r;
}

static void test_cmdline_vllm_serve(void **state)
{
    (void)state;
    const char *argv[] = {"vllm",
                          "serve",
                          "meta-llama/Llama-3.1-8B-Instruct",
                          "--max-model-len",
                          "16384",
                          "--gpu-memory-utilization=0.85",
                          "--tensor_parallel_size",
                          "2",
                          "--enforce-eager",
                          "--kv-cache-dtype",
                          "fp8",
                          "--port",
                          "8000",
                          "--trust-remote-code"};
    read_result r = read_argv(KVB__ARRAY_LEN(argv), argv, NULL, -1);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.cmd.engine, KVB_ENGINE_VLLM);
    assert_string_equal(r.cmd.program, "vllm serve");
    assert_string_equal(r.cmd.model, "meta-llama/Llama-3.1-8B-Instruct");
    assert_int_equal(r.s.max_model_len, 16384);
    assert_true(r.s.gpu_memory_utilization == 0.85);
    assert_int_equal(r.s.tensor_parallel_size, 2);
    assert_int_equal(r.s.enforce_eager, 1);
    assert_string_equal(r.cmd.kv_cache_dtype, "fp8");
    assert_string_equal(r.cmd.ignored, "--port, --trust-remote-code");
    assert_int_equal(r.s.engine, KVB_ENGINE_VLLM);
}

/* A hybrid's own flags are vLLM's (vllm/config/cache.py), so a real
 * command with them is read, and they are listed as not used: the plan
 * takes each release's default mamba_cache_mode. */
static void test_cmdline_vllm_hybrid_flags(void **state)
{
    (void)state;
    const char *argv[] = {"vllm",
                          "serve",
                          "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
                          "--mamba-ssm-cache-dtype",
                          "float32",
                          "--mamba-cache-mode=align",
                          "--enable-prefix-caching",
                          "--max-model-len",
                          "131072"};
    read_result r = read_argv(KVB__ARRAY_LEN(argv), argv, NULL, -1);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.s.max_model_len, 131072);
    assert_string_equal(r.cmd.ignored, "--mamba-ssm-cache-dtype, "
                                       "--mamba-cache-mode, "
                                       "--enable-prefix-caching");
}

static void test_cmdline_python_module_and_env(void **state)
{
    (void)state;
    const char *argv[] = {"/usr/bin/python3",
                          "-m",
                          "vllm.entrypoints.openai.api_server",
                          "--model",
                          "Qwen/Qwen2.5-7B-Instruct",
                          "--no-enable-chunked-prefill"};
    const char *env[] = {"HOME=/root", "VLLM_USE_V1=0", NULL};
    read_result r = read_argv(KVB__ARRAY_LEN(argv), argv, env, -1);
    assert_int_equal(r.st, KVB_OK);
    assert_string_equal(r.cmd.program,
                        "python3 -m vllm.entrypoints.openai.api_server");
    assert_string_equal(r.cmd.model, "Qwen/Qwen2.5-7B-Instruct");
    assert_int_equal(r.s.accounting, KVB_ACCOUNTING_VLLM_V0);
    assert_int_equal(r.s.enable_chunked_prefill, 0);
}

static void test_cmdline_flags_only_with_hint(void **state)
{
    (void)state;
    /* a container of the vllm/vllm-openai image: its entrypoint is the
     * server, args are flags only */
    const char *argv[] = {"--model", "facebook/opt-125m", "--block-size",
                          "32",      "--kv-cache-memory", "8GiB"};
    read_result r =
        read_argv(KVB__ARRAY_LEN(argv), argv, NULL, KVB_ENGINE_VLLM);
    assert_int_equal(r.st, KVB_OK);
    assert_string_equal(r.cmd.model, "facebook/opt-125m");
    assert_int_equal(r.s.block_size, 32);
    assert_int_equal(r.s.kv_cache_memory_bytes, 8 * GIB);
}

static void test_cmdline_errors(void **state)
{
    (void)state;
    const char *unknown[] = {"vllm", "serve", "m", "--max-modle-len", "8"};
    read_result r = read_argv(5, unknown, NULL, -1);
    assert_int_equal(r.st, KVB_EINVAL);
    assert_string_equal(r.err.field, "command");
    assert_non_null(strstr(r.err.message,
                           "unknown flag --max-modle-len: not a flag of vLLM"));

    /* argparse's abbreviations: a unique prefix names its flag (the
     * KubeAI benchmark manifest passes --max-num-batched-token), an
     * ambiguous one (--max-num: -seqs or -batched-tokens) none */
    const char *abbrev[] = {"vllm", "serve", "m", "--max-num-batched-token",
                            "4096"};
    r = read_argv(5, abbrev, NULL, -1);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.s.max_num_batched_tokens, 4096);
    const char *ambiguous[] = {"vllm", "serve", "m", "--max-num", "4"};
    r = read_argv(5, ambiguous, NULL, -1);
    assert_int_equal(r.st, KVB_EINVAL);

    const char *missing[] = {"vllm", "serve", "m", "--max-model-len"};
    r = read_argv(4, missing, NULL, -1);
    assert_int_equal(r.st, KVB_EINVAL);
    assert_non_null(strstr(r.err.message, "needs a value"));

    const char *hexa[] = {"vllm", "serve", "m", "--gpu-memory-utilization",
                          "0x1p-1"};
    r = read_argv(5, hexa, NULL, -1);
    assert_int_equal(r.st, KVB_EINVAL);

    const char *big[] = {"vllm", "serve", "m", "--gpu-memory-utilization",
                         "1.5"};
    r = read_argv(5, big, NULL, -1);
    assert_int_equal(r.st, KVB_ERANGE);

    const char *other[] = {"nginx", "-g", "daemon off;"};
    r = read_argv(3, other, NULL, -1);
    assert_int_equal(r.st, KVB_ENOTFOUND);
}

static void test_cmdline_split(void **state)
{
    (void)state;
    char buf[256];
    const char *argv[16];
    size_t argc = 0;
    const char *line = "vllm serve \"my model\" --max-model-len 8192 \\\n"
                       "  --served-model-name 'a b' && echo done";
    assert_int_equal(
        kvb_command_split(line, buf, sizeof buf, argv, 16, &argc, NULL),
        KVB_OK);
    assert_int_equal(argc, 7);
    assert_string_equal(argv[2], "my model");
    assert_string_equal(argv[4], "8192");
    assert_string_equal(argv[6], "a b");
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(
        kvb_command_split("vllm 'open", buf, sizeof buf, argv, 16, &argc, &e),
        KVB_EINVAL);
    assert_int_equal(kvb_command_split(line, buf, 8, argv, 16, &argc, NULL),
                     KVB_EBUFSIZE);
}

/* vLLM's multimodal flags (engines/vllm.c): --limit-mm-per-prompt in its
 * JSON, key=value and dotted spellings (vLLM's docs and recipes show all
 * three: '{"image": 0, "video": 0}', image=4,video=0,
 * --limit-mm-per-prompt.image 0), --language-model-only and
 * --mm-encoder-tp-mode (PR #23190) or its older bare spelling (PR #18368). */
static void test_cmdline_vllm_multimodal(void **state)
{
    (void)state;
    const char *json[] = {"vllm",
                          "serve",
                          "Qwen/Qwen2.5-VL-7B-Instruct",
                          "--limit-mm-per-prompt",
                          "{\"image\": 0, \"video\": 0}",
                          "--mm-encoder-tp-mode",
                          "data"};
    read_result r = read_argv(KVB__ARRAY_LEN(json), json, NULL, -1);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.s.mm_disabled, KVB_MM_IMAGE | KVB_MM_VIDEO);
    assert_int_equal(r.s.mm_encoder_tp_mode, 1);
    assert_string_equal(r.cmd.ignored, "");
    const char *kv[] = {"vllm", "serve", "google/gemma-3-12b-it",
                        "--limit-mm-per-prompt", "image=4,video=0"};
    r = read_argv(KVB__ARRAY_LEN(kv), kv, NULL, -1);
    assert_int_equal(r.s.mm_disabled, KVB_MM_VIDEO);
    const char *dotted[] = {"vllm",
                            "serve",
                            "Qwen/Qwen3-VL-8B-Instruct",
                            "--limit-mm-per-prompt.image",
                            "0",
                            "--limit-mm-per-prompt.video=0"};
    r = read_argv(KVB__ARRAY_LEN(dotted), dotted, NULL, -1);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.s.mm_disabled, KVB_MM_IMAGE | KVB_MM_VIDEO);
    const char *lm[] = {"vllm", "serve", "Qwen/Qwen3-VL-8B-Instruct",
                        "--language-model-only",
                        "--enable-multimodal-encoder-data-parallel"};
    r = read_argv(KVB__ARRAY_LEN(lm), lm, NULL, -1);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.s.mm_disabled, KVB_MM_ALL);
    assert_int_equal(r.s.mm_encoder_tp_mode, 1);
    const char *bad[] = {"vllm", "serve", "m", "--mm-encoder-tp-mode",
                         "pipeline"};
    r = read_argv(KVB__ARRAY_LEN(bad), bad, NULL, -1);
    assert_int_equal(r.st, KVB_EPARSE);
    assert_string_equal(r.err.field, "serving.mm_encoder_tp_mode");
}

KVB_TESTS(cmocka_unit_test(test_cmdline_vllm_serve),
          cmocka_unit_test(test_cmdline_vllm_multimodal),
          cmocka_unit_test(test_cmdline_vllm_hybrid_flags),
          cmocka_unit_test(test_cmdline_python_module_and_env),
          cmocka_unit_test(test_cmdline_flags_only_with_hint),
          cmocka_unit_test(test_cmdline_errors),
          cmocka_unit_test(test_cmdline_split));
