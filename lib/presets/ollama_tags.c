/*
 * presets/ollama_tags.c -- an Ollama library name as people type it
 * (`ollama run llama3.1:8b`, `qwen3:30b`, `gpt-oss:20b`,
 * `llama3.1:8b-instruct-q8_0`) to a preset and the GGUF format the tag
 * pulls.  The local Ollama store, read exactly, comes first where a
 * caller has one (the CLI tries ollama://NAME:TAG before this table);
 * this table answers when the model has not been pulled yet.
 *
 * Each row is NAME:SIZE as ollama.com/library lists it, the preset of the
 * same weights, and the quantization of the size tag's default file.
 * Ollama's library publishes most models since mid-2024 as Q4_K_M; some
 * older ones as Q4_0 and the small Llama 3.2 1B as Q8_0; gpt-oss keeps
 * its MXFP4 experts.  Each default below is the one whose computed file
 * size equals the size the library page lists for the tag (GB, decimal;
 * the sizes as ollama.com/library showed them, written down from the
 * pages rather than fetched by a test; llama3.1:8b's 4.9 GB Q4_K_M
 * default is also what devtoolkit.sh/examples/llama/quantization quotes):
 * llama3.1:8b 4.9, :70b 43, :405b 243; llama3.2:1b 1.3 (Q8_0), :3b 2.0;
 * llama3.3:70b 43; qwen2.5:0.5b 0.398, :7b 4.7, :14b 9.0, :32b 20,
 * :72b 47; qwen3:4b 2.6, :8b 5.2, :14b 9.3, :32b 20, :30b 19, :235b 142;
 * qwen2.5-coder:32b 20; qwen3-coder:30b 19; qwq:32b 20; gemma3:1b 0.815,
 * :27b 17; phi4:14b 9.1; deepseek-r1:7b 4.7, :14b 9.0, :32b 20, :70b 43,
 * :671b 404; deepseek-v3:671b 404; mistral:7b 4.1 (Q4_0); mixtral:8x7b
 * 26, :8x22b 80 (Q4_0); mistral-nemo:12b 7.1 (Q4_0); mistral-small:24b
 * 14; mistral-large:123b 73; gpt-oss:20b 14, :120b 65 (MXFP4).
 * Tags whose default is not certain (qwen3:0.6b and :1.7b, gemma2, phi3,
 * deepseek-r1:8b, which Ollama moved from the Llama distill to the
 * Qwen3-8B one) are left out: a name not here is not guessed.
 */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

typedef struct ollama_tag {
    const char *name;   /* NAME:SIZE */
    const char *preset; /* a kvb__model_rows name */
    int32_t method;     /* the default file's kvb_quant_method */
} ollama_tag;

