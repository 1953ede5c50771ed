/*
 * test_read_gguf.c -- GGUF headers written by a tiny writer below (the
 * layout of ggml's docs/gguf.md: little-endian, strings as u64 length +
 * bytes, tensor data at multiples of general.alignment), read back.
 */
#define _POSIX_C_SOURCE 200809L
#include "testing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the writer ---- */

typedef struct gb {
    unsigned char *p;
    size_t n, cap;
} gb;

static void put(gb *b, const void *src, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

static void put_le(gb *b, uint64_t v, unsigned n)
{
    unsigned char x[8];
    for (unsigned i = 0; i < n; i++)
        x[i] = (unsigned char)(v >> (8 * i));
    put(b, x, n);
}

static void put_str(gb *b, const char *s)
{
    put_le(b, strlen(s), 8);
    put(b, s, strlen(s));
}

enum { U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 };

static void header(gb *b, uint32_t version, uint64_t tensors, uint64_t kvs)
{
    put(b, "GGUF", 4);
    put_le(b, version, 4);
    put_le(b, tensors, 8);
    put_le(b, kvs, 8);
}

static void kv_u32(gb *b, const char *key, uint32_t v)
{
    put_str(b, key);
    put_le(b, U32, 4);
    put_le(b, v, 4);
}

static void kv_str(gb *b, const char *key, const char *v)
{
    put_str(b, key);
    put_le(b, STRING, 4);
    put_str(b, v);
}

/* A tensor info at the running offset; returns the next one. */
static uint64_t info(gb *b, const char *name, uint32_t nd, const uint64_t *ne,
                     uint32_t type, uint64_t offset, uint64_t bytes)
{
    put_str(b, name);
    put_le(b, nd, 4);
    for (uint32_t i = 0; i < nd; i++)
        put_le(b, ne[i], 8);
    put_le(b, type, 4);
    put_le(b, offset, 8);
    return offset + (bytes + 31) / 32 * 32; /* default alignment 32 */
}

typedef struct parsed {
    kvb_model m;
    kvb_quant q;
    kvb_read_info info;
    kvb_error e;
    kvb_status st;
} parsed;

static parsed parse(const gb *b, size_t len)
{
    parsed r;
    assert_int_equal(KVB_MODEL_INIT(&r.m), KVB_OK);
    assert_int_equal(KVB_QUANT_INIT(&r.q), KVB_OK);
    assert_int_equal(KVB_READ_INFO_INIT(&r.info), KVB_OK);
    assert_int_equal(kvb_error_init(&r.e, sizeof r.e), KVB_OK);
    r.st = kvb_gguf_parse(b->p, len, &r.m, &r.q, &r.info, &r.e);
    return r;
}

static void expect_ok(const parsed *r)
{
    if (r->st != KVB_OK)
        fail_msg("%s %s: %s (offset %lld)", kvb_status_name(r->st), r->e.field,
                 r->e.message, (long long)r->e.offset);
}

/* ---- a 2-layer Llama in Q4_K_M ---- */

enum { T_F32 = 0, T_Q4_K = 12, T_Q6_K = 14 };

/* hidden 256, 4 heads of 64, 2 KV heads, MLP 512, vocab 1000, untied.
 * Types as llama.cpp's Q4_K_M mix gives them (quant_formats.md §2):
 * token_embd the base Q4_K, output Q6_K, norms F32, attn_v and ffn_down
 * Q6_K where use_more_bits(i, 2) -- only layer 1 (i >= 7*2/8) -- else
 * Q4_K.  Bytes: Q4_K 144 and Q6_K 210 per 256 elements, F32 4 each. */
static gb tiny_q4km(uint32_t version)
{
    gb b = {0};
    header(&b, version, 2 + 9 * 2 + 1, 9);
    kv_str(&b, "general.architecture", "llama");
    kv_str(&b, "general.name", "Tiny Llama");
    kv_u32(&b, "general.file_type", 15); /* MOSTLY_Q4_K_M */
    kv_u32(&b, "llama.block_count", 2);
    kv_u32(&b, "llama.embedding_length", 256);
    kv_u32(&b, "llama.feed_forward_length", 512);
    kv_u32(&b, "llama.attention.head_count", 4);
    kv_u32(&b, "llama.attention.head_count_kv", 2);
    kv_u32(&b, "llama.context_length", 4096);
    uint64_t off = 0;
    const uint64_t embd[] = {256, 1000}, vec[] = {256}, sq[] = {256, 256};
    const uint64_t kv[] = {256, 128}, up[] = {256, 512}, down[] = {512, 256};
    off = info(&b, "token_embd.weight", 2, embd, T_Q4_K, off, 144000);
    for (int i = 0; i < 2; i++) {
        char n[64];
#define T(name, nd, ne, type, bytes)                                           \
    snprintf(n, sizeof n, "blk.%d." name, i);                                  \
    off = info(&b, n, nd, ne, type, off, bytes)
        T("attn_norm.weight", 1, vec, T_F32, 1024);
        T("attn_q.weight", 2, sq, T_Q4_K, 36864);
        T("attn_k.weight", 2, kv, T_Q4_K, 18432);
        T("attn_v.weight", 2, kv, i ? T_Q6_K : T_Q4_K, i ? 26880 : 18432);
        T("attn_output.weight", 2, sq, T_Q4_K, 36864);
        T("ffn_norm.weight", 1, vec, T_F32, 1024);
        T("ffn_gate.weight", 2, up, T_Q4_K, 73728);
        T("ffn_up.weight", 2, up, T_Q4_K, 73728);
        T("ffn_down.weight", 2, down, i ? T_Q6_K : T_Q4_K, i ? 107520 : 73728);
#undef T
    }
    off = info(&b, "output_norm.weight", 1, vec, T_F32, off, 1024);
    info(&b, "output.weight", 2, embd, T_Q6_K, off, 210000);
    return b; /* the header ends with the last tensor info */
}

static void test_read_gguf_q4km_exact(void **state)
{
    (void)state;
    gb b = tiny_q4km(3);
    parsed r = parse(&b, b.n); /* no tensor data at all: header only */
    expect_ok(&r);
    /* token_embd 1000 x 256/256 x 144 = 144,000; output 1000 x 210 =
     * 210,000; output_norm 1,024.  Layer 0: norms 2 x 1,024, q 256 x 144
     * = 36,864, k 128 x 144 = 18,432, v 18,432, o 36,864, gate and up
     * 512 x 144 = 73,728 each, down 512 x 144 = 73,728: 333,824.
     * Layer 1: v 128 x 210 = 26,880, down 512 x 210 = 107,520: 376,064.
     * Total 1,064,912. */
    assert_int_equal(r.info.weights_bytes, 1064912);
    assert_int_equal(r.info.tensor_count, 21);
    assert_int_equal(r.info.file_version, 3);
    assert_int_equal(r.info.weights_format, KVB_FORMAT_GGUF);
    assert_string_equal(r.info.arch_name, "llama");
    assert_string_equal(r.m.name, "Tiny Llama");
    assert_int_equal(r.m.arch, KVB_ARCH_LLAMA);
    assert_int_equal(r.m.num_hidden_layers, 2);
    assert_int_equal(r.m.hidden_size, 256);
    assert_int_equal(r.m.num_key_value_heads, 2);
    assert_int_equal(r.m.intermediate_size, 512);
    assert_int_equal(r.m.vocab_size, 1000);       /* token_embd's ne[1] */
    assert_int_equal(r.m.tie_word_embeddings, 0); /* output.weight exists */
    assert_int_equal(r.q.method, KVB_QUANT_Q4_K_M);
    /* The core's estimate for the same architecture under Q4_K_M follows
     * the same llama.cpp rules, so it is the same to the byte. */
    kvb_weights w;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_WEIGHTS_INIT(&w), KVB_OK);
    assert_int_equal(kvb_weights_compute(&r.m, &r.q, 1, 1, &w, &e), KVB_OK);
    assert_int_equal(w.bytes, r.info.weights_bytes);
    free(b.p);
}

