/*
 * test_read_st_fast.c -- the safetensors fast paths (read_st_fast.c)
 * against the jansson paths they stand in for.  Every case runs both on
 * the same bytes and asserts the same status, the same kvb_error (field,
 * message, line, column, offset, source), the same sums and the same
 * calls to on_tensor or the shard callback.  Headers the scanner must
 * take are generated (every dtype, shapes of rank 0 to 4 and with zero
 * sizes, metadata present, absent or empty anywhere, every key order,
 * whitespace styles, out-of-order offsets); headers it must give up on
 * (escapes, UTF-8, unknown and repeated keys, odd numbers) and every
 * truncation and byte corruption of small headers check the fallback.
 */
#include "testing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a growing text ---- */

typedef struct text {
    char *p;
    size_t n, cap;
} text;

static void add(text *t, const char *fmt, ...) KVB__PRINTF(2, 3);

static void add(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->p ? t->p + t->n : NULL, t->p ? t->cap - t->n : 0,
                          fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if (t->p && t->n + (size_t)n < t->cap) {
            t->n += (size_t)n;
            return;
        }
        t->cap = (t->n + (size_t)n + 1) * 2;
        t->p = realloc(t->p, t->cap);
        assert_non_null(t->p);
    }
}

/* The 8-byte little-endian length, then the header. */
static unsigned char *st_bytes(const char *json, size_t len)
{
    unsigned char *b = malloc(8 + len + 1);
    assert_non_null(b);
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)((uint64_t)len >> (8 * i));
    memcpy(b + 8, json, len);
    return b;
}

/* ---- what each path did ---- */

typedef struct calls {
    text log; /* "name|type|bytes\n" per call */
    size_t n;
} calls;

static void on_tensor(void *ctx, const char *name, size_t len, const char *type,
                      uint64_t bytes)
{
    calls *c = ctx;
    add(&c->log, "%.*s|%s|%llu\n", (int)len, name, type,
        (unsigned long long)bytes);
    c->n++;
}

typedef struct outcome {
    kvb_status st;
    kvb_error e;
    uint64_t bytes, tensors;
    calls seen;
} outcome;

static void outcome_free(outcome *o)
{
    free(o->seen.log.p);
}

typedef kvb_status (*st_fn)(kvb__reader *r, const void *buf, size_t len,
                            uint64_t *bytes, uint64_t *tensors);

static outcome run_st(st_fn fn, const unsigned char *buf, size_t len)
{
    outcome o;
    kvb__reader r;
    memset(&o, 0, sizeof o);
    assert_int_equal(kvb_error_init(&o.e, sizeof o.e), KVB_OK);
    kvb__reader_init(&r, "shard.safetensors", &o.e);
    r.on_tensor = on_tensor;
    r.on_tensor_ctx = &o.seen;
    o.st = fn(&r, buf, len, &o.bytes, &o.tensors);
    return o;
}

static void assert_same_error(const kvb_error *a, const kvb_error *b)
{
    assert_int_equal(a->status, b->status);
    assert_string_equal(a->field, b->field);
    assert_string_equal(a->message, b->message);
    assert_int_equal(a->line, b->line);
    assert_int_equal(a->column, b->column);
    assert_int_equal(a->offset, b->offset);
    assert_string_equal(a->source, b->source);
}

static void assert_same_calls(const calls *a, const calls *b)
{
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->log.n, b->log.n);
    if (a->log.n)
        assert_memory_equal(a->log.p, b->log.p, a->log.n);
}

/* Both paths on buf[0, len): the same everything.  Returns whether the
 * scanner took the header (then its status is KVB_OK). */
