/*
 * presets/checkpoints.c -- quantized checkpoints that exist, per model
 * preset and weight format, so that a remedy that changes the weight
 * format names a repository vLLM can load instead of the base repository
 * with --quantization awq|gptq (which vLLM refuses: AWQ and GPTQ need
 * weights quantized ahead of time).  FP8 and bitsandbytes also quantize
 * on the fly from the base repository; their rows are the published
 * checkpoints, which load faster and were calibrated.
 *
 * Each row: model preset, kvb_quant_method, Hugging Face repository, and
 * the source that shows the repository exists and what it holds.  Most
 * checkpoints are of the Instruct model: the same architecture, so the
 * same bytes, as the preset.  Looked up with kvb_preset_checkpoint_find().
 */
#include "internal.h"

#include <string.h>

typedef struct checkpoint_row {
    const char *model; /* a model preset name */
    int32_t method;    /* kvb_quant_method */
    const char *repo;  /* Hugging Face repository */
    const char *source;
    /* The repository's published size in bytes, 0 where none was found:
     * model.safetensors.index.json's total_size (tensor bytes) where
     * public, else the sum of its shards as the Hub's file list prints
     * them (to 10 MB, headers included).  tests/unit/test_quant.c holds
     * the inventory to 0.5% of each. */
    uint64_t published_bytes;
} checkpoint_row;

#define HQ_COLLECTION                                                          \
    "huggingface.co/collections/hugging-quants (Llama 3.1 AWQ/GPTQ INT4, "     \
    "Aug 2024)"
#define QWEN25_COLLECTION                                                      \
    "huggingface.co/collections/Qwen/qwen25 (official AWQ, GPTQ-Int4 and "     \
    "GPTQ-Int8 of every Qwen2.5 Instruct size, Sep 2024)"

static const checkpoint_row rows[] = {
    /* ---- Llama 3.1 (hugging-quants: AutoAWQ / AutoGPTQ, group 128) ---- */
    {"Llama-3.1-8B", KVB_QUANT_AWQ_4,
     "hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4",
     HQ_COLLECTION "; its file list: shards 4.68 + 1.05 GB", 5730000000ull},
    {"Llama-3.1-8B", KVB_QUANT_GPTQ_4,
     "hugging-quants/Meta-Llama-3.1-8B-Instruct-GPTQ-INT4", HQ_COLLECTION, 0},
    {"Llama-3.1-8B", KVB_QUANT_FP8, "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8",
     "huggingface.co/RedHatAI (formerly neuralmagic) model list; "
     "github:phatvo9/benchmark_gpu Readme.md FP8 table",
     0},
    {"Llama-3.1-70B", KVB_QUANT_AWQ_4,
     "hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4",
     HQ_COLLECTION "; huggingface.co/hugging-quants/"
                   "Meta-Llama-3.1-70B-Instruct-AWQ-INT4 commit 6c1e235",
     0},
    {"Llama-3.1-70B", KVB_QUANT_GPTQ_4,
     "hugging-quants/Meta-Llama-3.1-70B-Instruct-GPTQ-INT4", HQ_COLLECTION, 0},
    {"Llama-3.1-70B", KVB_QUANT_FP8, "RedHatAI/Meta-Llama-3.1-70B-Instruct-FP8",
     "huggingface.co/RedHatAI (formerly neuralmagic) model list", 0},
    {"Llama-3.1-405B", KVB_QUANT_AWQ_4,
     "hugging-quants/Meta-Llama-3.1-405B-Instruct-AWQ-INT4", HQ_COLLECTION, 0},
    {"Llama-3.1-405B", KVB_QUANT_GPTQ_4,
     "hugging-quants/Meta-Llama-3.1-405B-Instruct-GPTQ-INT4", HQ_COLLECTION, 0},
    {"Llama-3.1-405B", KVB_QUANT_FP8, "meta-llama/Llama-3.1-405B-Instruct-FP8",
     "Meta's own FP8 release (huggingface.co/meta-llama); served with "
     "vllm --tensor-parallel-size 8 in github:Mikeriess/Synth_data "
     "run_vllm.sh",
     0},
    /* ---- Llama 4 Scout (Red Hat AI, llm-compressor) ---- */
    {"Llama-4-Scout-17B-16E", KVB_QUANT_FP8,
     "RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic",
     "Red Hat AI Inference Server validated models (modelcar "
     "llama-4-scout-17b-16e-instruct-fp8-dynamic)",
     0},
    {"Llama-4-Scout-17B-16E", KVB_QUANT_GPTQ_4,
     "RedHatAI/Llama-4-Scout-17B-16E-Instruct-quantized.w4a16",
     "Red Hat AI Inference Server validated models; INT4 weights, group "
     "128 (GPTQ via llm-compressor, compressed-tensors format)",
     0},
    /* ---- Qwen2.5 (the Qwen team's own quantizations) ---- */
    {"Qwen2.5-7B", KVB_QUANT_AWQ_4, "Qwen/Qwen2.5-7B-Instruct-AWQ",
     QWEN25_COLLECTION "; shards 4.48 + 1.09 GB as byte-identical "
                       "re-uploads list them",
     5570000000ull},
    {"Qwen2.5-7B", KVB_QUANT_GPTQ_4, "Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4",
     QWEN25_COLLECTION, 0},
    {"Qwen2.5-7B", KVB_QUANT_GPTQ_8, "Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8",
     QWEN25_COLLECTION, 0},
    {"Qwen2.5-14B", KVB_QUANT_AWQ_4, "Qwen/Qwen2.5-14B-Instruct-AWQ",
     QWEN25_COLLECTION, 0},
    {"Qwen2.5-14B", KVB_QUANT_GPTQ_4, "Qwen/Qwen2.5-14B-Instruct-GPTQ-Int4",
     QWEN25_COLLECTION, 0},
    {"Qwen2.5-14B", KVB_QUANT_GPTQ_8, "Qwen/Qwen2.5-14B-Instruct-GPTQ-Int8",
     QWEN25_COLLECTION, 0},
    {"Qwen2.5-32B", KVB_QUANT_AWQ_4, "Qwen/Qwen2.5-32B-Instruct-AWQ",
     QWEN25_COLLECTION, 0},
    {"Qwen2.5-32B", KVB_QUANT_GPTQ_4, "Qwen/Qwen2.5-32B-Instruct-GPTQ-Int4",
     QWEN25_COLLECTION, 0},
    {"Qwen2.5-32B", KVB_QUANT_GPTQ_8, "Qwen/Qwen2.5-32B-Instruct-GPTQ-Int8",
     QWEN25_COLLECTION, 0},
    {"Qwen2.5-72B", KVB_QUANT_AWQ_4, "Qwen/Qwen2.5-72B-Instruct-AWQ",
     QWEN25_COLLECTION "; served with vllm/vllm-openai:v0.6.3 "
                       "--tensor-parallel-size 2 in public deployment notes",
     0},
    {"Qwen2.5-72B", KVB_QUANT_GPTQ_4, "Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4",
     QWEN25_COLLECTION "; its intermediate_size is padded to 29696 so that "
                       "TP 2 splits whole groups",
     0},
    {"Qwen2.5-72B", KVB_QUANT_GPTQ_8, "Qwen/Qwen2.5-72B-Instruct-GPTQ-Int8",
     QWEN25_COLLECTION, 0},
    /* ---- Qwen3, Gemma 3 (Red Hat AI FP8-dynamic) ---- */
    {"Qwen3-32B", KVB_QUANT_FP8, "RedHatAI/Qwen3-32B-FP8-dynamic",
     "github:phatvo9/benchmark_gpu Readme.md FP8 table", 0},
    {"Qwen3-30B-A3B", KVB_QUANT_FP8, "RedHatAI/Qwen3-30B-A3B-FP8-dynamic",
     "github:phatvo9/benchmark_gpu Readme.md FP8 table", 0},
    {"Gemma-3-27B", KVB_QUANT_FP8, "RedHatAI/gemma-3-27b-it-FP8-dynamic",
     "github:phatvo9/benchmark_gpu Readme.md FP8 table", 0},
};

