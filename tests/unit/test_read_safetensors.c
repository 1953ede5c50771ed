/*
 * test_read_safetensors.c -- safetensors headers written by a tiny writer
 * below (8-byte little-endian length, then the JSON header, as
 * huggingface/safetensors writes them), read back.
 */
#include "testing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the writer ---- */

typedef struct st_tensor {
    const char *name, *dtype;
    uint64_t shape[4];
    int rank;
    uint64_t bytes; /* data_offsets span */
} st_tensor;

typedef struct buf {
    unsigned char *p;
    size_t n;
} buf;

/* Offsets run in the order given; `extra` is appended to the header. */
static buf st_file(const st_tensor *t, size_t n, const char *extra)
{
    char *json = malloc(65536);
    assert_non_null(json);
    size_t len = (size_t)snprintf(json, 65536, "{%s", extra);
    uint64_t off = 0;
    for (size_t i = 0; i < n; i++) {
        len += (size_t)snprintf(json + len, 65536 - len,
                                "%s\"%s\":{\"dtype\":\"%s\",\"shape\":[",
                                i || *extra ? "," : "", t[i].name, t[i].dtype);
        for (int d = 0; d < t[i].rank; d++)
            len += (size_t)snprintf(json + len, 65536 - len, "%s%llu",
                                    d ? "," : "",
                                    (unsigned long long)t[i].shape[d]);
        len += (size_t)snprintf(
            json + len, 65536 - len, "],\"data_offsets\":[%llu,%llu]}",
            (unsigned long long)off, (unsigned long long)(off + t[i].bytes));
        off += t[i].bytes;
    }
    len += (size_t)snprintf(json + len, 65536 - len, "}");
    buf b = {malloc(8 + len), 8 + len};
    assert_non_null(b.p);
    for (int i = 0; i < 8; i++)
        b.p[i] = (unsigned char)((uint64_t)len >> (8 * i));
    memcpy(b.p + 8, json, len);
    free(json);
    return b;
}

static buf raw(const char *json)
{
    size_t len = strlen(json);
    buf b = {malloc(8 + len), 8 + len};
    assert_non_null(b.p);
    for (int i = 0; i < 8; i++)
        b.p[i] = (unsigned char)((uint64_t)len >> (8 * i));
    memcpy(b.p + 8, json, len);
    return b;
}

typedef struct parsed {
    kvb_read_info info;
    kvb_error e;
    kvb_status st;
} parsed;

static parsed parse(const buf *b, size_t len)
{
    parsed r;
    assert_int_equal(KVB_READ_INFO_INIT(&r.info), KVB_OK);
    assert_int_equal(kvb_error_init(&r.e, sizeof r.e), KVB_OK);
    r.st = kvb_safetensors_parse(b->p, len, &r.info, &r.e);
    return r;
}

/* ---- every dtype ---- */

typedef struct seen {
    char name[32][32];
    char type[32][16];
    uint64_t bytes[32];
    int n;
} seen;

static void on_tensor(void *ctx, const char *name, size_t len, const char *type,
                      uint64_t bytes)
{
    seen *s = ctx;
    snprintf(s->name[s->n], sizeof s->name[0], "%.*s", (int)len, name);
    snprintf(s->type[s->n], sizeof s->type[0], "%s", type);
    s->bytes[s->n++] = bytes;
}