#define KM KVB_QUANT_Q4_K_M
static const ollama_tag tags[] = {
    {"llama3.1:8b", "Llama-3.1-8B", KM},
    {"llama3.1:70b", "Llama-3.1-70B", KM},
    {"llama3.1:405b", "Llama-3.1-405B", KM},
    {"llama3.2:1b", "Llama-3.2-1B", KVB_QUANT_Q8_0},
    {"llama3.2:3b", "Llama-3.2-3B", KM},
    {"llama3.3:70b", "Llama-3.3-70B", KM},
    {"qwen2.5:0.5b", "Qwen2.5-0.5B", KM},
    {"qwen2.5:7b", "Qwen2.5-7B", KM},
    {"qwen2.5:14b", "Qwen2.5-14B", KM},
    {"qwen2.5:32b", "Qwen2.5-32B", KM},
    {"qwen2.5:72b", "Qwen2.5-72B", KM},
    {"qwen3:4b", "Qwen3-4B", KM},
    {"qwen3:8b", "Qwen3-8B", KM},
    {"qwen3:14b", "Qwen3-14B", KM},
    {"qwen3:32b", "Qwen3-32B", KM},
    {"qwen3:30b", "Qwen3-30B-A3B", KM},
    {"qwen3:235b", "Qwen3-235B-A22B", KM},
    {"qwen2.5-coder:32b", "Qwen2.5-Coder-32B", KM},
    {"qwen3-coder:30b", "Qwen3-Coder-30B-A3B", KM},
    {"qwq:32b", "QwQ-32B", KM},
    {"gemma3:1b", "Gemma-3-1B", KM},
    {"gemma3:27b", "Gemma-3-27B", KM},
    {"phi4:14b", "Phi-4", KM},
    {"deepseek-r1:7b", "DeepSeek-R1-Distill-Qwen-7B", KM},
    {"deepseek-r1:14b", "DeepSeek-R1-Distill-Qwen-14B", KM},
    {"deepseek-r1:32b", "DeepSeek-R1-Distill-Qwen-32B", KM},
    {"deepseek-r1:70b", "DeepSeek-R1-Distill-Llama-70B", KM},
    {"deepseek-r1:671b", "DeepSeek-V3", KM},
    {"deepseek-v3:671b", "DeepSeek-V3", KM},
    {"mistral:7b", "Mistral-7B-v0.3", KVB_QUANT_Q4_0},
    {"mixtral:8x7b", "Mixtral-8x7B", KVB_QUANT_Q4_0},
    {"mixtral:8x22b", "Mixtral-8x22B", KVB_QUANT_Q4_0},
    {"mistral-nemo:12b", "Mistral-Nemo-12B", KVB_QUANT_Q4_0},
    {"mistral-small:24b", "Mistral-Small-24B-2501", KM},
    {"mistral-large:123b", "Mistral-Large-2411", KM},
    {"gpt-oss:20b", "gpt-oss-20b", KVB_QUANT_MXFP4},
    {"gpt-oss:120b", "gpt-oss-120b", KVB_QUANT_MXFP4},
};
#undef KM

/* `text` (n bytes) equals `want`, ignoring case. */
static bool same(const char *text, size_t n, const char *want)
{
    if (strlen(want) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)text[i]) != tolower((unsigned char)want[i]))
            return false;
    return true;
}

/* The quantization a tag's last "-" part names ("8b-instruct-q8_0",
 * "70b-fp16"); AUTO when it names none. */
static kvb_status tag_quant(const char *tag, int32_t *method)
{
    const char *dash = strrchr(tag, '-');
    *method = KVB_QUANT_AUTO;
    if (!dash)
        return KVB_OK;
    const char *q = dash + 1;
    if (same(q, strlen(q), "fp16") || same(q, strlen(q), "f16")) {
        *method = KVB_QUANT_FP16;
        return KVB_OK;
    }
    if (tolower((unsigned char)q[0]) != 'q' &&
        tolower((unsigned char)q[0]) != 'i')
        return KVB_OK; /* "instruct", "text": a flavour, not a format */
    return kvb_quant_method_find(q, method, NULL) == KVB_OK ? KVB_OK
                                                            : KVB_EUNSUPPORTED;
}

kvb_status kvb__ollama_tag_find(const char *name, const char **preset,
                                kvb_quant *quant, char *note, size_t cap,
                                kvb_error *err)
{
    const char *colon = strchr(name, ':');
    if (!colon || strchr(name, '/'))
        return KVB_ENOTFOUND;
    /* NAME:SIZE, then an optional -flavour-quant tail */
    const char *tail = strchr(colon, '-');
    size_t n = tail ? (size_t)(tail - name) : strlen(name);
    const ollama_tag *t = NULL;
    for (size_t i = 0; i < KVB__ARRAY_LEN(tags) && !t; i++)
        if (same(name, n, tags[i].name))
            t = &tags[i];
    if (!t)
        return KVB_ENOTFOUND;
    int32_t method;
    if (tag_quant(colon + 1, &method))
        return kvb__fail(err, KVB_EUNSUPPORTED, "name",
                         "%s: the quantization in the tag is not one this "
                         "version sizes; allowed: a q*/iq*/fp16 name of "
                         "`kvbudget list quants`",
                         name);
    bool dflt = method == KVB_QUANT_AUTO;
    quant->method = dflt ? t->method : method;
    *preset = t->preset;
    if (note && cap)
        snprintf(note, cap,
                 "Ollama library tag %.*s: %s at %s%s; pull it (or give "
                 "the GGUF) for the exact file",
                 (int)n, name, t->preset, kvb_quant_method_name(quant->method),
                 dflt ? " (the tag's default file)" : "");
    return KVB_OK;
}