size_t kvb_preset_checkpoint_count(void)
{
    return KVB__ARRAY_LEN(rows);
}

const char *kvb_preset_checkpoint_name(size_t index)
{
    return index < KVB__ARRAY_LEN(rows) ? rows[index].repo : NULL;
}

const char *kvb_preset_checkpoint_source(size_t index)
{
    return index < KVB__ARRAY_LEN(rows) ? rows[index].source : NULL;
}

const char *kvb_preset_checkpoint_model(size_t index)
{
    return index < KVB__ARRAY_LEN(rows) ? rows[index].model : NULL;
}

int32_t kvb_preset_checkpoint_method(size_t index)
{
    return index < KVB__ARRAY_LEN(rows) ? rows[index].method : -1;
}

kvb_status kvb_preset_checkpoint_find(const char *model, int32_t method,
                                      size_t *index, kvb_error *err)
{
    if (!model || !index)
        return kvb__fail(err, KVB_EINVAL, model ? "index" : "model",
                         "%s is NULL", model ? "index" : "model");
    for (size_t i = 0; i < KVB__ARRAY_LEN(rows); i++)
        if (rows[i].method == method &&
            kvb__strcasecmp(rows[i].model, model) == 0) {
            *index = i;
            return KVB_OK;
        }
    const char *name = kvb_quant_method_name(method);
    return kvb__fail(err, KVB_ENOTFOUND, "model",
                     "model (%s) has no known %s checkpoint; allowed: a "
                     "row of `kvbudget list checkpoints`",
                     model, name ? name : "?");
}

uint64_t kvb__checkpoint_published_bytes(size_t index)
{
    return index < KVB__ARRAY_LEN(rows) ? rows[index].published_bytes : 0;
}

/* The tool that makes a checkpoint of `method` from the base weights. */
const char *kvb__quant_tool(int32_t method)
{
    switch (method) {
    case KVB_QUANT_AWQ_4: return "llm-compressor (AWQModifier) or AutoAWQ";
    case KVB_QUANT_GPTQ_4:
    case KVB_QUANT_GPTQ_8: return "llm-compressor (GPTQModifier) or GPTQModel";
    case KVB_QUANT_FP8:
        return "vLLM itself (--quantization fp8 quantizes on load) or "
               "llm-compressor (FP8_DYNAMIC)";
    case KVB_QUANT_BNB_4:
        return "vLLM itself (--quantization bitsandbytes quantizes on load)";
    case KVB_QUANT_W4A16:
    case KVB_QUANT_W8A8_INT8:
        return "llm-compressor (GPTQModifier, scheme W4A16 or W8A8)";
    case KVB_QUANT_NVFP4:
        return "NVIDIA ModelOpt (NVFP4) or llm-compressor (scheme NVFP4)";
    default:
        return kvb__quant_is_gguf(method)
                   ? "llama.cpp's convert_hf_to_gguf.py and llama-quantize"
                   : NULL;
    }
}
