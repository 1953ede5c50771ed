/*
 * presets/checkpoints.c -- quantized checkpoints that exist, per model
 * preset and weight format, so that a remedy that changes the weight
 * format names a repository vLLM can load (AWQ and GPTQ need weights
 * quantized ahead of time).  The rows are data/checkpoints.tsv, which
 * says where each comes from; scripts/gen_presets.py generates
 * kvb__checkpoint_rows from it.  Looked up with
 * kvb_preset_checkpoint_find().
 */
#include "internal.h"
#include "presets/tables.h"

#include <string.h>

size_t kvb_preset_checkpoint_count(void)
{
    return kvb__checkpoint_rows_count;
}

/* Row `index`, or NULL past the end. */
static const kvb__checkpoint_row *row_at(size_t index)
{
    return index < kvb__checkpoint_rows_count ? &kvb__checkpoint_rows[index]
                                              : NULL;
}

const char *kvb_preset_checkpoint_name(size_t index)
{
    const kvb__checkpoint_row *r = row_at(index);
    return r ? r->repo : NULL;
}

const char *kvb_preset_checkpoint_source(size_t index)
{
    const kvb__checkpoint_row *r = row_at(index);
    return r ? r->source : NULL;
}

const char *kvb_preset_checkpoint_model(size_t index)
{
    const kvb__checkpoint_row *r = row_at(index);
    return r ? r->model : NULL;
}

int32_t kvb_preset_checkpoint_method(size_t index)
{
    const kvb__checkpoint_row *r = row_at(index);
    return r ? r->method : -1;
}

kvb_status kvb_preset_checkpoint_find(const char *model, int32_t method,
                                      size_t *index, kvb_error *err)
{
    if (!model || !index)
        return kvb__fail(err, KVB_EINVAL, model ? "index" : "model",
                         "%s is NULL", model ? "index" : "model");
    for (size_t i = 0; i < kvb__checkpoint_rows_count; i++)
        if (kvb__checkpoint_rows[i].method == method &&
            kvb__strcasecmp(kvb__checkpoint_rows[i].model, model) == 0) {
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
    const kvb__checkpoint_row *r = row_at(index);
    return r ? r->published_bytes : 0;
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
