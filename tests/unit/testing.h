/*
 * testing.h -- what every unit test includes: cmocka, the public header,
 * lib/internal.h (white-box), and small helpers that fill the structs.
 */
#ifndef KVB_TESTING_H
#define KVB_TESTING_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"
#include "kvbudget.h"

#define GIB ((uint64_t)1 << 30)
#define MIB ((uint64_t)1 << 20)

extern const struct CMUnitTest kvb_tests[];
extern const size_t kvb_tests_count;

#define KVB_TESTS(...)                                                         \
    const struct CMUnitTest kvb_tests[] = {__VA_ARGS__};                       \
    const size_t kvb_tests_count = sizeof kvb_tests / sizeof kvb_tests[0]

/* tests/data/<name>, found from this header's path (tests/unit) (CMake compiles
 * it with an absolute path) unless KVB_TEST_DATA says otherwise. */
static inline void data_path(char *out, size_t cap, const char *name)
{
    const char *env = getenv("KVB_TEST_DATA");
    const char *f = __FILE__;
    const char *slash = strrchr(f, '/');
    if (env && *env)
        snprintf(out, cap, "%s/%s", env, name);
    else
        snprintf(out, cap, "%.*s/../data/%s", (int)(slash ? slash - f : 0), f,
                 name);
}

static inline char *slurp(const char *name, size_t *len)
{
    char path[1024];
    data_path(path, sizeof path, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* tests/data/<name> (a config.json) with the first `from` replaced by `to`
 * (from NULL: as is), through kvb_config_parse. */
static inline kvb_status config_edited(const char *name, const char *from,
                                       const char *to, kvb_model *m,
                                       kvb_error *e)
{
    size_t len = 0;
    char *buf = slurp(name, &len);
    if (from) {
        char *at = strstr(buf, from);
        assert_non_null(at);
        size_t a = (size_t)(at - buf), fl = strlen(from), tl = strlen(to);
        char *edited = malloc(len - fl + tl + 1);
        assert_non_null(edited);
        memcpy(edited, buf, a);
        memcpy(edited + a, to, tl);
        memcpy(edited + a + tl, at + fl, len - a - fl + 1);
        len = len - fl + tl;
        free(buf);
        buf = edited;
    }
    kvb_quant q;
    kvb_read_info info;
    assert_int_equal(KVB_MODEL_INIT(m), KVB_OK);
    assert_int_equal(KVB_QUANT_INIT(&q), KVB_OK);
    assert_int_equal(KVB_READ_INFO_INIT(&info), KVB_OK);
    assert_int_equal(kvb_error_init(e, sizeof *e), KVB_OK);
    kvb_status st = kvb_config_parse(buf, len, m, &q, &info, e);
    free(buf);
    return st;
}

/* tests/data/<name> read as it is; fails the test when it is refused. */
static inline kvb_model config_ok(const char *name)
{
    kvb_model m;
    kvb_error e;
    kvb_status st = config_edited(name, NULL, NULL, &m, &e);
    if (st)
        fail_msg("%s: %s %s: %s", name, kvb_status_name(st), e.field,
                 e.message);
    return m;
}

/* A model's stored parameters (kvb_model_param_count). */
static inline uint64_t model_params(const kvb_model *m)
{
    uint64_t total = 0;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb_model_param_count(m, &total, NULL, &e), KVB_OK);
    return total;
}

/* A preset model; fails the test when it does not exist. */
static inline kvb_model preset_model(const char *name)
{
    kvb_model m;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_MODEL_INIT(&m), KVB_OK);
    if (kvb_preset_model_find(name, &m, &e) != KVB_OK)
        fail_msg("preset %s: %s", name, e.message);
    return m;
}

static inline kvb_quant quant_of(int32_t method)
{
    kvb_quant q;
    assert_int_equal(KVB_QUANT_INIT(&q), KVB_OK);
    q.method = method;
    return q;
}

static inline kvb_gpu gpu_of(uint64_t total_bytes, uint32_t count)
{
    kvb_gpu g;
    assert_int_equal(KVB_GPU_INIT(&g), KVB_OK);
    g.total_bytes = total_bytes;
    g.count = count;
    return g;
}

static inline kvb_serving serving_default(void)
{
    kvb_serving s;
    assert_int_equal(KVB_SERVING_INIT(&s), KVB_OK);
    return s;
}

/* kvb_plan_compute() that must succeed: the test fails with the library's
 * own status, field and message otherwise. */
static inline kvb_plan plan_ok(const kvb_model *m, const kvb_quant *q,
                               const kvb_gpu *g, const kvb_serving *s)
{
    kvb_plan p;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    kvb_status st = kvb_plan_compute(m, q, g, s, &p, &e);
    if (st)
        fail_msg("%s %s: %s", kvb_status_name(st), e.field, e.message);
    return p;
}

/* A small Llama-shaped model used for hand-computed expectations. */
static inline kvb_model tiny_llama(void)
{
    kvb_model m;
    assert_int_equal(KVB_MODEL_INIT(&m), KVB_OK);
    m.arch = KVB_ARCH_LLAMA;
    m.num_hidden_layers = 2;
    m.hidden_size = 256;
    m.num_attention_heads = 4;
    m.num_key_value_heads = 2;
    m.intermediate_size = 512;
    m.vocab_size = 1000;
    m.max_position_embeddings = 4096;
    return m;
}

#endif
