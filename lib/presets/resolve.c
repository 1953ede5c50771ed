/*
 * presets/resolve.c -- a model name as a user types it, to a preset and
 * the checkpoint's own format (issue 14).  The one place that decides "is
 * this a preset?": an exact preset name or alias keeps the preset's
 * native format; a Hugging Face repository name of a common quantized
 * variant is the base preset plus the format its suffix implies; a near
 * miss gets "did you mean".  Formats of the suffixes:
 *   -AWQ, -AWQ-INT4 (Qwen, hugging-quants): AutoAWQ GEMM, 4 bits, group 128
 *   -GPTQ-Int4 / -GPTQ-Int8 (Qwen): GPTQ, group 128
 *   -FP8-dynamic (RedHatAI, llm-compressor): FP8 weights, one scale per
 *     output channel
 *   -FP8 (Qwen3, DeepSeek): FP8 with 128x128 block scales; from nvidia/
 *     (ModelOpt): one scale per tensor; from zai-org/ (GLM): one scale
 *     per output channel (GLM-4.7-FP8's safetensors total exceeds
 *     GLM-4.7's by 120,600,576, one per output row of every attention,
 *     MLP and expert linear of its 93 layers; 128x128 blocks would be
 *     21,673,920)
 *   -quantized.w4a16 (RedHatAI): compressed-tensors int4, symmetric,
 *     group 128 (w4a16)
 *   -quantized.w8a8 (RedHatAI): int8 weights with a scale per channel
 *   -bnb-4bit (unsloth): bitsandbytes NF4, block 64, double quantization
 *     (its quantization_config sets bnb_4bit_use_double_quant)
 *   -FP4, -NVFP4: NVFP4 (FP4 weights, an FP8 scale per 16)
 * and an Ollama library name (llama3.1:8b) through presets/ollama_tags.c.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* Presets whose checkpoint is not in the model dtype. */
static const struct {
    const char *preset;
    int32_t method;
    int32_t fp8_scale;
    const char *why;
} native[] = {
    {"gpt-oss-20b", KVB_QUANT_MXFP4, 0,
     "openai/gpt-oss-20b ships MXFP4 experts (quantization_config mxfp4)"},
    {"gpt-oss-120b", KVB_QUANT_MXFP4, 0,
     "openai/gpt-oss-120b ships MXFP4 experts (quantization_config mxfp4)"},
    {"DeepSeek-V3", KVB_QUANT_FP8, KVB_FP8_SCALE_BLOCK128,
     "deepseek-ai/DeepSeek-V3 ships FP8 weights with 128x128 block scales"},
    {"DeepSeek-V3.1", KVB_QUANT_FP8, KVB_FP8_SCALE_BLOCK128,
     "deepseek-ai/DeepSeek-V3.1 ships FP8 weights with 128x128 block scales"},
    {"DeepSeek-V3.2-Exp", KVB_QUANT_FP8, KVB_FP8_SCALE_BLOCK128,
     "deepseek-ai/DeepSeek-V3.2-Exp ships FP8 weights with 128x128 block "
     "scales, as DeepSeek-V3"},
    {"Kimi-K2-Instruct", KVB_QUANT_FP8, KVB_FP8_SCALE_BLOCK128,
     "moonshotai/Kimi-K2-Instruct ships FP8 weights with 128x128 block "
     "scales (quantization_config fp8, weight_block_size [128, 128])"},
};

typedef struct suffix {
    const char *text; /* case-insensitive, at the end of the name */
    int32_t method;   /* kvb_quant_method */
    uint32_t group;
    int32_t fp8_scale;
    const char *label;
} suffix;

static const suffix suffixes[] = {
    {"-AWQ-INT4", KVB_QUANT_AWQ_4, 128, 0, "awq-4 (group 128)"},
    {"-AWQ", KVB_QUANT_AWQ_4, 128, 0, "awq-4 (group 128)"},
    {"-GPTQ-Int4", KVB_QUANT_GPTQ_4, 128, 0, "gptq-4 (group 128)"},
    {"-GPTQ-Int8", KVB_QUANT_GPTQ_8, 128, 0, "gptq-8 (group 128)"},
    {"-FP8-dynamic", KVB_QUANT_FP8, 0, KVB_FP8_SCALE_CHANNEL,
     "fp8 (per-channel scales)"},
    {"-FP8", KVB_QUANT_FP8, 0, KVB_FP8_SCALE_BLOCK128,
     "fp8 (128x128 block scales)"},
    {"-quantized.w4a16", KVB_QUANT_W4A16, 128, 0,
     "int4 w4a16 (symmetric, group 128)"},
    {"-quantized.w8a8", KVB_QUANT_W8A8_INT8, 0, KVB_FP8_SCALE_CHANNEL,
     "int8 w8a8 (per-channel scales)"},
    {"-NVFP4", KVB_QUANT_NVFP4, 0, 0, "nvfp4 (e4m3 scale per 16)"},
    {"-FP4", KVB_QUANT_NVFP4, 0, 0, "nvfp4 (e4m3 scale per 16)"},
    {"-bnb-4bit", KVB_QUANT_BNB_4, 0, 0,
     "bnb-4 (NF4, block 64, double quantization)"},
};