static void test_read_gguf_v2(void **state)
{
    (void)state;
    gb b = tiny_q4km(2); /* v2 and v3 share the little-endian layout */
    parsed r = parse(&b, b.n);
    expect_ok(&r);
    assert_int_equal(r.info.file_version, 2);
    assert_int_equal(r.info.weights_bytes, 1064912);
    free(b.p);
}

static void test_read_gguf_truncation(void **state)
{
    (void)state;
    gb b = tiny_q4km(3);
    /* Every prefix shorter than the tensor infos fails cleanly, with an
     * offset inside what was given; the full infos read. */
    for (size_t len = 0; len < b.n; len++) {
        parsed r = parse(&b, len);
        if (r.st != KVB_EPARSE)
            fail_msg("prefix %zu: %s", len, kvb_status_name(r.st));
        assert_true(r.e.offset >= 0 && (size_t)r.e.offset <= len);
    }
    parsed r = parse(&b, b.n);
    expect_ok(&r);
    free(b.p);
}

/* ---- every ggml type ---- */

typedef struct seen {
    char names[64][64];
    uint64_t bytes[64];
    int n;
} seen;

static void on_tensor(void *ctx, const char *name, size_t len, const char *type,
                      uint64_t bytes)
{
    seen *s = ctx;
    (void)type;
    snprintf(s->names[s->n], sizeof s->names[0], "%.*s", (int)len, name);
    s->bytes[s->n++] = bytes;
}

