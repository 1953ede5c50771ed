/*
 * readers/quant_config.c -- config.json's quantization_config into kvb_quant.
 * Shapes per method: ../shared/data/quant_formats.md §3-7 (AWQ GEMM,
 * GPTQ, FP8 per-tensor / per-channel / 128x128 blocks, compressed-tensors
 * config_groups, bitsandbytes NF4, MXFP4).  A method this version cannot
 * size is KVB_EUNSUPPORTED naming quant_method, never a silent guess.
 */
#include "internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct qcfg {
    kvb__reader *r;
    const char *outer;  /* "text_config" when the config is nested, or NULL */
    json_t *qc;         /* quantization_config */
    const char *name;   /* its key in the root object */
    const char *sub;    /* a nested object's key ("weights"), or NULL */
    const char *subsub; /* the group inside config_groups, or NULL */
} qcfg;

static kvb_status qfail(qcfg *q, kvb_status st, const char *key,
                        const char *fmt, ...) KVB__PRINTF(4, 5);

static kvb_status qfail(qcfg *q, kvb_status st, const char *key,
                        const char *fmt, ...)
{
    char text[256], field[64];
    const char *path[6];
    size_t n = 0;
    if (q->outer)
        path[n++] = q->outer;
    path[n++] = q->name;
    if (q->subsub) {
        path[n++] = "config_groups";
        path[n++] = q->subsub;
    }
    if (q->sub)
        path[n++] = q->sub;
    if (key)
        path[n++] = key;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(field, sizeof field, "%s%s%s", q->name, key ? "." : "",
             key ? key : "");
    return kvb__json_fail(q->r, st, path, n, field, "%s", text);
}

static void qmark(qcfg *q, int field, const char *key)
{
    const char *path[3] = {q->outer, q->name, key};
    int64_t pos[3] = {-1, -1, -1};
    if (q->outer)
        kvb__json_locate(q->r, path, 3, pos);
    else
        kvb__json_locate(q->r, path + 1, 2, pos);
    kvb__read_mark(q->r, field, pos[0], pos[1], pos[2]);
}

/* An integer member; *found false when absent or null. */
static kvb_status qint(qcfg *q, json_t *obj, const char *key, int64_t *out,
                       bool *found)
{
    json_t *v = json_object_get(obj, key);
    *found = v && !json_is_null(v);
    if (!*found)
        return KVB_OK;
    if (!json_is_integer(v))
        return qfail(q, KVB_EPARSE, key, "%s.%s is not an integer", q->name,
                     key);
    *out = json_integer_value(v);
    return KVB_OK;
}

static bool qtrue(json_t *obj, const char *key)
{
    return json_is_true(json_object_get(obj, key));
}