static void test_read_st_every_dtype(void **state)
{
    (void)state;
    /* Bits per element: huggingface/safetensors Dtype::bitsize. */
    static const struct {
        const char *dtype;
        unsigned bits;
    } d[] = {
        {"BOOL", 8},    {"F4", 4},          {"F6_E2M3", 6},     {"F6_E3M2", 6},
        {"U8", 8},      {"I8", 8},          {"F8_E5M2", 8},     {"F8_E4M3", 8},
        {"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8}, {"F8_E5M2FNUZ", 8}, {"I16", 16},
        {"U16", 16},    {"F16", 16},        {"BF16", 16},       {"I32", 32},
        {"U32", 32},    {"F32", 32},        {"C64", 64},        {"F64", 64},
        {"I64", 64},    {"U64", 64}};
    enum { N = sizeof d / sizeof d[0] };
    st_tensor t[N];
    char names[N][16];
    uint64_t total = 0;
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "t.%s", d[i].dtype);
        /* 4 x 6 = 24 elements: whole bytes even at 4 and 6 bits */
        t[i] =
            (st_tensor){names[i], d[i].dtype, {4, 6}, 2, 24u * d[i].bits / 8};
        total += t[i].bytes;
    }
    buf b = st_file(t, N, "\"__metadata__\":{\"format\":\"pt\"}");
    kvb__reader rd;
    seen s = {0};
    uint64_t bytes = 0, count = 0;
    kvb__reader_init(&rd, "", NULL);
    rd.on_tensor = on_tensor;
    rd.on_tensor_ctx = &s;
    assert_int_equal(kvb__st_read(&rd, b.p, b.n, &bytes, &count), KVB_OK);
    assert_int_equal(s.n, N);
    for (int i = 0; i < N; i++) {
        assert_string_equal(s.name[i], names[i]);
        assert_int_equal(s.bytes[i], 24u * d[i].bits / 8);
        assert_int_equal(kvb__st_dtype_bits(d[i].dtype), d[i].bits);
    }
    /* F4: 24 x 4 / 8 = 12 bytes; F6: 18; C64: 192 */
    assert_int_equal(s.bytes[1], 12);
    assert_int_equal(s.bytes[2], 18);
    assert_int_equal(s.bytes[18], 192);
    assert_int_equal(bytes, total);
    parsed r = parse(&b, b.n);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.info.weights_bytes, total);
    assert_int_equal(r.info.tensor_count, N);
    assert_int_equal(r.info.header_bytes, b.n);
    assert_int_equal(r.info.weights_format, KVB_FORMAT_SAFETENSORS);
    free(b.p);
}

/* A GPTQ 4-bit Linear(4096 -> 4096), group 128, as AutoGPTQ stores it
 * (quant_formats.md §4): qweight I32 [in x 4 / 32, out], qzeros I32
 * [in / 128, out x 4 / 32], scales F16 [in / 128, out], g_idx I32 [in]. */
static void test_read_st_gptq_layer(void **state)
{
    (void)state;
    const st_tensor t[] = {
        /* 512 x 4096 x 4 = 8,388,608 */
        {"l.qweight", "I32", {512, 4096}, 2, 8388608},
        /* 32 x 512 x 4 = 65,536 */
        {"l.qzeros", "I32", {32, 512}, 2, 65536},
        /* 32 x 4096 x 2 = 262,144 */
        {"l.scales", "F16", {32, 4096}, 2, 262144},
        /* 4096 x 4 = 16,384 */
        {"l.g_idx", "I32", {4096}, 1, 16384},
    };
    buf b = st_file(t, 4, "");
    parsed r = parse(&b, b.n);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.info.weights_bytes, 8732672);
    /* The core's GPTQ-4 storage of the same Linear agrees. */
    kvb_quant q = quant_of(KVB_QUANT_GPTQ_4);
    uint64_t core = 0;
    assert_int_equal(
        kvb__storage_bytes(KVB_STORAGE_GPTQ_4, &q, 1, 4096, 4096, &core),
        KVB_OK);
    assert_int_equal(core, r.info.weights_bytes);
    free(b.p);
}

static void test_read_st_truncation(void **state)
{
    (void)state;
    const st_tensor t[] = {{"a", "F16", {2, 3}, 2, 12},
                           {"b", "BF16", {3}, 1, 6}};
    buf b = st_file(t, 2, "");
    /* Each prefix that cuts the length or the header fails with an offset
     * within it; the header alone (no data) reads. */
    for (size_t len = 0; len < b.n; len++) {
        parsed r = parse(&b, len);
        if (r.st != KVB_EPARSE)
            fail_msg("prefix %zu: %s", len, kvb_status_name(r.st));
        assert_true(r.e.offset >= 0 && (size_t)r.e.offset <= len);
    }
    parsed r = parse(&b, b.n);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.info.weights_bytes, 18);
    free(b.p);
}