static void test_read_gguf_every_type(void **state)
{
    (void)state;
    /* id, elements per block, bytes per block: quant_formats.md §1 */
    static const struct {
        uint32_t id, block, bytes;
    } t[] = {
        {0, 1, 4},      {1, 1, 2},      {2, 32, 18},    {3, 32, 20},
        {6, 32, 22},    {7, 32, 24},    {8, 32, 34},    {9, 32, 36},
        {10, 256, 84},  {11, 256, 110}, {12, 256, 144}, {13, 256, 176},
        {14, 256, 210}, {15, 256, 292}, {16, 256, 66},  {17, 256, 74},
        {18, 256, 98},  {19, 256, 50},  {20, 32, 18},   {21, 256, 110},
        {22, 256, 82},  {23, 256, 136}, {24, 1, 1},     {25, 1, 2},
        {26, 1, 4},     {27, 1, 8},     {28, 1, 8},     {29, 256, 56},
        {30, 1, 2},     {34, 256, 54},  {35, 256, 66},  {39, 32, 17},
        {40, 64, 36},   {41, 128, 18},  {42, 64, 18},
    };
    size_t n = sizeof t / sizeof t[0];
    gb b = {0};
    header(&b, 3, n + 1, 8);
    kv_str(&b, "general.architecture", "llama");
    kv_u32(&b, "llama.block_count", 1);
    kv_u32(&b, "llama.embedding_length", 256);
    kv_u32(&b, "llama.feed_forward_length", 512);
    kv_u32(&b, "llama.attention.head_count", 4);
    kv_u32(&b, "llama.context_length", 4096);
    kv_u32(&b, "llama.vocab_size", 1000);
    kv_u32(&b, "general.file_type", 31); /* IQ1_M: no kvb method */
    uint64_t off = 0, total = 0;
    const uint64_t ne[] = {256, 2}; /* 512 elements: whole blocks of all */
    for (size_t i = 0; i < n; i++) {
        char name[16];
        uint64_t bytes = 512 / t[i].block * t[i].bytes;
        snprintf(name, sizeof name, "t%u", t[i].id);
        off = info(&b, name, 2, ne, t[i].id, off, bytes);
        total += bytes;
    }
    info(&b, "output.weight", 2, ne, 0, off, 2048);
    total += 2048;
    /* per tensor, through the reader's hook */
    kvb__reader rd;
    seen s = {0};
    uint64_t need = 0;
    kvb__reader_init(&rd, "", NULL);
    rd.on_tensor = on_tensor;
    rd.on_tensor_ctx = &s;
    assert_int_equal(kvb__gguf_read(&rd, b.p, b.n, b.n, &need), KVB_OK);
    for (size_t i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "t%u", t[i].id);
        assert_string_equal(s.names[i], name);
        assert_int_equal(s.bytes[i], 512 / t[i].block * t[i].bytes);
    }
    /* Q4_0: 512 / 32 x 18 = 288; Q6_K: 2 x 210 = 420; MXFP4 16 x 17. */
    assert_int_equal(s.bytes[2], 288);  /* t2 */
    assert_int_equal(s.bytes[12], 420); /* t14 */
    assert_int_equal(s.bytes[31], 272); /* t39 */
    assert_int_equal(rd.info.weights_bytes, total);
    /* general.file_type 31 has no method: a warning, exact bytes stand */
    parsed r = parse(&b, b.n);
    expect_ok(&r);
    assert_int_equal(r.q.method, KVB_QUANT_AUTO);
    assert_int_equal(r.info.warning_count, 1);
    free(b.p);
}

/* A file with one tensor of ggml type `type` and shape ne0 x 1. */
static parsed one_tensor(uint32_t type, uint64_t ne0, uint64_t offset)
{
    gb b = {0};
    header(&b, 3, 1, 5);
    kv_str(&b, "general.architecture", "llama");
    kv_u32(&b, "llama.block_count", 1);
    kv_u32(&b, "llama.embedding_length", 64);
    kv_u32(&b, "llama.attention.head_count", 1);
    kv_u32(&b, "llama.context_length", 64);
    const uint64_t ne[] = {ne0};
    info(&b, "x", 1, ne, type, offset, 0);
    parsed r = parse(&b, b.n);
    free(b.p);
    return r;
}

static void test_read_gguf_bad_tensors(void **state)
{
    (void)state;
    /* Header 24 bytes; five pairs; then the info: name (8 + 1), dims
     * (4 + 8), then the type at the offset each message names. */
    parsed r = one_tensor(4, 32, 0); /* Q4_2, removed from ggml */
    assert_int_equal(r.st, KVB_EPARSE);
    assert_string_equal(r.e.field, "gguf.tensor_infos");
    r = one_tensor(99, 32, 0);
    assert_int_equal(r.st, KVB_EUNSUPPORTED);
    assert_non_null(strstr(r.e.message, "ggml type 99"));
    int64_t type_at = r.e.offset;
    r = one_tensor(2, 33, 0); /* Q4_0 rows must be whole 32-blocks */
    assert_int_equal(r.st, KVB_EPARSE);
    assert_int_equal(r.e.offset, type_at);
    r = one_tensor(0, 8, 32); /* the first tensor starts at 0 */
    assert_int_equal(r.st, KVB_EPARSE);
    assert_int_equal(r.e.offset, type_at + 4);
    assert_non_null(strstr(r.e.message, "expected 0"));
}

static void test_read_gguf_bad_header(void **state)
{
    (void)state;
    gb b = tiny_q4km(3);
    memcpy(b.p, "GGUG", 4);
    parsed r = parse(&b, b.n);
    assert_int_equal(r.st, KVB_EPARSE);
    assert_string_equal(r.e.field, "gguf.magic");
    assert_int_equal(r.e.offset, 0);
    memcpy(b.p, "GGUF", 4);
    static const struct {
        uint32_t version;
        kvb_status st;
    } v[] = {{0, KVB_EPARSE},
             {1, KVB_EUNSUPPORTED},           /* 32-bit counts, gone */
             {4, KVB_EUNSUPPORTED},           /* newer than this reader */
             {0x03000000, KVB_EUNSUPPORTED}}; /* big-endian v3 */
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        for (int k = 0; k < 4; k++)
            b.p[4 + k] = (unsigned char)(v[i].version >> (8 * k));
        r = parse(&b, b.n);
        assert_int_equal(r.st, v[i].st);
        assert_string_equal(r.e.field, "gguf.version");
        assert_int_equal(r.e.offset, 4);
    }
    free(b.p);
}

