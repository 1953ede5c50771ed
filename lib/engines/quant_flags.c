/*
 * engines/quant_flags.c -- the --dtype / --quantization words vLLM and
 * SGLang share for a storage scheme (both name their quantization methods
 * after vLLM's registry: vllm/model_executor/layers/quantization and
 * sglang/srt/layers/quantization).
 */
#include "internal.h"

void kvb__quant_args(kvb__args *a, int32_t method, bool gguf)
{
    static const struct {
        int32_t method;
        const char *flag, *value;
    } map[] = {
        {KVB_QUANT_FP32, "--dtype", "float32"},
        {KVB_QUANT_FP16, "--dtype", "float16"},
        {KVB_QUANT_BF16, "--dtype", "bfloat16"},
        {KVB_QUANT_FP8, "--quantization", "fp8"},
        {KVB_QUANT_GPTQ_8, "--quantization", "gptq"},
        {KVB_QUANT_GPTQ_4, "--quantization", "gptq"},
        {KVB_QUANT_AWQ_4, "--quantization", "awq"},
        {KVB_QUANT_BNB_4, "--quantization", "bitsandbytes"},
        {KVB_QUANT_MXFP4, "--quantization", "mxfp4"},
        /* since 0.2; W4A16, W8A8 and NVFP4 checkpoints declare their
         * format and vLLM reads it (no flag: compressed-tensors and
         * modelopt_fp4 are both possible for NVFP4) */
        {KVB_QUANT_BNB_8, "--quantization", "bitsandbytes"},
    };
    if (kvb__quant_is_gguf(method)) {
        if (gguf) {
            kvb__arg(a, "--quantization");
            kvb__arg(a, "gguf");
        }
        return;
    }
    for (size_t i = 0; i < KVB__ARRAY_LEN(map); i++)
        if (map[i].method == method) {
            kvb__arg(a, "%s", map[i].flag);
            kvb__arg(a, "%s", map[i].value);
            return;
        }
}
