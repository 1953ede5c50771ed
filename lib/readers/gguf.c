/*
 * readers/gguf.c -- GGUF (v2 and v3) headers: metadata, tensor infos, the
 * architecture from the <arch>.* keys, and exact tensor bytes from each
 * tensor's ggml type and shape.
 *
 * Layout (little-endian): "GGUF", u32 version, u64 tensor count, u64
 * metadata count; each metadata pair is a string key, a u32 value type
 * and the value (strings are a u64 length then bytes; arrays a u32
 * element type, a u64 count, then the elements, possibly arrays again);
 * each tensor info is a string name, u32 dimensions, u64 sizes (ne[0]
 * first, the contiguous one), u32 ggml type and u64 data offset.  The
 * data begins at the next multiple of general.alignment (32 by default)
 * and ggml requires each tensor at the running offset of the ones before
 * it, each padded to the alignment; this reader checks the same rule, so
 * what it accepts ggml can load.
 *
 * Type sizes: ../shared/data/quant_formats.md §1 (ggml-common.h).  Ids of
 * removed types (4, 5, 31-33, 36-38) are rejected; ids past the newest
 * known one are KVB_EUNSUPPORTED, naming the id and its offset.
 */
#define _POSIX_C_SOURCE 200809L /* fseeko */

#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- ggml types ---- */

typedef struct ggml_type {
    const char *name; /* NULL: a removed id */
    uint32_t block;   /* elements per block */
    uint32_t bytes;   /* bytes per block */
} ggml_type;

static const ggml_type types[] = {
    [0] = {"F32", 1, 4},         [1] = {"F16", 1, 2},
    [2] = {"Q4_0", 32, 18},      [3] = {"Q4_1", 32, 20},
    [4] = {NULL, 0, 0},          [5] = {NULL, 0, 0},
    [6] = {"Q5_0", 32, 22},      [7] = {"Q5_1", 32, 24},
    [8] = {"Q8_0", 32, 34},      [9] = {"Q8_1", 32, 36},
    [10] = {"Q2_K", 256, 84},    [11] = {"Q3_K", 256, 110},
    [12] = {"Q4_K", 256, 144},   [13] = {"Q5_K", 256, 176},
    [14] = {"Q6_K", 256, 210},   [15] = {"Q8_K", 256, 292},
    [16] = {"IQ2_XXS", 256, 66}, [17] = {"IQ2_XS", 256, 74},
    [18] = {"IQ3_XXS", 256, 98}, [19] = {"IQ1_S", 256, 50},
    [20] = {"IQ4_NL", 32, 18},   [21] = {"IQ3_S", 256, 110},
    [22] = {"IQ2_S", 256, 82},   [23] = {"IQ4_XS", 256, 136},
    [24] = {"I8", 1, 1},         [25] = {"I16", 1, 2},
    [26] = {"I32", 1, 4},        [27] = {"I64", 1, 8},
    [28] = {"F64", 1, 8},        [29] = {"IQ1_M", 256, 56},
    [30] = {"BF16", 1, 2},       [31] = {NULL, 0, 0},
    [32] = {NULL, 0, 0},         [33] = {NULL, 0, 0},
    [34] = {"TQ1_0", 256, 54},   [35] = {"TQ2_0", 256, 66},
    [36] = {NULL, 0, 0},         [37] = {NULL, 0, 0},
    [38] = {NULL, 0, 0},         [39] = {"MXFP4", 32, 17},
    [40] = {"NVFP4", 64, 36},    [41] = {"Q1_0", 128, 18},
    [42] = {"Q2_0", 64, 18},
};

bool kvb__ggml_type_size(uint32_t type, uint64_t *block, uint64_t *bytes)
{
    if (type >= KVB__ARRAY_LEN(types) || !types[type].name)
        return false;
    *block = types[type].block;
    *bytes = types[type].bytes;
    return true;
}

/* ---- the cursor ---- */

typedef struct cur cur;

/* Reads more of the file into the buffer (which never moves) until at
 * least `end` bytes are present; KVB_EIO details in the reader. */
typedef kvb_status (*fill_fn)(cur *c, uint64_t end);

struct cur {
    kvb__reader *r;
    const unsigned char *p;
    uint64_t len;      /* bytes in the buffer */
    uint64_t file_len; /* bytes in the file (>= len) */
    uint64_t pos;
    uint64_t *need; /* set when the buffer ends before the file does */
    fill_fn fill;   /* NULL: the buffer is all there is */
    uint64_t cap;   /* bytes the buffer can hold (fill reads up to it) */
    void *fill_ctx;
};

static kvb_status gfail(cur *c, kvb_status st, const char *field,
                        uint64_t offset, const char *fmt, ...)
    KVB__PRINTF(5, 6);

static kvb_status gfail(cur *c, kvb_status st, const char *field,
                        uint64_t offset, const char *fmt, ...)
{
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return kvb__read_fail(c->r, st, field, -1, -1, (int64_t)offset, "%s", text);
}

/* n more bytes must be present at pos. */
static kvb_status need(cur *c, uint64_t n, const char *what)
{
    if (n <= c->len - c->pos)
        return KVB_OK;
    uint64_t end = 0;
    bool in_file = kvb__add_ok(c->pos, n, &end) && end <= c->file_len;
    if (in_file && c->fill && end <= c->cap)
        return c->fill(c, end); /* a file read as it is parsed */
    if (in_file && c->need)
        *c->need = end; /* the file has it: read more and try again */
    return gfail(c, KVB_EPARSE, "gguf", c->pos,
                 "%s at offset %llu needs %llu bytes; the %s ends at %llu",
                 what, (unsigned long long)c->pos, (unsigned long long)n,
                 in_file ? "buffer" : "file",
                 (unsigned long long)(in_file ? c->len : c->file_len));
}