static void test_read_gguf_limits(void **state)
{
    (void)state;
    gb b = {0};
    header(&b, 3, (uint64_t)1 << 40, 0); /* 2^40 tensors */
    parsed r = parse(&b, b.n);
    assert_int_equal(r.st, KVB_ELIMIT);
    assert_int_equal(r.e.offset, 8);
    free(b.p);
    b = (gb){0};
    header(&b, 3, 0, (uint64_t)1 << 40); /* 2^40 pairs */
    r = parse(&b, b.n);
    assert_int_equal(r.st, KVB_ELIMIT);
    assert_int_equal(r.e.offset, 16);
    free(b.p);
    b = (gb){0};
    header(&b, 3, 0, 1);
    put_le(&b, (uint64_t)1 << 62, 8); /* a 2^62-byte key */
    r = parse(&b, b.n);
    assert_int_equal(r.st, KVB_ELIMIT);
    assert_int_equal(r.e.offset, 24);
    free(b.p);
    b = (gb){0};
    header(&b, 3, 0, 1);
    put_str(&b, "big");
    put_le(&b, ARRAY, 4);
    put_le(&b, U8, 4);
    put_le(&b, (uint64_t)1 << 30, 8); /* 2^30 elements */
    r = parse(&b, b.n);
    assert_int_equal(r.st, KVB_ELIMIT);
    free(b.p);
    b = (gb){0};
    header(&b, 3, 0, 1);
    put_str(&b, "deep");
    put_le(&b, ARRAY, 4);
    for (int i = 0; i < 5; i++) { /* arrays of arrays, 5 deep */
        put_le(&b, ARRAY, 4);
        put_le(&b, 1, 8);
    }
    r = parse(&b, b.n);
    assert_int_equal(r.st, KVB_ELIMIT);
    free(b.p);
    b = (gb){0};
    header(&b, 3, 1, 0);
    char name[80];
    memset(name, 'n', 64);
    name[64] = '\0'; /* 64 bytes: ggml's limit is 63 plus the NUL */
    put_str(&b, name);
    r = parse(&b, b.n);
    assert_int_equal(r.st, KVB_ELIMIT);
    assert_int_equal(r.e.offset, 24);
    free(b.p);
}

/* The seven pairs a minimal llama file needs. */
static void minimal_llama(gb *b)
{
    kv_str(b, "general.architecture", "llama");
    kv_u32(b, "llama.block_count", 1);
    kv_u32(b, "llama.embedding_length", 64);
    kv_u32(b, "llama.feed_forward_length", 128);
    kv_u32(b, "llama.attention.head_count", 1);
    kv_u32(b, "llama.context_length", 64);
    kv_u32(b, "llama.vocab_size", 1000);
}

/* One pair of every value type, an array of strings and an array of
 * arrays ([[1, 2], [3]] of u16); then a type id that does not exist. */