/* Suffixes a repository adds to a base model it does not change. */
static const char *const variants[] = {"-Instruct", "-it", "-Chat",
                                       "-Instruct-2507", "-hf"};

static bool ends_with(const char *s, size_t n, const char *tail, size_t *cut)
{
    size_t t = strlen(tail);
    if (t >= n)
        return false;
    for (size_t i = 0; i < t; i++)
        if ((s[n - t + i] | 0x20) != (tail[i] | 0x20))
            return false;
    *cut = n - t;
    return true;
}

static bool has_prefix(const char *s, const char *prefix)
{
    for (; *prefix; s++, prefix++)
        if ((*s | 0x20) != (*prefix | 0x20))
            return false;
    return true;
}

/* The first case-insensitive occurrence of `needle` in `s`, or NULL. */
static const char *find_ci(const char *s, const char *needle)
{
    for (; *s; s++)
        if (has_prefix(s, needle))
            return s;
    return NULL;
}

static const kvb__model_row *find_row(const char *name)
{
    for (size_t i = 0; i < kvb__model_rows_count; i++)
        if (kvb__name_matches(name, kvb__model_rows[i].name,
                              kvb__model_rows[i].aliases))
            return &kvb__model_rows[i];
    return NULL;
}

/* `base` (may carry an org/ prefix and a variant suffix) to a row. */
static const kvb__model_row *find_base(const char *base)
{
    const kvb__model_row *row = find_row(base);
    const char *slash = strrchr(base, '/');
    if (!row && slash)
        row = find_row(slash + 1);
    const char *bare = slash ? slash + 1 : base;
    if (!row && has_prefix(bare, "Meta-")) /* Meta-Llama-3.1-8B-Instruct */
        return find_base(bare + 5);
    /* Mistral puts the variant before the version: Mistral-7B-Instruct-v0.3
     * is Mistral-7B-v0.3, Mixtral-8x7B-Instruct-v0.1 is Mixtral-8x7B-v0.1. */
    const char *infix = find_ci(bare, "-Instruct-v");
    if (!row && infix && strlen(bare) < 256) {
        char buf[256];
        size_t head = (size_t)(infix - bare);
        memcpy(buf, bare, head);
        strcpy(buf + head, infix + strlen("-Instruct"));
        row = find_row(buf);
    }
    for (size_t v = 0; !row && v < KVB__ARRAY_LEN(variants); v++) {
        char buf[256];
        size_t cut = 0, n = strlen(bare);
        if (n >= sizeof buf || !ends_with(bare, n, variants[v], &cut))
            continue;
        memcpy(buf, bare, cut);
        buf[cut] = '\0';
        row = find_row(buf);
    }
    return row;
}

/* Levenshtein distance, case-insensitive, capped for long names. */
static size_t distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b), prev[65], cur[65];
    if (n > 64 || m > 64)
        return (size_t)-1;
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t sub = prev[j - 1] + ((a[i - 1] | 0x20) != (b[j - 1] | 0x20));
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] =
                sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (m + 1) * sizeof prev[0]);
    }
    return prev[m];
}

/* The closest preset name or alias within a few edits, or NULL. */
static const char *nearest(const char *name)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < kvb__model_rows_count; i++) {
        const kvb__model_row *r = &kvb__model_rows[i];
        size_t d = distance(name, r->name);
        if (d < best_d) {
            best_d = d;
            best = r->name;
        }
        for (const char *a = r->aliases; a && *a;) {
            char buf[65];
            size_t len = strcspn(a, ",");
            if (len < sizeof buf) {
                memcpy(buf, a, len);
                buf[len] = '\0';
                d = distance(name, buf);
                if (d < best_d) {
                    best_d = d;
                    best = r->name;
                }
            }
            a += len + (a[len] == ',');
        }
    }
    size_t limit = strlen(name) / 4 > 2 ? strlen(name) / 4 : 2;
    return best_d <= limit ? best : NULL;
}