static bool same_st(const unsigned char *buf, size_t len)
{
    outcome fast = run_st(kvb__st_read, buf, len);
    outcome ref = run_st(kvb__st_read_jansson, buf, len);
    if (fast.st != ref.st)
        fail_msg("status %s, jansson %s (%s)", kvb_status_name(fast.st),
                 kvb_status_name(ref.st), ref.e.message);
    assert_same_error(&fast.e, &ref.e);
    if (ref.st == KVB_OK) {
        assert_int_equal(fast.bytes, ref.bytes);
        assert_int_equal(fast.tensors, ref.tensors);
    }
    assert_same_calls(&fast.seen, &ref.seen);
    outcome_free(&fast);
    outcome_free(&ref);
    /* and the scanner alone, on the header the length field gives: it
     * takes only what jansson accepts */
    kvb__reader r;
    uint64_t bytes = 0, tensors = 0, n = 0;
    for (int i = 7; len >= 8 && i >= 0; i--)
        n = n << 8 | buf[i];
    kvb__reader_init(&r, "", NULL);
    bool took =
        len >= 8 && n <= len - 8 &&
        kvb__st_fast(&r, (const char *)buf + 8, (size_t)n, &bytes, &tensors);
    if (took)
        assert_int_equal(ref.st, KVB_OK);
    return took;
}

static bool same_json(const char *json)
{
    unsigned char *b = st_bytes(json, strlen(json));
    bool took = same_st(b, 8 + strlen(json));
    free(b);
    return took;
}

/* ---- generated headers the scanner must take ---- */