static void test_read_gguf_value_types(void **state)
{
    (void)state;
    static const unsigned sizes[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    gb m = {0};
    header(&m, 3, 0, 7 + 13 + 1);
    minimal_llama(&m);
    for (uint32_t t = 0; t <= F64; t++) {
        char key[32];
        snprintf(key, sizeof key, "test.type%u", t);
        put_str(&m, key);
        put_le(&m, t, 4);
        if (t == STRING) {
            put_str(&m, "value");
        } else if (t == ARRAY) {
            put_le(&m, ARRAY, 4);
            put_le(&m, 2, 8);
            put_le(&m, U16, 4);
            put_le(&m, 2, 8);
            put_le(&m, 1, 2);
            put_le(&m, 2, 2);
            put_le(&m, U16, 4);
            put_le(&m, 1, 8);
            put_le(&m, 3, 2);
        } else {
            put_le(&m, 1, sizes[t]);
        }
    }
    put_str(&m, "test.strings");
    put_le(&m, ARRAY, 4);
    put_le(&m, STRING, 4);
    put_le(&m, 2, 8);
    put_str(&m, "a");
    put_str(&m, "bc");
    parsed r = parse(&m, m.n);
    expect_ok(&r);
    assert_int_equal(r.m.vocab_size, 1000);
    assert_int_equal(r.info.tensor_count, 0);
    assert_int_equal(r.info.weights_bytes, 0);
    assert_int_equal(r.info.header_bytes, m.n);
    m.p[16] = 7 + 13 + 2;
    put_str(&m, "test.bad");
    put_le(&m, 13, 4); /* types end at 12 */
    r = parse(&m, m.n);
    assert_int_equal(r.st, KVB_EPARSE);
    assert_int_equal(r.e.offset, (int64_t)m.n - 4);
    free(m.p);
}

/* deepseek2 keys as llama.cpp's converter writes them (MLA, MoE). */
static void test_read_gguf_deepseek(void **state)
{
    (void)state;
    gb b = {0};
    header(&b, 3, 1, 17);
    kv_str(&b, "general.architecture", "deepseek2");
    kv_u32(&b, "deepseek2.block_count", 61);
    kv_u32(&b, "deepseek2.embedding_length", 7168);
    kv_u32(&b, "deepseek2.feed_forward_length", 18432);
    kv_u32(&b, "deepseek2.attention.head_count", 128);
    kv_u32(&b, "deepseek2.attention.head_count_kv", 128);
    kv_u32(&b, "deepseek2.context_length", 163840);
    kv_u32(&b, "deepseek2.vocab_size", 129280);
    kv_u32(&b, "deepseek2.attention.q_lora_rank", 1536);
    kv_u32(&b, "deepseek2.attention.kv_lora_rank", 512);
    kv_u32(&b, "deepseek2.attention.key_length", 192); /* 128 + 64 */
    kv_u32(&b, "deepseek2.attention.value_length", 128);
    kv_u32(&b, "deepseek2.rope.dimension_count", 64);
    kv_u32(&b, "deepseek2.leading_dense_block_count", 3);
    kv_u32(&b, "deepseek2.expert_count", 256);
    kv_u32(&b, "deepseek2.expert_used_count", 8);
    kv_u32(&b, "deepseek2.expert_feed_forward_length", 2048);
    const uint64_t ne[] = {256};
    info(&b, "blk.3.exp_probs_b.bias", 1, ne, 0, 0, 1024);
    parsed r = parse(&b, b.n);
    expect_ok(&r);
    /* One more key (expert_shared_count 1) and an output tensor would make
     * it the DeepSeek-V3 preset; compare what is here. */
    kvb_model want = preset_model("DeepSeek-V3");
    assert_int_equal(r.m.arch, want.arch);
    assert_int_equal(r.m.qk_nope_head_dim, want.qk_nope_head_dim);
    assert_int_equal(r.m.qk_rope_head_dim, want.qk_rope_head_dim);
    assert_int_equal(r.m.v_head_dim, want.v_head_dim);
    assert_int_equal(r.m.q_lora_rank, want.q_lora_rank);
    assert_int_equal(r.m.first_k_dense_replace, want.first_k_dense_replace);
    assert_int_equal(r.m.moe_intermediate_size, want.moe_intermediate_size);
    assert_int_equal(r.m.head_dim, 0); /* MLA: no head_dim */
    assert_int_equal(r.m.flags, KVB_MODEL_ROUTER_SCORE_BIAS);
    assert_int_equal(r.m.tie_word_embeddings, 1); /* no output.weight */
    free(b.p);
}

/* Mixtral files say "llama" with 8 experts; Gemma 2 and gpt-oss have
 * llama.cpp's fixed period 2; a bool array per layer gives any period. */
static void test_read_gguf_families(void **state)
{
    (void)state;
    gb b = {0};
    header(&b, 3, 0, 9);
    kv_str(&b, "general.architecture", "llama");
    kv_u32(&b, "llama.block_count", 32);
    kv_u32(&b, "llama.embedding_length", 4096);
    kv_u32(&b, "llama.feed_forward_length", 14336);
    kv_u32(&b, "llama.attention.head_count", 32);
    kv_u32(&b, "llama.context_length", 32768);
    kv_u32(&b, "llama.vocab_size", 32000);
    kv_u32(&b, "llama.expert_count", 8);
    kv_u32(&b, "llama.expert_used_count", 2);
    parsed r = parse(&b, b.n);
    expect_ok(&r);
    assert_int_equal(r.m.arch, KVB_ARCH_MIXTRAL);
    assert_int_equal(r.m.moe_intermediate_size, 14336);
    free(b.p);

    b = (gb){0};
    header(&b, 3, 0, 9);
    kv_str(&b, "general.architecture", "gemma3");
    kv_u32(&b, "gemma3.block_count", 4);
    kv_u32(&b, "gemma3.embedding_length", 256);
    kv_u32(&b, "gemma3.feed_forward_length", 512);
    kv_u32(&b, "gemma3.attention.head_count", 4);
    kv_u32(&b, "gemma3.context_length", 4096);
    kv_u32(&b, "gemma3.vocab_size", 1000);
    kv_u32(&b, "gemma3.attention.sliding_window", 512);
    put_str(&b, "gemma3.attention.sliding_window_pattern");
    put_le(&b, ARRAY, 4); /* sliding, global, sliding, global */
    put_le(&b, BOOL, 4);
    put_le(&b, 4, 8);
    put_le(&b, 0x00010001u, 4);
    r = parse(&b, b.n);
    expect_ok(&r);
    assert_int_equal(r.m.sliding_window, 512);
    assert_int_equal(r.m.sliding_window_pattern, 2);
    assert_int_equal(r.m.flags, KVB_MODEL_SANDWICH_NORM | KVB_MODEL_QK_NORM);
    /* sliding, global, sliding, sliding: layer 3 breaks the period 2 */
    b.p[b.n - 4] = 1;
    b.p[b.n - 3] = 0;
    b.p[b.n - 2] = 1;
    b.p[b.n - 1] = 1;
    r = parse(&b, b.n);
    assert_int_equal(r.st, KVB_EUNSUPPORTED);
    free(b.p);

    /* an unknown architecture with the usual keys: generic, warned */
    b = (gb){0};
    header(&b, 3, 0, 7);
    kv_str(&b, "general.architecture", "newarch");
    kv_u32(&b, "newarch.block_count", 2);
    kv_u32(&b, "newarch.embedding_length", 256);
    kv_u32(&b, "newarch.feed_forward_length", 512);
    kv_u32(&b, "newarch.attention.head_count", 4);
    kv_u32(&b, "newarch.context_length", 4096);
    kv_u32(&b, "newarch.vocab_size", 1000);
    r = parse(&b, b.n);
    expect_ok(&r);
    assert_int_equal(r.m.arch, KVB_ARCH_GENERIC);
    assert_int_equal(r.info.warning_count, 1);
    free(b.p);
    /* a missing key names itself */
    b = (gb){0};
    header(&b, 3, 0, 6);
    kv_str(&b, "general.architecture", "newarch");
    kv_u32(&b, "newarch.block_count", 2);
    kv_u32(&b, "newarch.embedding_length", 256);
    kv_u32(&b, "newarch.feed_forward_length", 512);
    kv_u32(&b, "newarch.context_length", 4096);
    kv_u32(&b, "newarch.vocab_size", 1000);
    r = parse(&b, b.n);
    assert_int_equal(r.st, KVB_EPARSE);
    assert_string_equal(r.e.field, "gguf.newarch.attention.head_count");
    free(b.p);
    /* Gemma 3n: refused by name, never read as a Llama (its shared KV
     * layers and per-layer embeddings would be lost) */
    b = (gb){0};
    header(&b, 3, 0, 6);
    kv_str(&b, "general.architecture", "gemma3n");
    kv_u32(&b, "gemma3n.block_count", 30);
    kv_u32(&b, "gemma3n.embedding_length", 2048);
    kv_u32(&b, "gemma3n.attention.head_count", 8);
    kv_u32(&b, "gemma3n.context_length", 32768);
    kv_u32(&b, "gemma3n.vocab_size", 262400);
    r = parse(&b, b.n);
    assert_int_equal(r.st, KVB_EUNSUPPORTED);
    assert_string_equal(r.e.field, "gguf.general.architecture");
    free(b.p);
}

/* ---- string arrays: the two walks of skip_strings ---- */

/* A llama whose vocabulary is `n` strings from `token`, with a key the
 * model needs after the array (a walk that lost its way would misread
 * it) and the vocabulary size from the array's length. */
static gb vocab_file(uint64_t n, size_t (*token)(uint64_t i, char *out))
{
    gb b = {0};
    header(&b, 3, 0, 7);
    kv_str(&b, "general.architecture", "llama");
    kv_u32(&b, "llama.block_count", 2);
    kv_u32(&b, "llama.embedding_length", 256);
    kv_u32(&b, "llama.feed_forward_length", 512);
    kv_u32(&b, "llama.attention.head_count", 4);
    put_str(&b, "tokenizer.ggml.tokens");
    put_le(&b, ARRAY, 4);
    put_le(&b, STRING, 4);
    put_le(&b, n, 8);
    for (uint64_t i = 0; i < n; i++) {
        char tok[512];
        size_t len = token(i, tok);
        put_le(&b, len, 8);
        put(&b, tok, len);
    }
    kv_u32(&b, "llama.context_length", 4096);
    return b;
}

/* BPE-like pieces, 0..40 bytes, a few of 300 (lengths over 255). */
static size_t plain_token(uint64_t i, char *out)
{
    size_t len = i % 97 == 0 ? 300 : (size_t)((i * 2654435761u) >> 7) % 41;
    memset(out, 'a' + (int)(i % 26), len);
    return len;
}

/* Pieces holding what looks like a length field ("\x05" and seven zero
 * bytes): the second walk's guess lands inside a string and must be
 * dropped. */
static size_t decoy_token(uint64_t i, char *out)
{
    size_t len = 16 + (size_t)(i % 5);
    memset(out, 0, len);
    out[0] = 'x';
    out[1] = 5;
    out[len - 1] = 'y';
    return len;
}

/* 32 long pieces, then one-byte ones: the guess lands so late that the
 * second walk runs past the array's end (into the next key) before the
 * first one arrives, and must be dropped. */
static size_t overshoot_token(uint64_t i, char *out)
{
    size_t len = i < 32 ? 100 : 1;
    memset(out, 'z', len);
    return len;
}

static void expect_vocab(const gb *b, uint64_t n)
{
    parsed r = parse(b, b->n);
    expect_ok(&r);
    assert_int_equal(r.m.vocab_size, n);
    assert_int_equal(r.m.max_position_embeddings, 4096);
    assert_int_equal(r.info.header_bytes, b->n);
}

static void test_read_gguf_string_walks(void **state)
{
    (void)state;
    static const struct {
        size_t (*token)(uint64_t, char *);
        uint64_t n;
    } c[] = {{plain_token, 20000},
             {plain_token, 95},
             {plain_token, 96},
             {decoy_token, 5000},
             {overshoot_token, 232}};
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        gb b = vocab_file(c[k].n, c[k].token);
        expect_vocab(&b, c[k].n);
        /* a string cut or grown by one byte anywhere: never a read past
         * the buffer, always a clean status */
        for (size_t at = 24; at < b.n && c[k].n < 1000; at += 7) {
            b.p[at] ^= 1;
            parsed r = parse(&b, b.n);
            assert_true(r.st == KVB_OK || r.e.offset <= (int64_t)b.n);
            b.p[at] ^= 1;
        }
        free(b.p);
    }
    /* read from a file, in slices: each slice is walked on its own */
    char dir[] = "/tmp/kvb-walk-XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/vocab.gguf", dir);
    gb v = vocab_file(40000, plain_token);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(v.p, 1, v.n, f), v.n);
    fclose(f);
    parsed r;
    assert_int_equal(KVB_MODEL_INIT(&r.m), KVB_OK);
    assert_int_equal(KVB_QUANT_INIT(&r.q), KVB_OK);
    assert_int_equal(KVB_READ_INFO_INIT(&r.info), KVB_OK);
    assert_int_equal(kvb_error_init(&r.e, sizeof r.e), KVB_OK);
    r.st = kvb_model_read(path, &r.m, &r.q, &r.info, &r.e);
    expect_ok(&r);
    assert_int_equal(r.m.vocab_size, 40000);
    assert_int_equal(r.info.header_bytes, v.n);
    unlink(path);
    rmdir(dir);
    free(v.p);
    /* every prefix of the overshoot file fails cleanly */
    gb b = vocab_file(232, overshoot_token);
    for (size_t len = 0; len < b.n; len++) {
        r = parse(&b, len);
        if (r.st != KVB_EPARSE)
            fail_msg("prefix %zu: %s", len, kvb_status_name(r.st));
        assert_true(r.e.offset >= 0 && (size_t)r.e.offset <= len);
    }
    free(b.p);
}