static void set_native(const kvb__model_row *row, kvb_quant *q, char *note,
                       size_t cap)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(native); i++) {
        if (strcmp(native[i].preset, row->name) != 0)
            continue;
        q->method = native[i].method;
        q->fp8_scale = native[i].fp8_scale;
        if (note && cap)
            snprintf(note, cap, "%s: the checkpoint's own format (%s)",
                     kvb_quant_method_name(q->method), native[i].why);
    }
}

static kvb_status done(const kvb__model_row *row, const kvb_quant *q,
                       kvb_model *model, kvb_quant *quant, kvb_error *err)
{
    size_t index = (size_t)(row - kvb__model_rows);
    kvb_status st = kvb_preset_model_get(index, model, err);
    if (!st && quant)
        kvb__struct_out(q, sizeof *q, quant);
    return st;
}

kvb_status kvb_preset_model_resolve(const char *name, kvb_model *model,
                                    kvb_quant *quant, char *note,
                                    size_t note_cap, kvb_error *err)
{
    kvb__clear(err);
    kvb_status st = kvb__struct_check(model, sizeof(kvb_model), "model", err);
    if (!st && quant)
        st = kvb__struct_check(quant, sizeof(kvb_quant), "quant", err);
    if (st)
        return st;
    if (!name || !*name)
        return kvb__fail(err, KVB_EINVAL, "name",
                         "name is NULL or empty; allowed: a preset or a "
                         "Hugging Face repository name");
    if (note && note_cap)
        note[0] = '\0';
    kvb_quant q;
    KVB__CANNOT_FAIL(kvb_quant_init(&q, sizeof q));
    const kvb__model_row *row = find_row(name);
    if (row) {
        set_native(row, &q, note, note_cap);
        return done(row, &q, model, quant, err);
    }
    const char *preset = NULL;
    st = kvb__ollama_tag_find(name, &preset, &q, note, note_cap, err);
    if (st != KVB_ENOTFOUND)
        return st ? st : done(find_row(preset), &q, model, quant, err);
    size_t n = strlen(name);
    for (size_t i = 0; i < KVB__ARRAY_LEN(suffixes); i++) {
        const suffix *s = &suffixes[i];
        char base[256];
        size_t cut = 0;
        if (n >= sizeof base || !ends_with(name, n, s->text, &cut))
            continue;
        memcpy(base, name, cut);
        base[cut] = '\0';
        row = find_base(base);
        if (!row)
            break;
        q.method = s->method;
        q.group_size = s->group;
        q.fp8_scale = s->fp8_scale;
        bool modelopt =
            n > 7 && (name[0] | 0x20) == 'n' && has_prefix(name, "nvidia/");
        if (q.method == KVB_QUANT_FP8 && modelopt)
            q.fp8_scale = KVB_FP8_SCALE_TENSOR; /* ModelOpt: per tensor */
        bool zai = q.method == KVB_QUANT_FP8 && has_prefix(name, "zai-org/");
        if (zai)
            q.fp8_scale = KVB_FP8_SCALE_CHANNEL; /* GLM: per channel */
        if (note && note_cap)
            snprintf(note, note_cap,
                     "%s is preset %s in %s, the format the repository "
                     "name implies",
                     name, row->name,
                     modelopt && q.method == KVB_QUANT_FP8
                         ? "fp8 (one scale per tensor, ModelOpt)"
                     : zai ? "fp8 (per-channel scales, as zai-org ships it)"
                           : s->label);
        return done(row, &q, model, quant, err);
    }
    row = find_base(name);
    if (row) {
        set_native(row, &q, note, note_cap);
        return done(row, &q, model, quant, err);
    }
    const char *near = nearest(name);
    if (!near && strchr(name, '/'))
        near = nearest(strrchr(name, '/') + 1);
    if (near)
        return kvb__fail(err, KVB_ENOTFOUND, "model",
                         "model (%s) is not a preset; did you mean %s? "
                         "(`kvbudget list models`)",
                         name, near);
    return kvb__fail(err, KVB_ENOTFOUND, "model",
                     "model (%s) is not a preset; allowed: `kvbudget list "
                     "models`, a Hugging Face name of one, or a local "
                     "config.json / model directory / .gguf",
                     name);
}