static void test_read_st_limits(void **state)
{
    (void)state;
    unsigned char h[16] = {0};
    buf b = {h, sizeof h};
    /* 100,000,001: one byte over the format's own header limit */
    uint64_t n = 100000001;
    for (int i = 0; i < 8; i++)
        h[i] = (unsigned char)(n >> (8 * i));
    parsed r = parse(&b, b.n);
    assert_int_equal(r.st, KVB_ELIMIT);
    assert_int_equal(r.e.offset, 0);
    assert_string_equal(r.e.field, "safetensors.header_size");
    memset(h, 0xff, 8); /* 2^64 - 1 */
    r = parse(&b, b.n);
    assert_int_equal(r.st, KVB_ELIMIT);
}

static void expect_fail(const char *json, kvb_status st, const char *field)
{
    buf b = raw(json);
    parsed r = parse(&b, b.n);
    if (r.st != st)
        fail_msg("%s: %s (%s)", json, kvb_status_name(r.st), r.e.message);
    if (field)
        assert_string_equal(r.e.field, field);
    assert_true(r.e.offset >= 8);
    free(b.p);
}

static void test_read_st_bad_headers(void **state)
{
    (void)state;
    expect_fail(" {}", KVB_EPARSE, "safetensors.header");
    expect_fail("{\"a\":{\"dtype\":\"F16\",\"shape\":[2],"
                "\"data_offsets\":[0,4]},\"b\":{\"dtype\":\"F16\","
                "\"shape\":[2],\"data_offsets\":[8,12]}}",
                KVB_EPARSE, "safetensors.b.data_offsets"); /* a gap */
    expect_fail("{\"a\":{\"dtype\":\"F16\",\"shape\":[2],"
                "\"data_offsets\":[0,4]},\"b\":{\"dtype\":\"F16\","
                "\"shape\":[2],\"data_offsets\":[2,6]}}",
                KVB_EPARSE, "safetensors.b.data_offsets"); /* overlap */
    expect_fail("{\"a\":{\"dtype\":\"F16\",\"shape\":[3],"
                "\"data_offsets\":[0,4]}}",
                KVB_EPARSE, "safetensors.a.data_offsets"); /* 6 != 4 */
    expect_fail("{\"a\":{\"dtype\":\"F12\",\"shape\":[3],"
                "\"data_offsets\":[0,4]}}",
                KVB_EUNSUPPORTED, "safetensors.a.dtype");
    expect_fail("{\"a\":{\"dtype\":\"F16\",\"shape\":[-3],"
                "\"data_offsets\":[0,6]}}",
                KVB_EPARSE, "safetensors.a.shape");
    expect_fail("{\"a\":{\"dtype\":\"F16\",\"shape\":[4294967296,"
                "4294967296],\"data_offsets\":[0,6]}}",
                KVB_EOVERFLOW, "safetensors.a.shape");
    expect_fail("{\"a\":{\"dtype\":\"F4\",\"shape\":[3],"
                "\"data_offsets\":[0,2]}}",
                KVB_EPARSE, "safetensors.a.shape"); /* 12 bits */
    expect_fail("{\"a\":{\"dtype\":\"F16\",\"shape\":[1],"
                "\"data_offsets\":[4,2]}}",
                KVB_EPARSE, "safetensors.a.data_offsets");
    expect_fail("{\"__metadata__\":{\"format\":1}}", KVB_EPARSE,
                "safetensors.__metadata__.format");
    expect_fail("{\"a\":[]}", KVB_EPARSE, "safetensors.a");
    expect_fail("{\"a\":{\"shape\":[1]}}", KVB_EPARSE, "safetensors.a.dtype");
    /* JSON syntax: the offset is in the file, 8 + jansson's position,
     * which is just past the unexpected '}' (byte 6 of the header) */
    buf b = raw("{\"a\": }");
    parsed r = parse(&b, b.n);
    assert_int_equal(r.st, KVB_EPARSE);
    assert_int_equal(r.e.line, 1);
    assert_int_equal(r.e.offset, 8 + 7);
    free(b.p);
    /* a header that is not an object (and does not start with '{') */
    b = raw("[1]");
    r = parse(&b, b.n);
    assert_int_equal(r.st, KVB_EPARSE);
    assert_int_equal(r.e.offset, 8);
    free(b.p);
}