/* ---- files ---- */

static void write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    fclose(f);
}

static void test_read_gguf_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/kvb-gguf-XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    gb b = tiny_q4km(3);
    /* a file holding only the header (truncated after the infos) */
    snprintf(path, sizeof path, "%s/tiny.gguf", dir);
    write_file(path, b.p, b.n);
    kvb_model m;
    kvb_quant q;
    kvb_read_info info;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_MODEL_INIT(&m), KVB_OK);
    assert_int_equal(KVB_QUANT_INIT(&q), KVB_OK);
    assert_int_equal(KVB_READ_INFO_INIT(&info), KVB_OK);
    assert_int_equal(kvb_model_read(path, &m, &q, &info, &e), KVB_OK);
    assert_int_equal(info.format, KVB_FORMAT_GGUF);
    /* tiny_llama at Q4_K_M, computed by hand in test_quant.c */
    assert_int_equal(info.weights_bytes, 1064912);
    /* the directory holding it reads as that file */
    assert_int_equal(kvb_model_read(dir, &m, &q, &info, &e), KVB_OK);
    assert_int_equal(info.format, KVB_FORMAT_DIRECTORY);
    assert_int_equal(info.weights_bytes, 1064912);
    /* two .gguf files: which one is meant? */
    char path2[256];
    snprintf(path2, sizeof path2, "%s/other.gguf", dir);
    write_file(path2, b.p, b.n);
    assert_int_equal(kvb_model_read(dir, &m, &q, &info, &e), KVB_EINVAL);
    unlink(path2);
    /* A header over the 16 MiB first read: two 9 MiB strings before the
     * infos make the reader read more of the file and parse again. */
    gb big = {0};
    header(&big, 3, 21, 11);
    char *pad = malloc(9u << 20);
    assert_non_null(pad);
    memset(pad, 'x', 9u << 20);
    pad[(9u << 20) - 1] = '\0';
    kv_str(&big, "pad.one", pad);
    kv_str(&big, "pad.two", pad);
    free(pad);
    put(&big, b.p + 24, b.n - 24); /* tiny's 9 pairs and infos */
    write_file(path, big.p, big.n);
    assert_int_equal(kvb_model_read(path, &m, &q, &info, &e), KVB_OK);
    assert_int_equal(info.weights_bytes, 1064912);
    assert_true(info.header_bytes > (16u << 20));
    /* the same file cut inside the second string */
    write_file(path, big.p, (17u << 20));
    assert_int_equal(kvb_model_read(path, &m, &q, &info, &e), KVB_EPARSE);
    assert_non_null(strstr(e.source, "tiny.gguf"));
    assert_true(e.offset > 0);
    unlink(path);
    rmdir(dir);
    free(big.p);
    free(b.p);
}