static uint64_t rng(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

static const struct {
    const char *name;
    unsigned bits;
} dtypes[] = {
    {"BOOL", 8},    {"F4", 4},          {"F6_E2M3", 6},     {"F6_E3M2", 6},
    {"U8", 8},      {"I8", 8},          {"F8_E5M2", 8},     {"F8_E4M3", 8},
    {"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8}, {"F8_E5M2FNUZ", 8}, {"I16", 16},
    {"U16", 16},    {"F16", 16},        {"BF16", 16},       {"I32", 32},
    {"U32", 32},    {"F32", 32},        {"C64", 64},        {"F64", 64},
    {"I64", 64},    {"U64", 64}};
#define N_DTYPES (sizeof dtypes / sizeof dtypes[0])

/* One whitespace style: after '{', the ':', the ',', before '}'. */
static const char *const styles[][4] = {
    {"", ":", ",", ""},                 /* serde_json */
    {"", ": ", ", ", ""},               /* Python json.dumps */
    {"\n  ", ": ", ",\n  ", "\n"},      /* indent=2 */
    {"\r\n\t", " :\t", "\t,\r\n", " "}, /* every byte JSON allows */
};

typedef struct gen_tensor {
    char name[64];
    unsigned dtype, rank, order; /* order: key permutation 0..5 */
    uint64_t shape[4], bytes, begin;
} gen_tensor;

/* A tensor whose dtype x shape is a whole number of bytes. */
static void gen_one(uint64_t *s, gen_tensor *t, size_t i)
{
    static const char *const parts[] = {"self_attn.q_proj.weight",
                                        "mlp.down_proj.weight", "norm", "e"};
    snprintf(t->name, sizeof t->name, "model.layers.%zu.%s", i,
             parts[rng(s) % 4]);
    if (rng(s) % 8 == 0)
        snprintf(t->name, sizeof t->name, "t%zu", i); /* short names */
    t->dtype = (unsigned)(rng(s) % N_DTYPES);
    t->rank = (unsigned)(rng(s) % 5); /* 0: a scalar, one element */
    t->order = (unsigned)(rng(s) % 6);
    uint64_t n = 1;
    for (unsigned d = 0; d < t->rank; d++) {
        t->shape[d] = rng(s) % 9 == 0 ? 0 : 1 + rng(s) % 300;
        n *= t->shape[d];
    }
    if (n * dtypes[t->dtype].bits % 8 != 0) {
        if (t->rank == 0)
            t->dtype = 0; /* BOOL: a scalar of whole bytes */
        else
            t->shape[t->rank - 1] *= 4, n *= 4; /* 4 x 4 and 4 x 6 bits */
    }
    t->bytes = n * dtypes[t->dtype].bits / 8;
}

static void gen_tensor_json(text *j, const gen_tensor *t, const char *const *w)
{
    static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                   {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    add(j, "\"%s\"%s{%s", t->name, w[1], w[0]);
    for (int k = 0; k < 3; k++) {
        int key = perm[t->order][k];
        if (k)
            add(j, "%s", w[2]);
        if (key == 0)
            add(j, "\"dtype\"%s\"%s\"", w[1], dtypes[t->dtype].name);
        if (key == 1) {
            add(j, "\"shape\"%s[", w[1]);
            for (unsigned d = 0; d < t->rank; d++)
                add(j, "%s%llu", d ? w[2] : "",
                    (unsigned long long)t->shape[d]);
            add(j, "]");
        }
        if (key == 2)
            add(j, "\"data_offsets\"%s[%llu%s%llu]", w[1],
                (unsigned long long)t->begin, w[2],
                (unsigned long long)(t->begin + t->bytes));
    }
    add(j, "%s}", w[3]);
}

static void gen_metadata(text *j, uint64_t *s, const char *const *w)
{
    unsigned n = (unsigned)(rng(s) % 3); /* {}, one or two pairs */
    add(j, "\"__metadata__\"%s{%s", w[1], w[0]);
    for (unsigned k = 0; k < n; k++) /* braces in strings: counted, fine */
        add(j, "%s\"key%u\"%s\"value %u: x{}[],\"", k ? w[2] : "", k, w[1], k);
    add(j, "%s}", w[3]);
}

/* A random valid header: *total its bytes, *count its tensors. */
static text gen_header(uint64_t seed, uint64_t *total, size_t *count)
{
    uint64_t s = seed;
    size_t n = (size_t)(rng(&s) % 12);
    gen_tensor t[12];
    const char *const *w = styles[rng(&s) % 4];
    *total = 0;
    for (size_t i = 0; i < n; i++) {
        gen_one(&s, &t[i], i);
        t[i].begin = *total;
        *total += t[i].bytes;
    }
    for (size_t i = 0; n > 1 && rng(&s) % 3 == 0 && i < n; i++) {
        size_t k = (size_t)(rng(&s) % n); /* header order != data order */
        gen_tensor x = t[i];
        t[i] = t[k];
        t[k] = x;
    }
    /* __metadata__ before tensor `meta` (n + 1: absent, n: last) */
    size_t meta = (size_t)(rng(&s) % (n + 2));
    bool first = true;
    text j = {0};
    add(&j, "{%s", w[0]);
    for (size_t i = 0; i <= n; i++) {
        if (meta == i) {
            add(&j, "%s", first ? "" : w[2]);
            gen_metadata(&j, &s, w);
            first = false;
        }
        if (i < n) {
            add(&j, "%s", first ? "" : w[2]);
            gen_tensor_json(&j, &t[i], w);
            first = false;
        }
    }
    add(&j, "%s}", w[3]);
    while (j.n % 8) /* the writer pads with spaces to 8 bytes */
        add(&j, " ");
    *count = n;
    return j;
}

static void test_st_fast_generated(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3000; seed++) {
        uint64_t total = 0;
        size_t count = 0;
        text j = gen_header(seed, &total, &count);
        unsigned char *b = st_bytes(j.p, j.n);
        if (!same_st(b, 8 + j.n))
            fail_msg("seed %llu: the scanner gave up on\n%s",
                     (unsigned long long)seed, j.p);
        outcome o = run_st(kvb__st_read, b, 8 + j.n);
        assert_int_equal(o.st, KVB_OK);
        assert_int_equal(o.bytes, total);
        assert_int_equal(o.tensors, count);
        outcome_free(&o);
        free(b);
        free(j.p);
    }
}

/* Every dtype, each with a shape of every rank, in one header. */
static void test_st_fast_every_dtype(void **state)
{
    (void)state;
    text j = {0};
    uint64_t off = 0;
    add(&j, "{\"__metadata__\":{\"format\":\"pt\"}");
    for (size_t d = 0; d < N_DTYPES; d++) {
        /* [], [8], [2,4], [2,2,2], [1,2,2,2]: 1 or 8 elements */
        static const char *const shapes[] = {"[]",      "[8]",       "[2,4]",
                                             "[2,2,2]", "[1,2,2,2]", "[0,7]"};
        static const unsigned elems[] = {1, 8, 8, 8, 8, 0};
        for (size_t k = 0; k < 6; k++) {
            uint64_t bits = (uint64_t)elems[k] * dtypes[d].bits;
            if (bits % 8)
                continue; /* F4 and F6 scalars are not whole bytes */
            add(&j,
                ",\"%s.%zu\":{\"dtype\":\"%s\",\"shape\":%s,"
                "\"data_offsets\":[%llu,%llu]}",
                dtypes[d].name, k, dtypes[d].name, shapes[k],
                (unsigned long long)off, (unsigned long long)(off + bits / 8));
            off += bits / 8;
        }
    }
    add(&j, "}");
    assert_true(same_json(j.p));
    free(j.p);
}

/* ---- what the scanner gives up on: jansson decides, the same way ---- */

#define T(body) "{\"a\":{" body "}}"
#define OK_T    "\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]"

static void test_st_fast_gives_up(void **state)
{
    (void)state;
    static const char *const cases[] = {
        /* strings jansson decodes or rejects */
        "{\"\\u0061\":{" OK_T "}}",
        "{\"a\\\"b\":{" OK_T "}}",
        "{\"caf\xc3\xa9\":{" OK_T "}}",
        "{\"bad\xff\":{" OK_T "}}",
        "{\"a\tb\":{" OK_T "}}",
        T("\"dtype\":\"F\\u0031\\u0036\",\"shape\":[2],"
          "\"data_offsets\":[0,4]"),
        /* keys: unknown, repeated, missing */
        T(OK_T ",\"extra\":1"),
        T(OK_T ",\"dtype\":\"F16\""),
        T("\"dtype\":\"F16\",\"shape\":[2]"),
        "{\"a\":{\"shape\":[1]}}",
        "{\"a\":{" OK_T "},\"a\":{" OK_T "}}",
        "{\"__metadata__\":{},\"__metadata__\":{}}",
        /* a repeated name jansson accepts, with one tensor fewer */
        "{\"a\":{\"dtype\":\"F16\",\"shape\":[0],\"data_offsets\":[0,0]},"
        "\"a\":{" OK_T "}}",
        /* numbers */
        T("\"dtype\":\"F16\",\"shape\":[-2],\"data_offsets\":[0,4]"),
        T("\"dtype\":\"F16\",\"shape\":[02],\"data_offsets\":[0,4]"),
        T("\"dtype\":\"F16\",\"shape\":[2.0],\"data_offsets\":[0,4]"),
        T("\"dtype\":\"F16\",\"shape\":[2e0],\"data_offsets\":[0,4]"),
        T("\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4.0]"),
        T("\"dtype\":\"U8\",\"shape\":[9223372036854775807],"
          "\"data_offsets\":[0,9223372036854775807]"),
        T("\"dtype\":\"U8\",\"shape\":[9223372036854775808],"
          "\"data_offsets\":[0,4]"),
        T("\"dtype\":\"U8\",\"shape\":[99999999999999999999],"
          "\"data_offsets\":[0,4]"),
        T("\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4,8]"),
        T("\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0]"),
        T("\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[]"),
        T("\"dtype\":\"F16\",\"shape\":[2,],\"data_offsets\":[0,4]"),
        T("\"dtype\":\"F16\",\"shape\":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2],"
          "\"data_offsets\":[0,4]"),
        T("\"dtype\":\"F16\",\"shape\":[4294967296,4294967296],"
          "\"data_offsets\":[0,4]"),
        T("\"dtype\":\"F16\",\"shape\":2,\"data_offsets\":[0,4]"),
        T("\"dtype\":16,\"shape\":[2],\"data_offsets\":[0,4]"),
        T("\"dtype\":\"F12\",\"shape\":[2],\"data_offsets\":[0,4]"),
        T("\"dtype\":\"f16\",\"shape\":[2],\"data_offsets\":[0,4]"),
        T("\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]"),
        T("\"dtype\":\"F16\",\"shape\":[3],\"data_offsets\":[0,4]"),
        T("\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[4,0]"),
        T("\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[4,8]"),
        /* the tiling */
        "{\"a\":{" OK_T "},\"b\":{\"dtype\":\"F16\",\"shape\":[2],"
        "\"data_offsets\":[8,12]}}",
        "{\"a\":{" OK_T "},\"b\":{\"dtype\":\"F16\",\"shape\":[2],"
        "\"data_offsets\":[2,6]}}",
        /* values of the wrong kind */
        "{\"a\":[]}",
        "{\"a\":null}",
        "{\"__metadata__\":{\"format\":1}}",
        "{\"__metadata__\":{\"format\":{\"x\":\"y\"}}}",
        "{\"__metadata__\":[]}",
        "{\"__metadata__\":\"pt\"}",
        /* the text around */
        "{\"a\":{" OK_T "}}x",
        "{\"a\":{" OK_T "},}",
        "{\"a\":{" OK_T "}",
        "{\"a\" {" OK_T "}}",
        "{\"a\":{" OK_T "}}\f",
        "{\"a\":{" OK_T "}}{}",
        "{,}",
        "{",
        "{}",
        " {}",
        "[1]",
    };
    int gave_up = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        gave_up += !same_json(cases[i]);
    /* all of them but "{}", a plain header (" {}" fails the first-byte
     * check before either path runs) */
    assert_int_equal(gave_up, (int)(sizeof cases / sizeof cases[0]) - 1);
    /* NUL padding: jansson's error, not a header */
    static const char nul[] = "{\"a\":{" OK_T "}}\0\0\0";
    unsigned char *b = st_bytes(nul, sizeof nul - 1);
    assert_false(same_st(b, 8 + sizeof nul - 1));
    free(b);
}

#undef T
#undef OK_T

/* The tests' own corrupt and truncated headers (test_read_safetensors.c
 * and test_read_files.c), then every prefix and single-byte corruption
 * of small generated ones. */
static void test_st_fast_truncation_corruption(void **state)
{
    (void)state;
    static const unsigned char bytes[] = {'"', '\\', '}',  '{', ']',  '[',
                                          ',', ':',  '0',  '9', '-',  '.',
                                          'x', ' ',  '\n', 0,   0x80, 0xff};
    assert_false(same_json("{\"a\": 7}        "));
    assert_false(same_json("{\"a\": }"));
    for (uint64_t seed = 1; seed <= 40; seed++) {
        uint64_t total = 0;
        size_t count = 0;
        text j = gen_header(seed * 7919, &total, &count);
        if (j.n > 600) {
            free(j.p);
            continue;
        }
        unsigned char *b = st_bytes(j.p, j.n);
        for (size_t len = 0; len <= 8 + j.n; len++)
            same_st(b, len);
        for (size_t at = 8; at < 8 + j.n; at++) {
            unsigned char keep = b[at];
            for (size_t k = 0; k < sizeof bytes; k++) {
                b[at] = bytes[k];
                same_st(b, 8 + j.n);
            }
            b[at] = keep;
        }
        free(b);
        free(j.p);
    }
}

/* A Llama-3.1-70B shard as bench_safetensors writes it: the scanner must
 * take it (a hash that clusters these names would give up silently). */
static void test_st_fast_takes_real_shapes(void **state)
{
    (void)state;
    static const char *const parts[] = {"input_layernorm",
                                        "mlp.down_proj",
                                        "mlp.gate_proj",
                                        "mlp.up_proj",
                                        "post_attention_layernorm",
                                        "self_attn.k_proj",
                                        "self_attn.o_proj",
                                        "self_attn.q_proj",
                                        "self_attn.v_proj"};
    text j = {0};
    uint64_t off = 0;
    add(&j, "{\"__metadata__\":{\"format\":\"pt\"}");
    for (unsigned l = 0; l < 80; l++) {
        for (unsigned k = 0; k < 9; k++) {
            uint64_t bytes = 2 * 8192u * (k == 0 || k == 4 ? 1 : 1024);
            add(&j,
                ",\"model.layers.%u.%s.weight\":{\"dtype\":\"BF16\","
                "\"shape\":[%llu],\"data_offsets\":[%llu,%llu]}",
                l, parts[k], (unsigned long long)(bytes / 2),
                (unsigned long long)off, (unsigned long long)(off + bytes));
            off += bytes;
        }
    }
    add(&j, "}");
    assert_true(same_json(j.p));
    free(j.p);
}

/* ---- the index ---- */

typedef struct shards {
    text log;          /* names handed out, one per line */
    size_t n, fail_at; /* fail_at: the call that returns KVB_EIO; 0 never */
} shard_log;

static kvb_status on_shard(void *ctx, const char *name)
{
    shard_log *s = ctx;
    add(&s->log, "%s\n", name);
    return ++s->n == s->fail_at ? KVB_EIO : KVB_OK;
}

typedef kvb_status (*index_fn)(kvb__reader *r, const char *json, size_t len,
                               kvb__shard_fn fn, void *ctx,
                               uint64_t *total_size, uint64_t *entries);

typedef struct index_outcome {
    kvb_status st;
    kvb_error e;
    uint64_t total, entries;
    shard_log seen;
} index_outcome;

static index_outcome run_index(index_fn fn, const char *json, size_t len,
                               size_t fail_at)
{
    index_outcome o;
    kvb__reader r;
    memset(&o, 0, sizeof o);
    o.seen.fail_at = fail_at;
    assert_int_equal(kvb_error_init(&o.e, sizeof o.e), KVB_OK);
    kvb__reader_init(&r, "model.safetensors.index.json", &o.e);
    o.st = fn(&r, json, len, on_shard, &o.seen, &o.total, &o.entries);
    return o;
}

static bool same_index_len(const char *json, size_t len, size_t fail_at)
{
    index_outcome fast = run_index(kvb__st_index_read, json, len, fail_at);
    index_outcome ref =
        run_index(kvb__st_index_read_jansson, json, len, fail_at);
    if (fast.st != ref.st)
        fail_msg("status %s, jansson %s (%s)", kvb_status_name(fast.st),
                 kvb_status_name(ref.st), ref.e.message);
    assert_same_error(&fast.e, &ref.e);
    if (ref.st == KVB_OK || ref.seen.n) { /* got as far as the shards */
        assert_int_equal(fast.total, ref.total);
        assert_int_equal(fast.entries, ref.entries);
    }
    assert_int_equal(fast.seen.n, ref.seen.n);
    if (ref.seen.log.n)
        assert_memory_equal(fast.seen.log.p, ref.seen.log.p, ref.seen.log.n);
    free(fast.seen.log.p);
    free(ref.seen.log.p);
    kvb__st_index_scan x;
    bool took = kvb__st_index_fast(json, len, &x);
    if (took) {
        assert_int_equal(ref.st == KVB_OK || ref.seen.n, true);
        free(x.names);
    }
    return took;
}

static bool same_index(const char *json)
{
    return same_index_len(json, strlen(json), 0);
}

/* An index as transformers writes it (sorted keys, indent 2) or in
 * tensor order, compact, metadata first, last or absent. */
static text gen_index(uint64_t seed)
{
    uint64_t s = seed;
    size_t n = 1 + (size_t)(rng(&s) % 40), shards = 1 + (size_t)(rng(&s) % 5);
    const char *const *w = styles[rng(&s) % 4];
    unsigned meta = (unsigned)(rng(&s) % 4); /* 0 none, 2 last, else first */
    text j = {0};
    add(&j, "{%s", w[0]);
    if (meta == 1 || meta == 3)
        add(&j,
            "\"metadata\"%s{%s\"total_parameters\"%s%llu%s\"total_size\""
            "%s%llu%s}%s",
            w[1], w[0], w[1], (unsigned long long)rng(&s), w[2], w[1],
            (unsigned long long)rng(&s) * 1000, w[3], w[2]);
    add(&j, "\"weight_map\"%s{%s", w[1], w[0]);
    for (size_t i = 0; i < n; i++)
        add(&j,
            "%s\"model.layers.%zu.mlp.weight\"%s\"model-%05zu-of-%05zu"
            ".safetensors\"",
            i ? w[2] : "", rng(&s) % 2 ? i : n + i, w[1],
            1 + (size_t)(rng(&s) % shards), shards);
    add(&j, "%s}", w[3]);
    if (meta == 2)
        add(&j, "%s\"metadata\"%s{%s\"total_size\"%s%llu%s}", w[2], w[1], w[0],
            w[1], (unsigned long long)rng(&s), w[3]);
    add(&j, "%s}\n", w[3]);
    return j;
}

static void test_st_fast_index_generated(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 1000; seed++) {
        text j = gen_index(seed);
        if (!same_index(j.p))
            fail_msg("seed %llu: the scanner gave up on\n%s",
                     (unsigned long long)seed, j.p);
        /* a shard that fails: the same call, the same error */
        same_index_len(j.p, j.n, 1);
        free(j.p);
    }
}

static void test_st_fast_index_gives_up(void **state)
{
    (void)state;
#define WM "\"weight_map\":{\"a\":\"m-1.safetensors\"}"
    static const char *const cases[] = {
        "{\"metadata\":{\"total_size\":1.6e10}," WM "}",
        "{\"metadata\":{\"total_size\":16000000000.0}," WM "}",
        "{\"metadata\":{\"total_size\":\"12\"}," WM "}",
        "{\"metadata\":{\"total_size\":null}," WM "}",
        "{\"metadata\":{\"total_size\":-1}," WM "}",
        "{\"metadata\":{\"total_size\":1,\"total_size\":2}," WM "}",
        "{\"metadata\":{\"format\":[1]}," WM "}",
        "{\"metadata\":{\"x\":true}," WM "}",
        "{\"metadata\":\"none\"," WM "}",
        "{\"metadata\":{},\"metadata\":{}," WM "}",
        "{\"other\":1," WM "}",
        "{" WM "," WM "}",
        "{\"metadata\":{}}",
        "{}",
        "[]",
        "{\"weight_map\":[]}",
        "{\"weight_map\":{\"a\":\"../../etc/passwd\"}}",
        "{\"weight_map\":{\"a\":\".hidden\"}}",
        "{\"weight_map\":{\"a\":\"\"}}",
        "{\"weight_map\":{\"a\":\"dir/m.safetensors\"}}",
        "{\"weight_map\":{\"a\":\"a\\\\b.safetensors\"}}",
        "{\"weight_map\":{\"a\":\"m\\u002d1.safetensors\"}}",
        "{\"weight_map\":{\"a\":3}}",
        /* a repeated name: jansson counts it once */
        "{\"weight_map\":{\"a\":\"m-1.safetensors\","
        "\"a\":\"m-2.safetensors\"}}",
        "{\"weight_map\":{\"\xc3\xa9\":\"m-1.safetensors\"}}",
        "{" WM "}x",
        "{" WM ",}",
        "{" WM,
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (same_index(cases[i]))
            fail_msg("the scanner took %s", cases[i]);
    /* plain ones it takes: metadata anywhere or absent, an empty map */
    assert_true(same_index("{" WM "}"));
    assert_true(same_index("{\"weight_map\":{}}"));
    assert_true(same_index("{" WM ",\"metadata\":{\"total_size\":0}}"));
    assert_true(same_index("{\"metadata\":{}," WM "}"));
    /* a 256-byte name is not a plain file name; 255 bytes is */
    char json[600];
    char name[300];
    memset(name, 'm', 256);
    name[256] = '\0';
    snprintf(json, sizeof json, "{\"weight_map\":{\"a\":\"%s\"}}", name);
    assert_false(same_index(json));
    name[255] = '\0';
    snprintf(json, sizeof json, "{\"weight_map\":{\"a\":\"%s\"}}", name);
    assert_true(same_index(json));
#undef WM
}

static void test_st_fast_index_truncation_corruption(void **state)
{
    (void)state;
    static const char bytes[] = {'"', '}', '{', ':', ',', '/', '.', '0', 'x'};
    text j = gen_index(11);
    for (size_t len = 0; len <= j.n; len++)
        same_index_len(j.p, len, 0);
    for (size_t at = 0; at < j.n && at < 400; at++) {
        char keep = j.p[at];
        for (size_t k = 0; k < sizeof bytes; k++) {
            j.p[at] = bytes[k];
            same_index_len(j.p, j.n, 0);
        }
        j.p[at] = keep;
    }
    free(j.p);
}

KVB_TESTS(cmocka_unit_test(test_st_fast_generated),
          cmocka_unit_test(test_st_fast_every_dtype),
          cmocka_unit_test(test_st_fast_gives_up),
          cmocka_unit_test(test_st_fast_truncation_corruption),
          cmocka_unit_test(test_st_fast_takes_real_shapes),
          cmocka_unit_test(test_st_fast_index_generated),
          cmocka_unit_test(test_st_fast_index_gives_up),
          cmocka_unit_test(test_st_fast_index_truncation_corruption));