static void test_read_st_empty_and_args(void **state)
{
    (void)state;
    buf b = raw("{}"); /* no tensors: zero bytes, valid */
    parsed r = parse(&b, b.n);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.info.weights_bytes, 0);
    assert_int_equal(r.info.tensor_count, 0);
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_safetensors_parse(b.p, b.n, NULL, &e), KVB_EINVAL);
    assert_int_equal(kvb_safetensors_parse(NULL, 4, &r.info, &e), KVB_EINVAL);
    free(b.p);
}

/* ---- the index ---- */

typedef struct names {
    char got[8][64];
    int n;
} names;

static kvb_status collect(void *ctx, const char *name)
{
    names *s = ctx;
    snprintf(s->got[s->n++], sizeof s->got[0], "%s", name);
    return KVB_OK;
}

static kvb_status index_read(const char *json, names *s, uint64_t *total,
                             uint64_t *entries, kvb_error *e)
{
    kvb__reader rd;
    kvb__reader_init(&rd, "", e);
    s->n = 0;
    return kvb__st_index_read(&rd, json, strlen(json), collect, s, total,
                              entries);
}

static void test_read_st_index(void **state)
{
    (void)state;
    names s;
    uint64_t total = 0, entries = 0;
    kvb_error e = KVB_ERROR_INIT;
    /* each shard once, in name order, whatever the tensor order */
    assert_int_equal(
        index_read("{\"metadata\": {\"total_size\": 13476839424},"
                   "\"weight_map\": {\"b\": \"m-2.safetensors\","
                   "\"a\": \"m-1.safetensors\", \"c\": \"m-2.safetensors\"}}",
                   &s, &total, &entries, &e),
        KVB_OK);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.got[0], "m-1.safetensors");
    assert_string_equal(s.got[1], "m-2.safetensors");
    assert_int_equal(total, 13476839424ull); /* Llama-2-7b-hf's index */
    assert_int_equal(entries, 3);
    /* a shard name that leaves the directory */
    assert_int_equal(index_read("{\"weight_map\": {\"a\": "
                                "\"../../etc/passwd\"}}",
                                &s, &total, &entries, &e),
                     KVB_EPARSE);
    assert_string_equal(e.field, "index.weight_map");
    assert_int_equal(e.column, 22); /* the value after {"weight_map": {"a": */
    assert_int_equal(index_read("{\"weight_map\": {\"a\": \".hidden\"}}", &s,
                                &total, &entries, &e),
                     KVB_EPARSE);
    assert_int_equal(
        index_read("{\"weight_map\": {\"a\": 3}}", &s, &total, &entries, &e),
        KVB_EPARSE);
    assert_int_equal(index_read("{\"metadata\": {}}", &s, &total, &entries, &e),
                     KVB_EPARSE);
    assert_int_equal(index_read("{\"metadata\": {\"total_size\": \"x\"},"
                                "\"weight_map\": {}}",
                                &s, &total, &entries, &e),
                     KVB_EPARSE);
    assert_string_equal(e.field, "index.metadata.total_size");
}

KVB_TESTS(cmocka_unit_test(test_read_st_every_dtype),
          cmocka_unit_test(test_read_st_gptq_layer),
          cmocka_unit_test(test_read_st_truncation),
          cmocka_unit_test(test_read_st_limits),
          cmocka_unit_test(test_read_st_bad_headers),
          cmocka_unit_test(test_read_st_empty_and_args),
          cmocka_unit_test(test_read_st_index));