/* A recurrent hybrid's header: Qwen3-Next's keys as llama.cpp writes them
 * (the print_info of a Qwen3-Next GGUF: ssm_d_conv 4, ssm_d_inner 4096,
 * ssm_d_state 128, ssm_dt_rank 32, ssm_n_group 16), scaled down here to 8
 * layers; `arch` names the architecture, `tensors` the tensor infos the
 * caller appends. */
static gb hybrid_header(const char *arch, bool interval, uint64_t tensors)
{
    gb b = {0};
    char key[96];
    header(&b, 3, tensors, interval ? 16 : 15);
    kv_str(&b, "general.architecture", arch);
#define KV(suffix, v)                                                          \
    snprintf(key, sizeof key, "%s." suffix, arch);                             \
    kv_u32(&b, key, v)
    KV("block_count", 8);
    KV("embedding_length", 256);
    KV("feed_forward_length", 512);
    KV("attention.head_count", 4);
    KV("attention.head_count_kv", 2);
    KV("attention.key_length", 64);
    KV("attention.value_length", 64);
    KV("context_length", 4096);
    KV("vocab_size", 1000);
    KV("ssm.conv_kernel", 4);
    KV("ssm.inner_size", 256);
    KV("ssm.state_size", 32);
    KV("ssm.time_step_rank", 8);
    KV("ssm.group_count", 4);
    if (interval) {
        KV("full_attention_interval", 2);
    }
#undef KV
    return b;
}

/* qwen3next: layer i attends iff (i + 1) % full_attention_interval == 0
 * (4 when absent); value heads = time_step_rank, head dim = inner /
 * heads, groups and state as given.  Other recurrent architectures are
 * refused rather than read as Llama-shaped decoders. */