static const char *qstr(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* group_size: -1 means one group per row, stored as 0. */
static kvb_status group_size(qcfg *q, json_t *obj, const char *key)
{
    int64_t g = 0;
    bool found = false;
    kvb_status st = qint(q, obj, key, &g, &found);
    if (st || !found)
        return st;
    if (g < -1 || g > 65536)
        return qfail(q, KVB_ERANGE, key,
                     "%s.%s (%lld) is out of range; allowed: -1 (per row) "
                     "or 1..65536",
                     q->name, key, (long long)g);
    q->r->quant.group_size = g < 0 ? 0u : (uint32_t)g;
    if (!q->sub)
        qmark(q, KVB_READ_FIELD_QUANT_GROUP_SIZE, key);
    else
        kvb__read_mark(q->r, KVB_READ_FIELD_QUANT_GROUP_SIZE, -1, -1, -1);
    return KVB_OK;
}

static kvb_status bits(qcfg *q, json_t *obj, const char *key, int64_t *b)
{
    bool found = false;
    kvb_status st = qint(q, obj, key, b, &found);
    if (!st && !found)
        return qfail(q, KVB_EPARSE, key, "%s.%s is missing", q->name, key);
    return st;
}

static kvb_status awq(qcfg *q)
{
    int64_t b = 4;
    bool found = false;
    kvb_status st = qint(q, q->qc, "bits", &b, &found);
    if (!st && !found)
        st = qint(q, q->qc, "w_bit", &b, &found);
    if (!st && b != 4)
        return qfail(q, KVB_EUNSUPPORTED, "bits",
                     "%s.bits (%lld) is not supported for awq; allowed: 4",
                     q->name, (long long)b);
    if (!st)
        st = group_size(q, q->qc,
                        json_object_get(q->qc, "q_group_size") ? "q_group_size"
                                                               : "group_size");
    const char *v = qstr(q->qc, "version");
    if (!st && v && kvb__strcasecmp(v, "gemm") != 0)
        kvb__read_warn(q->r,
                       "awq version %s is sized as gemm (same bytes "
                       "to within the packing)",
                       v);
    q->r->quant.method = KVB_QUANT_AWQ_4;
    return st;
}

static kvb_status gptq(qcfg *q)
{
    int64_t b = 0;
    kvb_status st = bits(q, q->qc, "bits", &b);
    if (!st && b != 4 && b != 8)
        return qfail(q, KVB_EUNSUPPORTED, "bits",
                     "%s.bits (%lld) is not supported for gptq; allowed: 4, "
                     "8",
                     q->name, (long long)b);
    if (!st)
        st = group_size(q, q->qc, "group_size");
    if (!st && qtrue(q->qc, "desc_act")) {
        q->r->quant.flags |= KVB_QUANT_DESC_ACT;
        qmark(q, KVB_READ_FIELD_QUANT_FLAGS, "desc_act");
    }
    q->r->quant.method = b == 8 ? KVB_QUANT_GPTQ_8 : KVB_QUANT_GPTQ_4;
    return st;
}

/* [128, 128] blocks; anything else is a layout the model does not have. */
static kvb_status block128(qcfg *q, json_t *obj, const char *key)
{
    json_t *b = json_object_get(obj, key);
    if (json_array_size(b) == 2 &&
        json_integer_value(json_array_get(b, 0)) == 128 &&
        json_integer_value(json_array_get(b, 1)) == 128) {
        q->r->quant.fp8_scale = KVB_FP8_SCALE_BLOCK128;
        return KVB_OK;
    }
    return qfail(q, KVB_EUNSUPPORTED, key,
                 "%s.%s is not [128, 128]; allowed: 128x128 blocks", q->name,
                 key);
}

static kvb_status fp8(qcfg *q)
{
    kvb_status st = KVB_OK;
    q->r->quant.fp8_scale = KVB_FP8_SCALE_TENSOR; /* AutoFP8: one scale */
    if (json_object_get(q->qc, "weight_block_size") &&
        !json_is_null(json_object_get(q->qc, "weight_block_size")))
        st = block128(q, q->qc, "weight_block_size");
    q->r->quant.method = KVB_QUANT_FP8;
    kvb__read_mark(q->r, KVB_READ_FIELD_QUANT_FP8_SCALE, -1, -1, -1);
    return st;
}

static kvb_status ct_float8(qcfg *q, json_t *w)
{
    const char *s = qstr(w, "strategy");
    q->r->quant.method = KVB_QUANT_FP8;
    kvb__read_mark(q->r, KVB_READ_FIELD_QUANT_FP8_SCALE, -1, -1, -1);
    if (!s || strcmp(s, "tensor") == 0) {
        q->r->quant.fp8_scale = KVB_FP8_SCALE_TENSOR;
        return KVB_OK;
    }
    if (strcmp(s, "channel") == 0) {
        q->r->quant.fp8_scale = KVB_FP8_SCALE_CHANNEL;
        return KVB_OK;
    }
    if (strcmp(s, "block") == 0)
        return block128(q, w, "block_structure");
    return qfail(q, KVB_EUNSUPPORTED, "strategy",
                 "fp8 weights with strategy %s are not supported; allowed: "
                 "tensor, channel, block",
                 s);
}

/* 4-bit floats: NVFP4 (format nvfp4-pack-quantized; e2m1 with an e4m3
 * scale per 16 and a global FP32 scale, strategy tensor_group). */
static kvb_status ct_float4(qcfg *q, json_t *w)
{
    int64_t g = 16;
    bool found = false;
    kvb_status st = qint(q, w, "group_size", &g, &found);
    if (!st && g != 16)
        return qfail(q, KVB_EUNSUPPORTED, "group_size",
                     "4-bit float weights with group_size %lld are not "
                     "supported; allowed: 16 (NVFP4)",
                     (long long)g);
    q->r->quant.method = KVB_QUANT_NVFP4;
    return st;
}

/* W4A16 (format pack-quantized): symmetric int4 with a scale per group or
 * per channel; actorder "group" adds weight_g_idx. */
static kvb_status ct_int4(qcfg *q, json_t *w)
{
    const char *s = qstr(w, "strategy");
    const char *order = qstr(w, "actorder");
    q->r->quant.method = KVB_QUANT_W4A16;
    if (json_is_false(json_object_get(w, "symmetric")))
        kvb__read_warn(q->r, "compressed-tensors int4 is asymmetric: its "
                             "packed zero points (one per group) are not "
                             "counted");
    if (order && strcmp(order, "group") == 0) {
        q->r->quant.flags |= KVB_QUANT_DESC_ACT;
        kvb__read_mark(q->r, KVB_READ_FIELD_QUANT_FLAGS, -1, -1, -1);
    }
    if (s && strcmp(s, "channel") == 0) {
        q->r->quant.group_size = 0;
        kvb__read_mark(q->r, KVB_READ_FIELD_QUANT_GROUP_SIZE, -1, -1, -1);
        return KVB_OK;
    }
    return group_size(q, w, "group_size");
}

/* compressed-tensors: the weights scheme of the first config group. */
static kvb_status compressed(qcfg *q)
{
    json_t *groups = json_object_get(q->qc, "config_groups");
    const char *gname = NULL;
    json_t *g = NULL;
    if (json_is_object(groups) && json_object_size(groups) > 0) {
        void *it = json_object_iter(groups);
        gname = json_object_iter_key(it);
        g = json_object_iter_value(it);
    }
    json_t *w = json_object_get(g, "weights");
    if (!json_is_object(w))
        return qfail(q, KVB_EPARSE, "config_groups",
                     "%s.config_groups has no group with weights", q->name);
    if (json_object_size(groups) > 1)
        kvb__read_warn(q->r,
                       "compressed-tensors: sized by the first of %zu "
                       "config groups",
                       json_object_size(groups));
    q->subsub = gname;
    q->sub = "weights";
    int64_t b = 0;
    const char *type = qstr(w, "type");
    kvb_status st = bits(q, w, "num_bits", &b);
    if (!st && b == 8 && type && strcmp(type, "float") == 0)
        return ct_float8(q, w);
    if (!st && b == 8 && type && strcmp(type, "int") == 0) {
        /* W8A8 INT8 (RedHatAI ...-quantized.w8a8): int8 weights and a
         * scale per channel or tensor, laid out as FP8's */
        kvb_status s8 = ct_float8(q, w);
        q->r->quant.method = KVB_QUANT_W8A8_INT8;
        return s8;
    }
    if (!st && b == 4 && type && strcmp(type, "int") == 0)
        return ct_int4(q, w);
    if (!st && b == 4 && type && strcmp(type, "float") == 0)
        return ct_float4(q, w);
    if (st)
        return st;
    return qfail(q, KVB_EUNSUPPORTED, "num_bits",
                 "compressed-tensors weights of %lld-bit %s have no "
                 "kvb_quant_method; allowed: 8-bit float or int, 4-bit int "
                 "or float",
                 (long long)b, type ? type : "(no type)");
}

static kvb_status bnb(qcfg *q)
{
    if (qtrue(q->qc, "load_in_4bit") || qtrue(q->qc, "_load_in_4bit")) {
        q->r->quant.method = KVB_QUANT_BNB_4;
        /* transformers' default is bnb_4bit_use_double_quant=False */
        if (!qtrue(q->qc, "bnb_4bit_use_double_quant"))
            q->r->quant.flags |= KVB_QUANT_BNB_NO_DOUBLE;
        kvb__read_mark(q->r, KVB_READ_FIELD_QUANT_FLAGS, -1, -1, -1);
        return KVB_OK;
    }
    if (qtrue(q->qc, "load_in_8bit") || qtrue(q->qc, "_load_in_8bit")) {
        q->r->quant.method = KVB_QUANT_BNB_8;
        return KVB_OK;
    }
    return qfail(q, KVB_EPARSE, NULL,
                 "%s (bitsandbytes) sets neither load_in_4bit nor "
                 "load_in_8bit",
                 q->name);
}

/* ---- exclusion lists: which tensor roles a checkpoint leaves alone ----
 *
 * Entries come in three syntaxes: compressed-tensors `ignore` takes module
 * names and "re:" regular expressions matched from the start of the name
 * (compressed_tensors.utils.match: re.match); ModelOpt `exclude_modules`
 * takes fnmatch wildcards ("*.mlp.gate", "model.layers.*.self_attn*");
 * transformers' AWQ / bitsandbytes / MXFP4 `modules_to_not_convert` and
 * `llm_int8_skip_modules` match a substring of the module name.  All three
 * end in the module's own name, so an entry is read by its last dotted
 * component once the regex and wildcard syntax is taken off, scoped by
 * what comes before it (experts, shared_expert, mlp).  That name is taken
 * whole: a substring or an unanchored "re:" entry would also catch longer
 * names ("gate" is inside "gate_proj"), but module names differ by
 * family (Mixtral's experts are w1/w3, not gate_proj), so AutoAWQ's
 * ["gate"] is read as the router it is written for. */

#define RB(role) ((uint64_t)1 << (role))
#define ATTN_ROLES                                                             \
    (RB(KVB_ROLE_ATTN_Q) | RB(KVB_ROLE_ATTN_K) | RB(KVB_ROLE_ATTN_V) |         \
     RB(KVB_ROLE_ATTN_QKV) | RB(KVB_ROLE_ATTN_O) | RB(KVB_ROLE_MLA_Q_A) |      \
     RB(KVB_ROLE_MLA_Q_B) | RB(KVB_ROLE_MLA_KV_A) | RB(KVB_ROLE_MLA_KV_B) |    \
     INDEXER_ROLES)
#define INDEXER_ROLES                                                          \
    (RB(KVB_ROLE_INDEXER_WQ_B) | RB(KVB_ROLE_INDEXER_WK) |                     \
     RB(KVB_ROLE_INDEXER_WEIGHTS))
#define DENSE_ROLES                                                            \
    (RB(KVB_ROLE_MLP_GATE) | RB(KVB_ROLE_MLP_UP) | RB(KVB_ROLE_MLP_GATE_UP) |  \
     RB(KVB_ROLE_MLP_DOWN))
#define EXPERT_ROLES                                                           \
    (RB(KVB_ROLE_EXPERT_GATE) | RB(KVB_ROLE_EXPERT_UP) |                       \
     RB(KVB_ROLE_EXPERT_DOWN))
#define SHARED_ROLES                                                           \
    (RB(KVB_ROLE_SHARED_GATE) | RB(KVB_ROLE_SHARED_UP) |                       \
     RB(KVB_ROLE_SHARED_DOWN) | RB(KVB_ROLE_SHARED_EXPERT_GATE))
#define SSM_ROLES                                                              \
    (RB(KVB_ROLE_SSM_IN) | RB(KVB_ROLE_SSM_IN_BA) | RB(KVB_ROLE_SSM_CONV) |    \
     RB(KVB_ROLE_SSM_OUT))
#define MLP_ROLES                                                              \
    (DENSE_ROLES | EXPERT_ROLES | SHARED_ROLES | RB(KVB_ROLE_ROUTER))

/* A module's own name and the roles it holds (HF names: Llama, Qwen,
 * Mixtral's w1/w2/w3, DeepSeek MLA and indexer, Qwen3-Next linear_attn,
 * Nemotron-H mixer, GPT-NeoX / Falcon / Phi fused projections). */
static const struct {
    const char *name;
    uint64_t roles;
} module_roles[] = {
    {"self_attn", ATTN_ROLES},
    {"self_attention", ATTN_ROLES},
    {"attn", ATTN_ROLES},
    {"attention", ATTN_ROLES},
    {"q_proj", RB(KVB_ROLE_ATTN_Q)},
    {"k_proj", RB(KVB_ROLE_ATTN_K)},
    {"v_proj", RB(KVB_ROLE_ATTN_V)},
    {"o_proj", RB(KVB_ROLE_ATTN_O)},
    {"qkv_proj", RB(KVB_ROLE_ATTN_QKV)},
    {"query_key_value", RB(KVB_ROLE_ATTN_QKV)},
    {"c_attn", RB(KVB_ROLE_ATTN_QKV)},
    {"Wqkv", RB(KVB_ROLE_ATTN_QKV)},
    {"q_a_proj", RB(KVB_ROLE_MLA_Q_A)},
    {"q_b_proj", RB(KVB_ROLE_MLA_Q_B)},
    {"kv_a_proj_with_mqa", RB(KVB_ROLE_MLA_KV_A)},
    {"kv_b_proj", RB(KVB_ROLE_MLA_KV_B)},
    {"indexer", INDEXER_ROLES},
    {"wq_b", RB(KVB_ROLE_INDEXER_WQ_B)},
    {"wk", RB(KVB_ROLE_INDEXER_WK)},
    {"weights_proj", RB(KVB_ROLE_INDEXER_WEIGHTS)},
    {"mlp", MLP_ROLES},
    {"feed_forward", MLP_ROLES},
    {"block_sparse_moe", MLP_ROLES},
    {"experts", EXPERT_ROLES},
    {"shared_expert", SHARED_ROLES},
    {"shared_experts", SHARED_ROLES},
    {"w1", RB(KVB_ROLE_EXPERT_GATE)},
    {"w3", RB(KVB_ROLE_EXPERT_UP)},
    {"w2", RB(KVB_ROLE_EXPERT_DOWN)},
    {"gate", RB(KVB_ROLE_ROUTER)},
    {"router", RB(KVB_ROLE_ROUTER)},
    {"shared_expert_gate", RB(KVB_ROLE_SHARED_EXPERT_GATE)},
    {"lm_head", RB(KVB_ROLE_LM_HEAD)},
    {"embed_tokens", RB(KVB_ROLE_EMBED)},
    {"wte", RB(KVB_ROLE_EMBED)},
    {"linear_attn", SSM_ROLES},
    {"mixer", SSM_ROLES},
    {"mamba", SSM_ROLES},
    {"in_proj", RB(KVB_ROLE_SSM_IN)},
    {"in_proj_qkvz", RB(KVB_ROLE_SSM_IN)},
    {"in_proj_ba", RB(KVB_ROLE_SSM_IN_BA)},
    {"out_proj", RB(KVB_ROLE_SSM_OUT)},
};

/* The MLP projections, scoped by the path before them: "experts.*.down_proj"
 * is an expert's, "shared_expert.down_proj" the shared expert's,
 * "mlp.down_proj" the dense MLP's; a bare "down_proj" (or ".*down_proj")
 * matches all three. */
static uint64_t projection_roles(const char *entry, const char *name)
{
    static const struct {
        const char *name;
        int32_t dense, expert, shared;
    } proj[] = {
        {"gate_proj", KVB_ROLE_MLP_GATE, KVB_ROLE_EXPERT_GATE,
         KVB_ROLE_SHARED_GATE},
        {"up_proj", KVB_ROLE_MLP_UP, KVB_ROLE_EXPERT_UP, KVB_ROLE_SHARED_UP},
        {"down_proj", KVB_ROLE_MLP_DOWN, KVB_ROLE_EXPERT_DOWN,
         KVB_ROLE_SHARED_DOWN},
        {"gate_up_proj", KVB_ROLE_MLP_GATE_UP, KVB_ROLE_EXPERT_GATE,
         KVB_ROLE_SHARED_GATE},
    };
    for (size_t i = 0; i < KVB__ARRAY_LEN(proj); i++) {
        if (strcmp(name, proj[i].name) != 0)
            continue;
        /* the fused gate_up of experts and shared experts is inventoried
         * as its gate and up halves */
        uint64_t up = i == 3 ? RB(KVB_ROLE_EXPERT_UP) : 0;
        uint64_t shared_up = i == 3 ? RB(KVB_ROLE_SHARED_UP) : 0;
        if (strstr(entry, "shared_expert"))
            return RB(proj[i].shared) | shared_up;
        if (strstr(entry, "expert"))
            return RB(proj[i].expert) | up;
        char scoped[32];
        snprintf(scoped, sizeof scoped, "mlp.%s", name);
        if (strstr(entry, scoped))
            return RB(proj[i].dense);
        return RB(proj[i].dense) | RB(proj[i].expert) | up |
               RB(proj[i].shared) | shared_up;
    }
    return 0;
}

/* Towers and projectors: the inventory's one vision role. */
static bool names_tower(const char *entry)
{
    static const char *const parts[] = {"vision",    "visual",      "tower",
                                        "projector", "multi_modal", "audio"};
    for (size_t i = 0; i < KVB__ARRAY_LEN(parts); i++)
        if (strstr(entry, parts[i]))
            return true;
    return false;
}

/* The entry without its syntax: "re:" and "\." escapes, a trailing "$",
 * and trailing wildcards (".*", "*", "."), so that its last component is
 * the module's name. */
static void entry_strip(const char *entry, char *out, size_t cap)
{
    size_t n = 0;
    if (strncmp(entry, "re:", 3) == 0)
        entry += 3;
    for (const char *p = entry; *p && n + 1 < cap; p++) {
        if (*p == '\\' && p[1])
            p++;
        out[n++] = *p;
    }
    out[n] = '\0';
    while (n && (out[n - 1] == '$' || out[n - 1] == '*' || out[n - 1] == '.' ||
                 out[n - 1] == '?'))
        out[--n] = '\0';
}

/* "layers.12" (not "layers.*"): the layer an entry is about, or -1. */
static long entry_layer(const char *entry)
{
    const char *p = entry;
    while ((p = strstr(p, "layers.")) != NULL) {
        p += 7;
        if (*p >= '0' && *p <= '9')
            return strtol(p, NULL, 10);
    }
    return -1;
}

/* The roles one entry names (0: none the inventory has); *layer is the
 * one layer it is limited to, or -1. */
static uint64_t entry_roles(const char *entry, long *layer)
{
    char s[256];
    entry_strip(entry, s, sizeof s);
    *layer = entry_layer(s);
    if (names_tower(s))
        return RB(KVB_ROLE_VISION);
    const char *dot = strrchr(s, '.');
    const char *name = dot ? dot + 1 : s;
    while (*name == '*' || *name == '(' || *name == '^')
        name++;
    if (*name >= '0' && *name <= '9') /* "model.layers.3": the whole layer */
        return ATTN_ROLES | MLP_ROLES | SSM_ROLES;
    uint64_t roles = projection_roles(s, name);
    for (size_t i = 0; !roles && i < KVB__ARRAY_LEN(module_roles); i++)
        if (strcmp(name, module_roles[i].name) == 0)
            roles = module_roles[i].roles;
    return roles;
}

#define MAX_LISTED_LAYERS 256

/* Roles that per-layer entries name in every layer (RedHatAI's Llama 4
 * Scout FP8-dynamic lists q/k/v/o_proj of each of its 48 layers; a
 * published tensor list of nvidia/DeepSeek-R1-0528-FP4 shows layer 0's
 * self_attn in BF16 beside NVFP4 MLPs); a role named in some layers only
 * is not modelled, the inventory having roles, not layers. */
static uint64_t every_layer(const uint64_t *by_layer, uint32_t layers)
{
    if (layers == 0 || layers > MAX_LISTED_LAYERS)
        return 0;
    uint64_t all = ~(uint64_t)0;
    for (uint32_t l = 0; l < layers; l++)
        all &= by_layer[l];
    return all;
}

void kvb__quant_ignore_apply(kvb__reader *r, json_t *list, const char *key)
{
    size_t i, unmatched = 0;
    json_t *e;
    const char *first_unmatched = NULL, *first_layered = NULL;
    uint64_t keep = 0, layered = 0;
    uint64_t by_layer[MAX_LISTED_LAYERS] = {0};
    json_array_foreach(list, i, e)
    {
        const char *s = json_string_value(e);
        long layer = -1;
        uint64_t roles = s ? entry_roles(s, &layer) : 0;
        if (!s)
            continue;
        if (!roles || layer >= MAX_LISTED_LAYERS) {
            if (unmatched++ == 0)
                first_unmatched = s;
        } else if (layer >= 0) {
            by_layer[layer] |= roles;
            layered |= roles;
            if (!first_layered)
                first_layered = s;
        } else {
            keep |= roles;
        }
    }
    uint64_t whole = every_layer(by_layer, r->model.num_hidden_layers);
    keep |= whole;
    if (keep) {
        r->quant.keep_roles |= keep;
        kvb__read_mark(r, KVB_READ_FIELD_QUANT_KEEP_ROLES, -1, -1, -1);
    }
    if (layered & ~keep)
        kvb__read_warn(r,
                       "%s names modules of some layers only (first: "
                       "%.60s): sized as quantized, so the weights may be "
                       "underestimated",
                       key, first_layered);
    if (unmatched)
        kvb__read_warn(r,
                       "%s has %zu entr%s that match no tensor role (first: "
                       "%.60s): sized as quantized",
                       key, unmatched, unmatched == 1 ? "y" : "ies",
                       first_unmatched);
}

static kvb_status by_method(qcfg *q, const char *m)
{
    if (kvb__strcasecmp(m, "awq") == 0)
        return awq(q);
    if (kvb__strcasecmp(m, "gptq") == 0)
        return gptq(q);
    if (kvb__strcasecmp(m, "fp8") == 0)
        return fp8(q);
    if (kvb__strcasecmp(m, "compressed-tensors") == 0)
        return compressed(q);
    if (kvb__strcasecmp(m, "bitsandbytes") == 0)
        return bnb(q);
    if (kvb__strcasecmp(m, "mxfp4") == 0) {
        q->r->quant.method = KVB_QUANT_MXFP4;
        return KVB_OK;
    }
    return qfail(q, KVB_EUNSUPPORTED, "quant_method",
                 "%s.quant_method (%s) is not supported; allowed: awq, gptq, "
                 "fp8, compressed-tensors, bitsandbytes, mxfp4",
                 q->name, m);
}

kvb_status kvb__quant_config_read(kvb__reader *r, json_t *root, json_t *nested,
                                  const char *key)
{
    static const char *const names[] = {"quantization_config",
                                        "compression_config"};
    qcfg q = {r, NULL, NULL, NULL, NULL, NULL};
    json_t *objs[2] = {root, nested};
    for (size_t o = 0; o < 2 && !q.qc; o++) {
        for (size_t i = 0; objs[o] && i < KVB__ARRAY_LEN(names) && !q.qc; i++) {
            json_t *v = json_object_get(objs[o], names[i]);
            if (v && !json_is_null(v)) {
                q.qc = v;
                q.name = names[i];
                q.outer = o ? key : NULL;
            }
        }
    }
    if (!q.qc)
        return KVB_OK;
    if (!json_is_object(q.qc))
        return qfail(&q, KVB_EPARSE, NULL, "%s is not an object", q.name);
    const char *m = qstr(q.qc, "quant_method");
    if (!m)
        return qfail(&q, KVB_EPARSE, NULL, "%s has no quant_method string",
                     q.name);
    kvb_status st = by_method(&q, m);
    static const char *const lists[] = {"ignore", "modules_to_not_convert",
                                        "llm_int8_skip_modules"};
    for (size_t i = 0; !st && i < KVB__ARRAY_LEN(lists); i++)
        kvb__quant_ignore_apply(r, json_object_get(q.qc, lists[i]), lists[i]);
    if (!st) {
        q.sub = q.subsub = NULL;
        qmark(&q, KVB_READ_FIELD_QUANT_METHOD, "quant_method");
    }
    return st;
}

/* ---- NVIDIA ModelOpt hf_quant_config.json ---- */

/* {"producer": {"name": "modelopt", ...}, "quantization": {"quant_algo":
 * "FP8" | "NVFP4" | "W4A8_AWQ" | ..., "kv_cache_quant_algo": "FP8" | null,
 * "group_size": 16, "exclude_modules": ["lm_head", ...]}}, as TensorRT
 * Model Optimizer's export writes it (vLLM's modelopt.py reads the same
 * keys).  quantization_config in config.json wins when both exist. */
static void modelopt_algo(kvb__reader *r, const char *algo, json_t *qz)
{
    if (!strcmp(algo, "FP8")) {
        /* per-tensor FP32 weight_scale and input_scale */
        r->quant.method = KVB_QUANT_FP8;
        r->quant.fp8_scale = KVB_FP8_SCALE_TENSOR;
    } else if (!strcmp(algo, "NVFP4")) {
        r->quant.method = KVB_QUANT_NVFP4;
    } else if (!strcmp(algo, "W4A8_AWQ") || !strcmp(algo, "W4A16_AWQ")) {
        json_t *g = json_object_get(qz, "group_size");
        r->quant.method = KVB_QUANT_W4A16;
        r->quant.group_size = json_is_integer(g) && json_integer_value(g) > 0 &&
                                      json_integer_value(g) <= 65536
                                  ? (uint32_t)json_integer_value(g)
                                  : 128;
        kvb__read_warn(r,
                       "hf_quant_config.json: %s is sized as packed int4 "
                       "with a 16-bit scale per %u weights (w4a16); the "
                       "exact layout of ModelOpt's export is not modelled",
                       algo, r->quant.group_size);
    } else if (!strcmp(algo, "W8A16") || !strncmp(algo, "W8A8_SQ", 7)) {
        /* TensorRT-LLM int8 weight-only and SmoothQuant: int8 weights, a
         * scale per output channel */
        r->quant.method = KVB_QUANT_W8A8_INT8;
        r->quant.fp8_scale = KVB_FP8_SCALE_CHANNEL;
        kvb__read_warn(r,
                       "hf_quant_config.json: %.40s is sized as int8 "
                       "weights with a FP32 scale per output channel",
                       algo);
    } else if (!strcmp(algo, "W4A16")) {
        /* TensorRT-LLM int4 weight-only: per-channel scales */
        r->quant.method = KVB_QUANT_W4A16;
        r->quant.group_size = 0;
        kvb__read_warn(r, "hf_quant_config.json: W4A16 is sized as packed "
                          "int4 with a 16-bit scale per output channel");
    } else {
        kvb__read_warn(r,
                       "hf_quant_config.json: quant_algo %.40s is not "
                       "modelled; the weights are sized as %s",
                       algo, kvb_quant_method_name(r->quant.method));
        return;
    }
    kvb__read_mark(r, KVB_READ_FIELD_QUANT_METHOD, -1, -1, -1);
}

void kvb__modelopt_read(kvb__reader *r, const char *text, size_t len)
{
    if (r->info.fields_from_file & ((uint64_t)1 << KVB_READ_FIELD_QUANT_METHOD))
        return;
    json_t *root = json_loadb(text, len, 0, NULL);
    json_t *qz = json_object_get(root, "quantization");
    const char *algo = json_string_value(json_object_get(qz, "quant_algo"));
    const char *kv =
        json_string_value(json_object_get(qz, "kv_cache_quant_algo"));
    if (!json_is_object(qz))
        kvb__read_warn(r, "hf_quant_config.json has no quantization "
                          "object; ignored");
    if (algo)
        modelopt_algo(r, algo, qz);
    kvb__quant_ignore_apply(r, json_object_get(qz, "exclude_modules"),
                            "exclude_modules");
    if (kv && !strcmp(kv, "FP8"))
        kvb__read_warn(r, "hf_quant_config.json ships FP8 KV-cache scales "
                          "(kv_cache_quant_algo FP8): the plan uses the KV "
                          "cache dtype given; pass --kv-cache-dtype fp8 to "
                          "use them");
    json_decref(root);
}