static uint64_t le(const unsigned char *p, unsigned n)
{
    if (n == 8)
        return kvb__le64(p);
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* One string of an array at *q, if it lies whole before `end` and is at
 * most KVB_READ_MAX_STRING long: move past it.  Else false, *q unmoved,
 * for string() to handle (a read, or the error) exactly as it always
 * does. */
static bool skip_one(const unsigned char **q, const unsigned char *end)
{
    if (end - *q < 8)
        return false;
    uint64_t sl = kvb__le64(*q);
    if (sl > KVB_READ_MAX_STRING || sl > (uint64_t)(end - *q) - 8)
        return false;
    *q += 8 + sl;
    return true;
}

/* Bytes searched for a guess (below): a hostile array without one costs
 * this much per call, no more. */
#define GUESS_SCAN 4096

/* A string's length is where the next one starts, so walking an array
 * is a chain of dependent loads, one load latency per string.  Two walks
 * at once halve that: the second starts at a guessed string boundary
 * further on (a length field of a short string: a value 1..255, seven
 * zero bytes, which text rarely holds) and counts until the first walk
 * reaches the guess.  Only if the first walk lands exactly on it are the
 * second walk's strings the array's next ones (each walk is
 * deterministic from a true boundary) and taken, if there are not more
 * of them than the array has; else they are dropped.  Both walks check
 * every string as skip_one does. */
static const unsigned char *guess_boundary(const unsigned char *q,
                                           const unsigned char *end)
{
    const unsigned char *stop = end - q > GUESS_SCAN ? q + GUESS_SCAN : end;
    for (; stop - q >= 8; q++)
        if (*q && kvb__le64(q) < 256)
            return q;
    return NULL;
}

/* Where the second walk starts: half the strings left at the average
 * size of the first ones, within the bytes present. */
static const unsigned char *second_start(const unsigned char *first,
                                         const unsigned char *a,
                                         const unsigned char *end,
                                         uint64_t done, uint64_t left)
{
    uint64_t avg = (uint64_t)(a - first) / done; /* <= 2^24 + 8 */
    uint64_t half = (uint64_t)(end - a) / 2;
    return guess_boundary(a + kvb__min(avg * (left / 2), half), end);
}

#define WALK_WARMUP 32u /* strings walked alone to learn their size */

/* Skip up to n strings of an array from c->pos, two walks at once (see
 * guess_boundary); stops before the first string skip_one refuses.
 * Returns the strings skipped. */
static uint64_t skip_strings(cur *c, uint64_t n)
{
    const unsigned char *a = c->p + c->pos, *end = c->p + c->len, *first = a;
    uint64_t i = 0, k = 0;
    while (i < n && i < WALK_WARMUP && skip_one(&a, end))
        i++;
    const unsigned char *mid = i == WALK_WARMUP && n - i >= 2 * WALK_WARMUP
                                   ? second_start(first, a, end, i, n - i)
                                   : NULL;
    if (mid) {
        const unsigned char *b = mid;
        bool walking = true;
        while (a < mid && i < n && skip_one(&a, end)) {
            i++;
            if (walking && (walking = skip_one(&b, end)))
                k++;
        }
        if (a == mid && k <= n - i) { /* landed on it: b's are ours */
            a = b;
            i += k;
        }
    }
    while (i < n && skip_one(&a, end))
        i++;
    c->pos = (uint64_t)(a - c->p);
    return i;
}

static kvb_status u32(cur *c, uint32_t *v, const char *what)
{
    kvb_status st = need(c, 4, what);
    if (!st) {
        *v = (uint32_t)le(c->p + c->pos, 4);
        c->pos += 4;
    }
    return st;
}

static kvb_status u64(cur *c, uint64_t *v, const char *what)
{
    kvb_status st = need(c, 8, what);
    if (!st) {
        *v = le(c->p + c->pos, 8);
        c->pos += 8;
    }
    return st;
}

typedef struct str {
    const char *s;
    uint64_t n;
} str;

static kvb_status string(cur *c, str *out, uint64_t limit, const char *what)
{
    uint64_t at = c->pos, n = 0;
    kvb_status st = u64(c, &n, what);
    if (!st && n > limit)
        return gfail(c, KVB_ELIMIT, "gguf", at,
                     "%s at offset %llu is %llu bytes long; allowed: at most "
                     "%llu",
                     what, (unsigned long long)at, (unsigned long long)n,
                     (unsigned long long)limit);
    if (!st)
        st = need(c, n, what);
    if (!st) {
        out->s = (const char *)c->p + c->pos;
        out->n = n;
        c->pos += n;
    }
    return st;
}

static bool str_is(str s, const char *lit)
{
    size_t n = strlen(lit);
    return s.n == n && memcmp(s.s, lit, n) == 0;
}

/* ---- metadata ---- */

enum {
    T_U8,
    T_I8,
    T_U16,
    T_I16,
    T_U32,
    T_I32,
    T_F32,
    T_BOOL,
    T_STRING,
    T_ARRAY,
    T_U64,
    T_I64,
    T_F64,
    T_COUNT
};

static const uint8_t scalar_size[T_COUNT] = {1, 1, 2, 2, 4, 4, 4,
                                             1, 0, 0, 8, 8, 8};

/* One value the mapping wants: where it was and what it holds. */
typedef struct gval {
    bool set, array, negative, integer;
    uint32_t type;  /* value type, or element type of an array */
    uint64_t u;     /* unsigned value (integers) */
    uint64_t count; /* array elements */
    uint64_t at;    /* offset of the value */
    uint64_t data;  /* offset of the first array element */
    str s;          /* strings */
    str prefix;     /* the "<arch>" part of the key */
} gval;

/* Keys "<arch>.<suffix>" the mapping reads. */
enum {
    K_BLOCKS,
    K_EMBED,
    K_FFN,
    K_HEADS,
    K_HEADS_KV,
    K_KEY_LEN,
    K_VALUE_LEN,
    K_KEY_LEN_MLA,
    K_VALUE_LEN_MLA,
    K_CONTEXT,
    K_VOCAB,
    K_EXPERTS,
    K_EXPERTS_USED,
    K_EXPERT_FFN,
    K_SHARED,
    K_SHARED_FFN,
    K_DENSE_LEAD,
    K_MOE_STEP,
    K_KV_LORA,
    K_Q_LORA,
    K_ROPE_DIM,
    K_WINDOW,
    K_WINDOW_PATTERN,
    K_SSM_CONV,
    K_SSM_INNER,
    K_SSM_STATE,
    K_SSM_DT_RANK,
    K_SSM_GROUPS,
    K_FULL_ATTN,
    K_SHORTCONV,
    K_WKV,
    K_COUNT
};

static const char *const suffixes[K_COUNT] = {
    "block_count",
    "embedding_length",
    "feed_forward_length",
    "attention.head_count",
    "attention.head_count_kv",
    "attention.key_length",
    "attention.value_length",
    "attention.key_length_mla",
    "attention.value_length_mla",
    "context_length",
    "vocab_size",
    "expert_count",
    "expert_used_count",
    "expert_feed_forward_length",
    "expert_shared_count",
    "expert_shared_feed_forward_length",
    "leading_dense_block_count",
    "interleave_moe_layer_step",
    "attention.kv_lora_rank",
    "attention.q_lora_rank",
    "rope.dimension_count",
    "attention.sliding_window",
    "attention.sliding_window_pattern",
    "ssm.conv_kernel",
    "ssm.inner_size",
    "ssm.state_size",
    "ssm.time_step_rank",
    "ssm.group_count",
    "full_attention_interval",
    "shortconv.l_cache",
    "wkv.head_size",
};

typedef struct meta {
    gval arch, align, file_type, name, tokens, splits;
    gval k[K_COUNT];
    uint64_t alignment;
    /* from the tensor infos */
    bool has_output, qkv_bias, o_bias, score_bias;
    bool ssm_norm;      /* blk.N.ssm_norm.weight: Falcon-H1's mamba_rms_norm */
    uint64_t embd_rows; /* token_embd.weight ne[1]: the vocabulary */
    uint64_t embd_at;
} meta;

static gval *slot_for(meta *m, str key)
{
    if (str_is(key, "general.architecture"))
        return &m->arch;
    if (str_is(key, "general.alignment"))
        return &m->align;
    if (str_is(key, "general.file_type"))
        return &m->file_type;
    if (str_is(key, "general.name"))
        return &m->name;
    if (str_is(key, "tokenizer.ggml.tokens"))
        return &m->tokens;
    if (str_is(key, "split.count"))
        return &m->splits;
    const char *dot = memchr(key.s, '.', (size_t)key.n);
    if (!dot)
        return NULL;
    str suffix = {dot + 1, key.n - (uint64_t)(dot + 1 - key.s)};
    for (size_t i = 0; i < K_COUNT; i++) {
        if (str_is(suffix, suffixes[i])) {
            m->k[i].prefix.s = key.s;
            m->k[i].prefix.n = (uint64_t)(dot - key.s);
            return &m->k[i];
        }
    }
    return NULL;
}

static kvb_status scalar(cur *c, uint32_t type, gval *v)
{
    kvb_status st = need(c, scalar_size[type], "a value");
    if (st)
        return st;
    if (v) {
        uint64_t raw = le(c->p + c->pos, scalar_size[type]);
        unsigned bits = 8u * scalar_size[type];
        bool is_signed =
            type == T_I8 || type == T_I16 || type == T_I32 || type == T_I64;
        v->integer = type != T_F32 && type != T_F64 && type != T_BOOL;
        v->negative = is_signed && ((raw >> (bits - 1)) & 1u);
        v->u = raw;
    }
    c->pos += scalar_size[type];
    return KVB_OK;
}

static kvb_status value(cur *c, uint32_t type, unsigned depth, gval *v);

static kvb_status array(cur *c, unsigned depth, gval *v)
{
    uint32_t et = 0;
    uint64_t n = 0, at = c->pos;
    kvb_status st = u32(c, &et, "an array type");
    if (!st)
        st = u64(c, &n, "an array length");
    if (st)
        return st;
    if (et >= T_COUNT)
        return gfail(c, KVB_EPARSE, "gguf.metadata", at,
                     "array at offset %llu has element type %u; allowed: "
                     "0..12",
                     (unsigned long long)at, et);
    if (n > KVB_READ_MAX_GGUF_ARRAY)
        return gfail(c, KVB_ELIMIT, "gguf.metadata", at + 4,
                     "array at offset %llu has %llu elements; allowed: at "
                     "most %u",
                     (unsigned long long)at, (unsigned long long)n,
                     KVB_READ_MAX_GGUF_ARRAY);
    if (et == T_ARRAY && depth + 1 >= KVB_READ_MAX_GGUF_NESTING)
        return gfail(c, KVB_ELIMIT, "gguf.metadata", at,
                     "arrays nest deeper than %u levels at offset %llu",
                     KVB_READ_MAX_GGUF_NESTING, (unsigned long long)at);
    if (v) {
        v->array = true;
        v->type = et;
        v->count = n;
        v->data = c->pos;
    }
    if (scalar_size[et]) /* n <= 2^24 and size <= 8: no overflow */
        st = need(c, n * scalar_size[et], "array elements");
    if (scalar_size[et]) {
        if (!st)
            c->pos += n * scalar_size[et];
        return st;
    }
    for (uint64_t i = 0; !st && i < n; i++) {
        if (et == T_STRING && (i += skip_strings(c, n - i)) == n)
            break;
        st = value(c, et, depth + 1, NULL);
    }
    return st;
}

static kvb_status value(cur *c, uint32_t type, unsigned depth, gval *v)
{
    uint64_t at = c->pos;
    if (v) {
        memset(v, 0, sizeof *v - sizeof v->prefix);
        v->set = true;
        v->type = type;
        v->at = at;
    }
    if (type == T_STRING) {
        str s = {NULL, 0};
        kvb_status st = string(c, &s, KVB_READ_MAX_STRING, "a string");
        if (!st && v)
            v->s = s;
        return st;
    }
    if (type == T_ARRAY)
        return array(c, depth, v);
    if (type >= T_COUNT)
        return gfail(c, KVB_EPARSE, "gguf.metadata", at - 4,
                     "value type %u at offset %llu is not a GGUF type; "
                     "allowed: 0..12",
                     type, (unsigned long long)(at - 4));
    return scalar(c, type, v);
}

static kvb_status metadata(cur *c, uint64_t count, meta *m)
{
    for (uint64_t i = 0; i < count; i++) {
        str key = {NULL, 0};
        uint32_t type = 0;
        uint64_t at = c->pos;
        kvb_status st = string(c, &key, 65535, "a metadata key");
        if (!st && key.n == 0)
            return gfail(c, KVB_EPARSE, "gguf.metadata", at,
                         "metadata key %llu at offset %llu is empty",
                         (unsigned long long)i, (unsigned long long)at);
        if (!st)
            st = u32(c, &type, "a value type");
        if (!st)
            st = value(c, type, 0, slot_for(m, key));
        if (st)
            return st;
    }
    return KVB_OK;
}

/* ---- tensor infos ---- */

static void notice(meta *m, str name, const uint64_t *ne, uint64_t at)
{
    if (str_is(name, "output.weight"))
        m->has_output = true;
    if (str_is(name, "token_embd.weight")) {
        m->embd_rows = ne[1];
        m->embd_at = at;
    }
    if (name.n < 4 || memcmp(name.s, "blk.", 4) != 0)
        return;
    const char *dot = memchr(name.s + 4, '.', (size_t)name.n - 4);
    if (!dot)
        return;
    str rest = {dot + 1, name.n - (uint64_t)(dot + 1 - name.s)};
    if (str_is(rest, "attn_q.bias") || str_is(rest, "attn_qkv.bias"))
        m->qkv_bias = true;
    if (str_is(rest, "attn_output.bias"))
        m->o_bias = true;
    if (str_is(rest, "exp_probs_b.bias"))
        m->score_bias = true;
    if (str_is(rest, "ssm_norm.weight"))
        m->ssm_norm = true;
}

static kvb_status dims(cur *c, str name, uint64_t ne[4], uint64_t *n)
{
    uint32_t nd = 0;
    uint64_t at = c->pos;
    kvb_status st = u32(c, &nd, "a dimension count");
    if (!st && nd > 4)
        return gfail(c, KVB_EPARSE, "gguf.tensor_infos", at,
                     "tensor %.*s has %u dimensions; allowed: 1..4",
                     (int)name.n, name.s, nd);
    ne[0] = ne[1] = ne[2] = ne[3] = 1;
    *n = 1;
    for (uint32_t j = 0; !st && j < nd; j++) {
        at = c->pos;
        st = u64(c, &ne[j], "a dimension");
        if (!st && (ne[j] > (uint64_t)INT64_MAX || !kvb__mul_ok(*n, ne[j], n) ||
                    *n > (uint64_t)INT64_MAX))
            return gfail(c, KVB_EOVERFLOW, "gguf.tensor_infos", at,
                         "tensor %.*s has more than 2^63 elements", (int)name.n,
                         name.s);
    }
    return st;
}

static kvb_status tensor_type(cur *c, str name, uint64_t ne0, uint64_t n,
                              uint64_t *bytes, uint32_t *t)
{
    uint64_t at = c->pos, block = 0, size = 0;
    kvb_status st = u32(c, t, "a tensor type");
    if (st)
        return st;
    if (*t < KVB__ARRAY_LEN(types) && !types[*t].name)
        return gfail(c, KVB_EPARSE, "gguf.tensor_infos", at,
                     "tensor %.*s has ggml type %u, which ggml removed",
                     (int)name.n, name.s, *t);
    if (!kvb__ggml_type_size(*t, &block, &size))
        return gfail(c, KVB_EUNSUPPORTED, "gguf.tensor_infos", at,
                     "tensor %.*s has ggml type %u at offset %llu, which "
                     "this version does not know; allowed: 0..%zu",
                     (int)name.n, name.s, *t, (unsigned long long)at,
                     KVB__ARRAY_LEN(types) - 1);
    if (ne0 % block != 0)
        return gfail(c, KVB_EPARSE, "gguf.tensor_infos", at,
                     "tensor %.*s (%s) has rows of %llu elements, not a "
                     "multiple of its block (%llu)",
                     (int)name.n, name.s, types[*t].name,
                     (unsigned long long)ne0, (unsigned long long)block);
    *bytes = n / block * size; /* n < 2^63, size < 2^9: fits */
    return KVB_OK;
}

static kvb_status tensor_info(cur *c, meta *m, uint64_t *expect)
{
    str name = {NULL, 0};
    uint64_t at = c->pos, ne[4], n = 0, bytes = 0, off = 0, padded = 0;
    uint32_t t = 0;
    kvb_status st = string(c, &name, KVB_READ_MAX_NAME - 1, "a tensor name");
    if (!st)
        st = dims(c, name, ne, &n);
    if (!st)
        st = tensor_type(c, name, ne[0], n, &bytes, &t);
    at = c->pos;
    if (!st)
        st = u64(c, &off, "a tensor offset");
    if (!st && off != *expect)
        return gfail(c, KVB_EPARSE, "gguf.tensor_infos", at,
                     "tensor %.*s has data offset %llu; expected %llu (each "
                     "tensor follows the previous, padded to %llu bytes)",
                     (int)name.n, name.s, (unsigned long long)off,
                     (unsigned long long)*expect,
                     (unsigned long long)m->alignment);
    if (!st &&
        (!kvb__add_ok(bytes, m->alignment - 1, &padded) ||
         !kvb__add_ok(*expect, padded / m->alignment * m->alignment, expect)))
        return gfail(c, KVB_EOVERFLOW, "gguf.tensor_infos", at,
                     "tensor data offsets overflow 64 bits");
    if (!st)
        st = kvb__read_add(c->r, &c->r->info.weights_bytes, bytes,
                           "weights_bytes");
    if (!st) {
        notice(m, name, ne, at);
        if (c->r->on_tensor)
            c->r->on_tensor(c->r->on_tensor_ctx, name.s, (size_t)name.n,
                            types[t].name, bytes);
    }
    return st;
}

/* ---- header ---- */

static kvb_status header(cur *c, uint64_t *tensors, uint64_t *kvs)
{
    uint32_t version = 0;
    kvb_status st = need(c, 4, "the magic");
    if (!st && memcmp(c->p, "GGUF", 4) != 0)
        return gfail(c, KVB_EPARSE, "gguf.magic", 0,
                     "magic (%02x %02x %02x %02x) is not \"GGUF\"", c->p[0],
                     c->p[1], c->p[2], c->p[3]);
    if (!st) {
        c->pos = 4;
        st = u32(c, &version, "the version");
    }
    if (!st && version == 0)
        return gfail(c, KVB_EPARSE, "gguf.version", 4,
                     "version (0) is not a GGUF version; allowed: 2, 3");
    if (!st && (version & 0xFFFFu) == 0)
        return gfail(c, KVB_EUNSUPPORTED, "gguf.version", 4,
                     "version (0x%08x) reads as a big-endian file; allowed: "
                     "little-endian files",
                     version);
    if (!st && (version < 2 || version > 3))
        return gfail(c, KVB_EUNSUPPORTED, "gguf.version", 4,
                     "version (%u) is not supported%s; allowed: 2, 3", version,
                     version == 1 ? " (GGUF v1 had 32-bit counts)" : "");
    c->r->info.file_version = version;
    if (!st)
        st = u64(c, tensors, "the tensor count");
    if (!st && *tensors > KVB_READ_MAX_TENSORS)
        return gfail(c, KVB_ELIMIT, "gguf.tensor_count", 8,
                     "tensor count (%llu) exceeds %u",
                     (unsigned long long)*tensors, KVB_READ_MAX_TENSORS);
    if (!st)
        st = u64(c, kvs, "the metadata count");
    if (!st && *kvs > KVB_READ_MAX_GGUF_KV)
        return gfail(c, KVB_ELIMIT, "gguf.metadata_count", 16,
                     "metadata count (%llu) exceeds %u",
                     (unsigned long long)*kvs, KVB_READ_MAX_GGUF_KV);
    return st;
}

static kvb_status alignment(cur *c, meta *m)
{
    m->alignment = 32;
    if (!m->align.set)
        return KVB_OK;
    if (m->align.array || m->align.type != T_U32 || m->align.u == 0 ||
        (m->align.u & (m->align.u - 1)) != 0)
        return gfail(c, KVB_EPARSE, "gguf.general.alignment", m->align.at,
                     "general.alignment is not a power of two stored as "
                     "u32");
    m->alignment = m->align.u;
    return KVB_OK;
}

/* ---- the model ---- */

static const struct {
    const char *name;
    int32_t arch;
} archs[] = {
    {"llama", KVB_ARCH_LLAMA},
    {"llama4", KVB_ARCH_LLAMA4},
    {"qwen2", KVB_ARCH_QWEN2},
    {"qwen2moe", KVB_ARCH_QWEN2_MOE},
    {"qwen3", KVB_ARCH_QWEN3},
    {"qwen3moe", KVB_ARCH_QWEN3_MOE},
    {"gemma2", KVB_ARCH_GEMMA2},
    {"gemma3", KVB_ARCH_GEMMA3},
    {"phi3", KVB_ARCH_PHI3},
    {"deepseek2", KVB_ARCH_DEEPSEEK_V3},
    {"gpt-oss", KVB_ARCH_GPT_OSS},
    {"falcon", KVB_ARCH_FALCON},
    {"gptneox", KVB_ARCH_GPT_NEOX},
    /* Gated DeltaNet hybrids, laid out as Qwen3-Next (recurrent()) */
    {"qwen3next", KVB_ARCH_QWEN3_NEXT},
    {"qwen35", KVB_ARCH_QWEN3_NEXT},
    {"qwen35moe", KVB_ARCH_QWEN3_NEXT},
    /* attention beside Mamba2 in every layer (recurrent()) */
    {"falcon-h1", KVB_ARCH_FALCON_H1},
};

/* Architectures whose recurrent layers this reader lays out. */
static bool gguf_hybrid(int32_t arch)
{
    return arch == KVB_ARCH_QWEN3_NEXT || arch == KVB_ARCH_FALCON_H1;
}

/* llama.cpp's global-layer period for families that hard-code it. */
static uint32_t default_pattern(int32_t arch)
{
    switch (arch) {
    case KVB_ARCH_GEMMA2:
    case KVB_ARCH_GPT_OSS: return 2;
    case KVB_ARCH_GEMMA3: return 6;
    default: return 0;
    }
}

typedef struct gmap {
    cur *c;
    meta *m;
    str arch;
    char field[64];
} gmap;

static const char *key_field(gmap *g, int k)
{
    snprintf(g->field, sizeof g->field, "gguf.%.*s.%s", (int)g->arch.n,
             g->arch.s, suffixes[k]);
    return g->field;
}

/* <arch>.<suffix> as an unsigned integer; *found false when absent. */
static kvb_status key_u64(gmap *g, int k, uint64_t *out, bool *found)
{
    gval *v = &g->m->k[k];
    *found = v->set && v->prefix.n == g->arch.n &&
             memcmp(v->prefix.s, g->arch.s, (size_t)g->arch.n) == 0;
    if (!*found)
        return KVB_OK;
    if (v->array)
        return gfail(g->c, KVB_EUNSUPPORTED, key_field(g, k), v->at,
                     "%s is a per-layer array; allowed: one value",
                     key_field(g, k) + 5);
    if (!v->integer || v->negative)
        return gfail(g->c, KVB_EPARSE, key_field(g, k), v->at,
                     "%s is not a non-negative integer", key_field(g, k) + 5);
    *out = v->u;
    return KVB_OK;
}

static kvb_status set_field(gmap *g, int k, int field, bool *found)
{
    uint64_t v = 0;
    kvb_status st = key_u64(g, k, &v, found);
    if (st || !*found)
        return st;
    if (!kvb__model_field_set(&g->c->r->model, field, v))
        return gfail(g->c, KVB_ERANGE, key_field(g, k), g->m->k[k].at,
                     "%s (%llu) does not fit its field %s", key_field(g, k) + 5,
                     (unsigned long long)v,
                     kvb_read_field_name((unsigned)field));
    kvb__read_mark(g->c->r, field, -1, -1, (int64_t)g->m->k[k].at);
    return KVB_OK;
}

static const struct {
    int k, field;
    bool required;
} direct[] = {
    {K_BLOCKS, KVB_READ_FIELD_NUM_HIDDEN_LAYERS, true},
    {K_EMBED, KVB_READ_FIELD_HIDDEN_SIZE, true},
    {K_HEADS, KVB_READ_FIELD_NUM_ATTENTION_HEADS, true},
    {K_CONTEXT, KVB_READ_FIELD_MAX_POSITION_EMBEDDINGS, true},
    {K_FFN, KVB_READ_FIELD_INTERMEDIATE_SIZE, false},
    {K_HEADS_KV, KVB_READ_FIELD_NUM_KEY_VALUE_HEADS, false},
    {K_VOCAB, KVB_READ_FIELD_VOCAB_SIZE, false},
    {K_EXPERTS, KVB_READ_FIELD_NUM_EXPERTS, false},
    {K_EXPERTS_USED, KVB_READ_FIELD_NUM_EXPERTS_PER_TOK, false},
    {K_EXPERT_FFN, KVB_READ_FIELD_MOE_INTERMEDIATE_SIZE, false},
    {K_SHARED, KVB_READ_FIELD_NUM_SHARED_EXPERTS, false},
    {K_SHARED_FFN, KVB_READ_FIELD_SHARED_EXPERT_INTERMEDIATE_SIZE, false},
    {K_DENSE_LEAD, KVB_READ_FIELD_FIRST_K_DENSE_REPLACE, false},
    {K_MOE_STEP, KVB_READ_FIELD_MOE_LAYER_STEP, false},
    {K_KV_LORA, KVB_READ_FIELD_KV_LORA_RANK, false},
    {K_Q_LORA, KVB_READ_FIELD_Q_LORA_RANK, false},
    {K_WINDOW, KVB_READ_FIELD_SLIDING_WINDOW, false},
};

static kvb_status read_direct(gmap *g)
{
    for (size_t i = 0; i < KVB__ARRAY_LEN(direct); i++) {
        bool found = false;
        kvb_status st = set_field(g, direct[i].k, direct[i].field, &found);
        if (!st && !found && direct[i].required)
            st = gfail(g->c, KVB_EPARSE, key_field(g, direct[i].k), 0,
                       "%s is missing", key_field(g, direct[i].k) + 5);
        if (st)
            return st;
    }
    return KVB_OK;
}

/* MLA: key_length(_mla) = nope + rope per head, value_length(_mla) = v. */
static kvb_status mla(gmap *g)
{
    kvb_model *md = &g->c->r->model;
    uint64_t rope = 0, key = 0, val = 0;
    bool fr = false, fk = false, fv = false;
    int kk = g->m->k[K_KEY_LEN_MLA].set ? K_KEY_LEN_MLA : K_KEY_LEN;
    int kv = g->m->k[K_VALUE_LEN_MLA].set ? K_VALUE_LEN_MLA : K_VALUE_LEN;
    kvb_status st = key_u64(g, K_ROPE_DIM, &rope, &fr);
    if (!st)
        st = key_u64(g, kk, &key, &fk);
    if (!st)
        st = key_u64(g, kv, &val, &fv);
    if (st)
        return st;
    if (!fr || !fk || !fv || key <= rope || val > UINT32_MAX ||
        key - rope > UINT32_MAX || rope > UINT32_MAX)
        return gfail(g->c, KVB_EPARSE, key_field(g, kk), g->m->k[kk].at,
                     "MLA needs rope.dimension_count < %s and %s", suffixes[kk],
                     suffixes[kv]);
    md->qk_rope_head_dim = (uint32_t)rope;
    md->qk_nope_head_dim = (uint32_t)(key - rope);
    md->v_head_dim = (uint32_t)val;
    kvb__read_mark(g->c->r, KVB_READ_FIELD_QK_ROPE_HEAD_DIM, -1, -1,
                   (int64_t)g->m->k[K_ROPE_DIM].at);
    kvb__read_mark(g->c->r, KVB_READ_FIELD_QK_NOPE_HEAD_DIM, -1, -1,
                   (int64_t)g->m->k[kk].at);
    kvb__read_mark(g->c->r, KVB_READ_FIELD_V_HEAD_DIM, -1, -1,
                   (int64_t)g->m->k[kv].at);
    return KVB_OK;
}

static kvb_status attention(gmap *g)
{
    kvb_model *md = &g->c->r->model;
    bool found = false;
    kvb_status st = KVB_OK;
    if (md->kv_lora_rank)
        st = mla(g);
    else
        st = set_field(g, K_KEY_LEN, KVB_READ_FIELD_HEAD_DIM, &found);
    if (!md->num_key_value_heads)
        md->num_key_value_heads = md->num_attention_heads;
    return st;
}

/* A bool array per layer (true: sliding) gives the period directly. */
static kvb_status window_array(gmap *g, gval *v, uint32_t *pattern)
{
    kvb_model *md = &g->c->r->model;
    if (v->type != T_BOOL || v->count != md->num_hidden_layers ||
        v->count > 1024)
        return gfail(g->c, KVB_EUNSUPPORTED, key_field(g, K_WINDOW_PATTERN),
                     v->at, "%s is not one bool per layer",
                     suffixes[K_WINDOW_PATTERN]);
    const unsigned char *b = g->c->p + v->data;
    uint64_t first = v->count;
    for (uint64_t i = 0; i < v->count && first == v->count; i++)
        if (!b[i])
            first = i;
    *pattern = first == v->count ? 0 : (uint32_t)(first + 1);
    for (uint64_t i = 0; i < v->count; i++)
        if ((b[i] == 0) != (*pattern && (i + 1) % *pattern == 0))
            return gfail(g->c, KVB_EUNSUPPORTED, key_field(g, K_WINDOW_PATTERN),
                         v->at, "%s: layer %llu breaks the period %u",
                         suffixes[K_WINDOW_PATTERN], (unsigned long long)i,
                         *pattern);
    return KVB_OK;
}

static kvb_status window(gmap *g)
{
    kvb_model *md = &g->c->r->model;
    gval *v = &g->m->k[K_WINDOW_PATTERN];
    uint32_t pattern = default_pattern(md->arch);
    uint64_t p = 0;
    bool found = false;
    kvb_status st = KVB_OK;
    if (v->set && v->array)
        st = window_array(g, v, &pattern);
    else
        st = key_u64(g, K_WINDOW_PATTERN, &p, &found);
    if (!st && found && p > 1024)
        st = gfail(g->c, KVB_ERANGE, key_field(g, K_WINDOW_PATTERN), v->at,
                   "%s (%llu) is out of range; allowed: 0..1024",
                   suffixes[K_WINDOW_PATTERN], (unsigned long long)p);
    if (!st && found)
        pattern = (uint32_t)p;
    if (!st && v->set)
        kvb__read_mark(g->c->r, KVB_READ_FIELD_SLIDING_WINDOW_PATTERN, -1, -1,
                       (int64_t)v->at);
    md->sliding_window_pattern = md->sliding_window ? pattern : 0;
    if (md->arch == KVB_ARCH_LLAMA4) { /* llama.cpp: n_swa 8192, every 4th */
        md->attention_chunk_size = 8192;
        md->attention_chunk_pattern = 4;
    }
    return st;
}

static kvb_status experts(gmap *g)
{
    kvb_model *md = &g->c->r->model;
    if (md->moe_layer_step == 1)
        md->moe_layer_step = 0; /* every layer */
    if (!md->num_experts)
        return KVB_OK;
    if (md->arch == KVB_ARCH_LLAMA && md->num_experts > 1)
        md->arch = KVB_ARCH_MIXTRAL; /* llama.cpp files Mixtral as llama */
    if (!md->moe_intermediate_size)
        md->moe_intermediate_size = md->intermediate_size;
    if (md->arch == KVB_ARCH_LLAMA4 && !md->num_shared_experts)
        md->num_shared_experts = 1;
    if (md->shared_expert_intermediate_size && !md->num_shared_experts)
        md->num_shared_experts = 1;
    return KVB_OK;
}

static kvb_status vocabulary(gmap *g)
{
    kvb_model *md = &g->c->r->model;
    if (md->vocab_size)
        return KVB_OK;
    if (g->m->embd_rows) {
        md->vocab_size = g->m->embd_rows;
        kvb__read_mark(g->c->r, KVB_READ_FIELD_VOCAB_SIZE, -1, -1,
                       (int64_t)g->m->embd_at);
    } else if (g->m->tokens.set && g->m->tokens.array) {
        md->vocab_size = g->m->tokens.count;
        kvb__read_mark(g->c->r, KVB_READ_FIELD_VOCAB_SIZE, -1, -1,
                       (int64_t)g->m->tokens.at);
    } else {
        return gfail(g->c, KVB_EPARSE, "gguf.vocab_size", 0,
                     "no vocab_size key, token_embd.weight tensor or "
                     "tokenizer.ggml.tokens array gives the vocabulary");
    }
    return KVB_OK;
}

/* general.file_type (llama_ftype) to the methods the estimate knows. */
static void file_type(gmap *g)
{
    static const struct {
        uint64_t ftype;
        int32_t method;
    } ftypes[] = {{0, KVB_QUANT_FP32},
                  {1, KVB_QUANT_FP16},
                  {2, KVB_QUANT_Q4_0},
                  {7, KVB_QUANT_Q8_0},
                  {15, KVB_QUANT_Q4_K_M},
                  {17, KVB_QUANT_Q5_K_M},
                  {18, KVB_QUANT_Q6_K},
                  {32, KVB_QUANT_BF16},
                  /* since 0.2 (llama_ftype, include/llama.h) */
                  {8, KVB_QUANT_Q5_0},
                  {9, KVB_QUANT_Q5_1},
                  {10, KVB_QUANT_Q2_K},
                  {11, KVB_QUANT_Q3_K_S},
                  {12, KVB_QUANT_Q3_K_M},
                  {13, KVB_QUANT_Q3_K_L},
                  {14, KVB_QUANT_Q4_K_S},
                  {16, KVB_QUANT_Q5_K_S},
                  {25, KVB_QUANT_IQ4_NL},
                  {30, KVB_QUANT_IQ4_XS},
                  {27, KVB_QUANT_IQ3_M}};
    gval *v = &g->m->file_type;
    if (!v->set || v->array || !v->integer)
        return;
    for (size_t i = 0; i < KVB__ARRAY_LEN(ftypes); i++) {
        if (ftypes[i].ftype == v->u) {
            g->c->r->quant.method = ftypes[i].method;
            kvb__read_mark(g->c->r, KVB_READ_FIELD_QUANT_METHOD, -1, -1,
                           (int64_t)v->at);
            return;
        }
    }
    kvb__read_warn(g->c->r,
                   "general.file_type (%llu) has no kvb_quant_method; "
                   "the exact tensor bytes are used",
                   (unsigned long long)v->u);
}

static kvb_status architecture(gmap *g)
{
    kvb__reader *r = g->c->r;
    gval *a = &g->m->arch;
    if (!a->set || a->array || a->type != T_STRING)
        return gfail(g->c, KVB_EPARSE, "gguf.general.architecture",
                     a->set ? a->at : 24,
                     "general.architecture is missing or not a string");
    g->arch = a->s;
    snprintf(r->info.arch_name, sizeof r->info.arch_name, "%.*s",
             (int)kvb__min(a->s.n, 63), a->s.s);
    /* convert_hf_to_gguf.py --mmproj writes a vision tower and projector
     * as architecture "clip" (gguf-py MODEL_ARCH.MMPROJ); llama.cpp loads
     * it only through tools/mtmd, beside a language model */
    if (str_is(a->s, "clip"))
        return gfail(g->c, KVB_EUNSUPPORTED, "gguf.general.architecture", a->at,
                     "general.architecture (clip) is a multimodal projector "
                     "(mmproj) file, not a language model; allowed: the "
                     "language-model GGUF as the model, this file with "
                     "--mmproj");
    /* Ollama's llama3.2-vision GGUF (its own converter,
     * convert/convert_mllama.go) keeps the tower and the cross-attention
     * layers (mllama.attention.cross_attention_layers) in the file; read
     * as a Llama it would plan cross layers as self-attention. */
    if (str_is(a->s, "mllama"))
        return gfail(g->c, KVB_EUNSUPPORTED, "gguf.general.architecture", a->at,
                     "general.architecture (mllama) is Ollama's Llama 3.2 "
                     "Vision: its cross-attention layers and tower are not "
                     "modelled for a GGUF (llama.cpp has no mllama); "
                     "allowed: its config.json on vLLM 0.6.2 to 0.10.2");
    /* Gemma 3n (LLM_ARCH_GEMMA3N): its per-layer embedding, AltUp and
     * shared-KV layers (llama.cpp keeps KV in the first 20) would be lost
     * in a Llama-shaped reading, which would overstate the KV cache by
     * half; its metadata is not read yet, so it is refused by name. */
    if (str_is(a->s, "gemma3n"))
        return gfail(g->c, KVB_EUNSUPPORTED, "gguf.general.architecture", a->at,
                     "general.architecture (gemma3n) is not read from a GGUF "
                     "yet: its per-layer embeddings, AltUp and shared KV "
                     "layers would be planned as a Llama-shaped decoder; "
                     "allowed: the checkpoint's config.json (planned in "
                     "f16/bf16 on llama.cpp)");
    int32_t arch = KVB_ARCH_GENERIC;
    for (size_t i = 0; i < KVB__ARRAY_LEN(archs); i++)
        if (str_is(a->s, archs[i].name))
            arch = archs[i].arch;
    if (arch == KVB_ARCH_GENERIC)
        kvb__read_warn(r,
                       "general.architecture (%s) is not a known family; "
                       "read as a Llama-shaped decoder",
                       r->info.arch_name);
    else
        kvb__read_mark(r, KVB_READ_FIELD_ARCH, -1, -1, (int64_t)a->at);
    r->model.arch = arch;
    return KVB_OK;
}

/* A recurrent size: required, non-zero, within 32 bits. */
static kvb_status ssm_key(gmap *g, int k, uint32_t *out)
{
    uint64_t v = 0;
    bool found = false;
    kvb_status st = key_u64(g, k, &v, &found);
    if (!st && (!found || v == 0 || v > 65536))
        st = gfail(g->c, found ? KVB_ERANGE : KVB_EPARSE, key_field(g, k),
                   g->m->k[k].at, "%s is %s; allowed: 1..65536",
                   key_field(g, k) + 5, found ? "out of range" : "missing");
    if (!st)
        *out = (uint32_t)v;
    return st;
}

/*
 * Recurrent layers.  llama.cpp's qwen3next (and qwen35, qwen35moe) lay
 * them out as Qwen3-Next does (src/llama-model.cpp: layer i is recurrent
 * iff (i + 1) % full_attention_interval != 0, the interval 4 when absent;
 * ssm.inner_size = value heads x head dim, ssm.state_size = key head dim,
 * ssm.group_count = key heads, ssm.time_step_rank = value heads).
 * falcon-h1 (convert_hf_to_gguf.py FalconH1Model, a Mamba2Model:
 * ssm.inner_size = mamba_d_ssm, ssm.time_step_rank = mamba_n_heads,
 * ssm.group_count, ssm.state_size, ssm.conv_kernel) has attention and
 * the Mamba2 mixer in every layer ('P'; llama_model::create_memory keeps
 * both for every layer).  Any other file with recurrent keys (ssm,
 * shortconv, wkv: Mamba, Nemotron-H, Granite hybrids, Jamba, LFM2, RWKV
 * ...) is refused: read as a Llama-shaped decoder, its state would be
 * missed and its KV overstated.
 */
static kvb_status recurrent(gmap *g)
{
    kvb_model *md = &g->c->r->model;
    const gval *k = g->m->k;
    bool any = k[K_SSM_CONV].set || k[K_SSM_STATE].set || k[K_SHORTCONV].set ||
               k[K_WKV].set;
    if (!gguf_hybrid(md->arch))
        return any ? gfail(g->c, KVB_EUNSUPPORTED, "gguf.general.architecture",
                           g->m->arch.at,
                           "general.architecture (%s) has recurrent layers "
                           "(ssm, shortconv or wkv keys) this reader does not "
                           "lay out; allowed: qwen3next, qwen35, qwen35moe, "
                           "falcon-h1",
                           g->c->r->info.arch_name)
                   : KVB_OK;
    uint32_t heads = 0, inner = 0;
    uint64_t every = 4;
    bool found = false;
    kvb_status st = ssm_key(g, K_SSM_CONV, &md->ssm_conv_kernel);
    if (!st)
        st = ssm_key(g, K_SSM_INNER, &inner);
    if (!st)
        st = ssm_key(g, K_SSM_STATE, &md->ssm_state_size);
    if (!st)
        st = ssm_key(g, K_SSM_DT_RANK, &heads);
    if (!st)
        st = ssm_key(g, K_SSM_GROUPS, &md->ssm_n_groups);
    if (!st)
        st = key_u64(g, K_FULL_ATTN, &every, &found);
    if (!st && (every == 0 || inner % heads ||
                md->num_hidden_layers >= sizeof md->layer_pattern))
        st = gfail(g->c, KVB_EUNSUPPORTED, key_field(g, K_SSM_INNER),
                   k[K_SSM_INNER].at,
                   "ssm.inner_size (%u) over ssm.time_step_rank (%u) heads, "
                   "full_attention_interval (%llu) or %u layers cannot be "
                   "laid out; allowed: whole heads, an interval > 0, at most "
                   "%zu layers",
                   inner, heads, (unsigned long long)every,
                   md->num_hidden_layers, sizeof md->layer_pattern - 1);
    if (st)
        return st;
    md->ssm_num_heads = heads;
    md->ssm_head_dim = inner / heads;
    for (uint32_t i = 0; i < md->num_hidden_layers; i++)
        md->layer_pattern[i] = md->arch == KVB_ARCH_FALCON_H1 ? 'P'
                               : (i + 1) % every == 0         ? 'A'
                                                              : 'G';
    md->layer_pattern[md->num_hidden_layers] = '\0';
    return KVB_OK;
}

static void finish(gmap *g)
{
    kvb__reader *r = g->c->r;
    kvb_model *md = &r->model;
    md->flags = kvb__family_flags(md->arch) |
                (g->m->qkv_bias ? KVB_MODEL_ATTN_QKV_BIAS : 0u) |
                (g->m->o_bias ? KVB_MODEL_ATTN_O_BIAS : 0u) |
                (g->m->score_bias ? KVB_MODEL_ROUTER_SCORE_BIAS : 0u) |
                (md->arch == KVB_ARCH_FALCON_H1 && !g->m->ssm_norm
                     ? KVB_MODEL_SSM_NO_NORM
                     : 0u);
    kvb__read_mark(r, KVB_READ_FIELD_FLAGS, -1, -1, -1);
    md->tie_word_embeddings = g->m->has_output ? 0u : 1u;
    kvb__read_mark(r, KVB_READ_FIELD_TIE_WORD_EMBEDDINGS, -1, -1, -1);
    md->dtype = KVB_DTYPE_FP16; /* GGUF float tensors and llama.cpp: F16 */
    gval *n = &g->m->name;
    if (n->set && !n->array && n->type == T_STRING)
        snprintf(md->name, sizeof md->name, "%.*s",
                 (int)kvb__min(n->s.n, sizeof md->name - 1), n->s.s);
    file_type(g);
    gval *s = &g->m->splits;
    if (s->set && !s->array && s->integer && s->u > 1)
        kvb__read_warn(r,
                       "this file is one of %llu splits; the weights "
                       "counted are this split's only",
                       (unsigned long long)s->u);
}

static kvb_status map_model(cur *c, meta *m)
{
    gmap g = {c, m, {NULL, 0}, {0}};
    kvb_status st = architecture(&g);
    if (!st && !gguf_hybrid(c->r->model.arch))
        st = recurrent(&g); /* refuse before a per-layer key fails */
    if (!st)
        st = read_direct(&g);
    if (!st && gguf_hybrid(c->r->model.arch))
        st = recurrent(&g);
    if (!st)
        st = vocabulary(&g);
    if (!st)
        st = experts(&g);
    if (!st)
        st = attention(&g);
    if (!st)
        st = window(&g);
    if (!st && !c->r->model.intermediate_size && !c->r->model.num_experts)
        st = gfail(c, KVB_EPARSE, key_field(&g, K_FFN), 0, "%s is missing",
                   key_field(&g, K_FFN) + 5);
    if (!st)
        finish(&g);
    return st;
}
static kvb_status parse(cur *c)
{
    kvb__reader *r = c->r;
    meta m;
    uint64_t tensors = 0, kvs = 0, expect = 0;
    memset(&m, 0, sizeof m);
    *c->need = 0;
    r->info.format = r->info.format ? r->info.format : KVB_FORMAT_GGUF;
    kvb_status st = header(c, &tensors, &kvs);
    if (!st)
        st = metadata(c, kvs, &m);
    if (!st)
        st = alignment(c, &m);
    r->info.weights_bytes = 0;
    for (uint64_t i = 0; !st && i < tensors; i++)
        st = tensor_info(c, &m, &expect);
    if (st)
        return st;
    r->info.tensor_count = tensors;
    r->info.header_bytes = c->pos;
    r->info.weights_format = KVB_FORMAT_GGUF;
    if (tensors)
        kvb__read_mark(r, KVB_READ_FIELD_WEIGHTS_BYTES, -1, -1, -1);
    return map_model(c, &m);
}

kvb_status kvb__gguf_read(kvb__reader *r, const void *buf, size_t len,
                          uint64_t file_len, uint64_t *need_out)
{
    cur c = {r,    buf, len, file_len < len ? len : file_len, 0, need_out,
             NULL, len, NULL};
    return parse(&c);
}

/* ---- a file, read as it is parsed ---- */

/* Bytes read per step past what the parser asked for: as many as were
 * read so far, from 64 KiB up to 512 KiB.  The header is read in slices
 * that stay in the CPU cache while they are parsed, and little past its
 * end (the bytes after it are tensor data, often a hole of zeros). */
#define READ_STEP_MIN ((uint64_t)1 << 16)
#define READ_STEP_MAX ((uint64_t)1 << 19)

static kvb_status fill_file(cur *c, uint64_t end)
{
    FILE *f = c->fill_ctx;
    unsigned char *p = (unsigned char *)(uintptr_t)c->p;
    uint64_t step = kvb__min(READ_STEP_MAX, kvb__max(READ_STEP_MIN, c->len));
    uint64_t want = kvb__min(c->cap, kvb__max(end, c->len + step));
    size_t got = fread(p + c->len, 1, (size_t)(want - c->len), f);
    c->len += got;
    if (c->len >= end)
        return KVB_OK;
    return kvb__read_fail(c->r, KVB_EIO, "path", -1, -1, (int64_t)c->len,
                          "cannot read %llu bytes of the file (it ends at "
                          "%llu)",
                          (unsigned long long)end, (unsigned long long)c->len);
}

kvb_status kvb__gguf_read_file(kvb__reader *r, FILE *f, uint64_t file_len,
                               uint64_t cap, uint64_t *need_out)
{
    cap = kvb__min(cap, file_len);
    unsigned char *buf = malloc((size_t)cap + 1);
    if (!buf)
        return kvb__read_fail(r, KVB_ENOMEM, "path", -1, -1, -1,
                              "cannot allocate %llu bytes for the header",
                              (unsigned long long)cap);
    cur c = {r, buf, 0, file_len, 0, need_out, fill_file, cap, f};
    kvb_status st = KVB_OK;
    if (fseeko(f, 0, SEEK_SET) != 0)
        st = kvb__read_fail(r, KVB_EIO, "path", -1, -1, -1,
                            "cannot read the file from its start");
    if (!st)
        st = parse(&c);
    free(buf);
    return st;
}