static void test_read_gguf_recurrent(void **state)
{
    (void)state;
    gb b = hybrid_header("qwen3next", false, 0);
    parsed r = parse(&b, b.n);
    expect_ok(&r);
    assert_int_equal(r.m.arch, KVB_ARCH_QWEN3_NEXT);
    assert_string_equal(r.m.layer_pattern, "GGGAGGGA");
    assert_int_equal(r.m.ssm_num_heads, 8);
    assert_int_equal(r.m.ssm_head_dim, 32);
    assert_int_equal(r.m.ssm_n_groups, 4);
    assert_int_equal(r.m.ssm_state_size, 32);
    assert_int_equal(r.m.ssm_conv_kernel, 4);
    assert_int_equal(r.m.flags & KVB_MODEL_ATTN_GATE, KVB_MODEL_ATTN_GATE);
    free(b.p);
    b = hybrid_header("qwen35", true, 0);
    r = parse(&b, b.n);
    expect_ok(&r);
    assert_string_equal(r.m.layer_pattern, "GAGAGAGA");
    free(b.p);
    static const char *const refused[] = {"nemotron_h", "mamba2", "jamba"};
    for (size_t i = 0; i < 3; i++) {
        b = hybrid_header(refused[i], false, 0);
        r = parse(&b, b.n);
        assert_int_equal(r.st, KVB_EUNSUPPORTED);
        assert_string_equal(r.e.field, "gguf.general.architecture");
        assert_non_null(strstr(r.e.message, refused[i]));
        free(b.p);
    }
}

/* falcon-h1 (convert_hf_to_gguf.py FalconH1Model): attention beside a
 * Mamba2 mixer in every layer ('P'); ssm.time_step_rank is mamba_n_heads
 * and ssm.inner_size mamba_d_ssm, so the head is 256 / 8 = 32 wide; no
 * blk.N.ssm_norm.weight tensor means no gated norm (mamba_rms_norm
 * false), one means the norm is there. */
static void test_read_gguf_falcon_h1(void **state)
{
    (void)state;
    gb b = hybrid_header("falcon-h1", false, 0);
    parsed r = parse(&b, b.n);
    expect_ok(&r);
    assert_int_equal(r.m.arch, KVB_ARCH_FALCON_H1);
    assert_string_equal(r.m.layer_pattern, "PPPPPPPP");
    assert_int_equal(r.m.ssm_num_heads, 8);
    assert_int_equal(r.m.ssm_head_dim, 32);
    assert_int_equal(r.m.ssm_n_groups, 4);
    assert_int_equal(r.m.ssm_state_size, 32);
    assert_int_equal(r.m.head_dim, 64);
    assert_int_equal(r.m.flags & KVB_MODEL_SSM_NO_NORM, KVB_MODEL_SSM_NO_NORM);
    assert_int_equal(r.m.flags & KVB_MODEL_ATTN_GATE, 0);
    free(b.p);

    b = hybrid_header("falcon-h1", false, 1);
    const uint64_t ne[2] = {64, 4};
    info(&b, "blk.0.ssm_norm.weight", 2, ne, 0, 0, 64 * 4 * 4);
    r = parse(&b, b.n);
    expect_ok(&r);
    assert_int_equal(r.m.flags & KVB_MODEL_SSM_NO_NORM, 0);
    free(b.p);
}

/* An mmproj file (convert_hf_to_gguf.py --mmproj, as ggml-org's
 * mmproj-model-f16.gguf files: architecture "clip", clip.vision.* keys)
 * is refused with a pointer to --mmproj; a language model's GGUF has no
 * tower, so a plan of it never counts one. */
static void test_read_gguf_mmproj(void **state)
{
    (void)state;
    gb b = {0};
    header(&b, 3, 0, 4);
    kv_str(&b, "general.architecture", "clip");
    kv_u32(&b, "clip.vision.block_count", 27);
    kv_u32(&b, "clip.vision.embedding_length", 1152);
    kv_str(&b, "clip.projector_type", "gemma3");
    parsed r = parse(&b, b.n);
    assert_int_equal(r.st, KVB_EUNSUPPORTED);
    assert_string_equal(r.e.field, "gguf.general.architecture");
    assert_non_null(strstr(r.e.message, "--mmproj"));
    free(b.p);

    /* Ollama's llama3.2-vision GGUF is refused by name, never read as a
     * Llama with its cross-attention layers as self-attention ones. */
    b = (gb){0};
    header(&b, 3, 0, 2);
    kv_str(&b, "general.architecture", "mllama");
    kv_u32(&b, "mllama.block_count", 40);
    r = parse(&b, b.n);
    assert_int_equal(r.st, KVB_EUNSUPPORTED);
    assert_string_equal(r.e.field, "gguf.general.architecture");
    assert_non_null(strstr(r.e.message, "cross-attention"));
    free(b.p);

    b = tiny_q4km(3);
    r = parse(&b, b.n);
    expect_ok(&r);
    assert_int_equal(r.m.vision_kind, KVB_VISION_NONE);
    assert_int_equal(r.m.vision_num_layers, 0);
    free(b.p);
}

KVB_TESTS(cmocka_unit_test(test_read_gguf_q4km_exact),
          cmocka_unit_test(test_read_gguf_falcon_h1),
          cmocka_unit_test(test_read_gguf_v2),
          cmocka_unit_test(test_read_gguf_truncation),
          cmocka_unit_test(test_read_gguf_every_type),
          cmocka_unit_test(test_read_gguf_bad_tensors),
          cmocka_unit_test(test_read_gguf_bad_header),
          cmocka_unit_test(test_read_gguf_limits),
          cmocka_unit_test(test_read_gguf_value_types),
          cmocka_unit_test(test_read_gguf_deepseek),
          cmocka_unit_test(test_read_gguf_families),
          cmocka_unit_test(test_read_gguf_string_walks),
          cmocka_unit_test(test_read_gguf_files),
          cmocka_unit_test(test_read_gguf_recurrent),
          cmocka_unit_test(test_read_gguf_mmproj));
