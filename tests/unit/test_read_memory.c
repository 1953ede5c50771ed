/*
 * test_read_memory.c -- the readers' memory is bounded by their input:
 * each reader gets hostile input of a few MB (structures its format cannot
 * hold, or holds only a few of: empty arrays, tiny values by the million)
 * and the peak resident memory of the parse, measured in a child process,
 * must stay under KVB_MEM_FACTOR x the input + KVB_MEM_SLACK.
 *
 * Under AddressSanitizer the allocator's quarantine and shadow memory
 * make RSS meaningless: the test is skipped there (CI runs it in the
 * normal and the Release builds).
 */
#define _POSIX_C_SOURCE 200809L
#include "testing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define KVB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KVB_ASAN 1
#endif
#endif

#define KVB_MEM_FACTOR 3u          /* peak <= 3 x input + slack */
#define KVB_MEM_SLACK  (48u << 20) /* the largest tree a cap lets through */
#define INPUT_BYTES    ((size_t)12 << 20)

/* Resident bytes now (statm) and the peak so far (VmHWM). */
/* unused under ASan */
__attribute__((unused)) static size_t rss_now(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = 0;
    fclose(f);
    return (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
}

/* unused under ASan */
__attribute__((unused)) static size_t rss_peak(void)
{
    char line[128];
    size_t kb = 0;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %zu kB", &kb) == 1)
            break;
    fclose(f);
    return kb * 1024;
}

typedef enum reader { CONFIG, INDEX, SAFETENSORS, GGUF } reader;

/* `head`, then `unit` repeated to about INPUT_BYTES (separated by ','
 * when sep), then `tail`; for safetensors the 8-byte length first. */
static size_t reps; /* units to write; 0: fill INPUT_BYTES */

static char *make(const char *head, const char *unit, bool sep,
                  const char *tail, size_t *len)
{
    size_t hn = strlen(head), un = strlen(unit), tn = strlen(tail);
    char *b = malloc(INPUT_BYTES + hn + tn + 16);
    assert_non_null(b);
    size_t n = 0;
    memcpy(b, head, hn);
    n = hn;
    for (size_t i = 0; reps ? i < reps : n + un + 1 + tn < INPUT_BYTES; i++) {
        if (sep && i)
            b[n++] = ',';
        memcpy(b + n, unit, un);
        n += un;
    }
    memcpy(b + n, tail, tn);
    n += tn;
    b[n] = '\0';
    *len = n;
    return b;
}

/* unused under ASan */
__attribute__((unused)) static kvb_status no_shard(void *ctx, const char *name)
{
    (void)ctx;
    (void)name;
    return KVB_OK;
}

/* Parse one input in the child; the parent gets peak - baseline in MiB
 * through the exit status (capped at 250). */
/* unused under ASan */
__attribute__((unused)) static int parse(reader which, const char *buf,
                                         size_t len)
{
    kvb_model m;
    kvb_quant q;
    kvb_read_info info;
    kvb_error e = KVB_ERROR_INIT;
    if (KVB_MODEL_INIT(&m) || KVB_QUANT_INIT(&q) || KVB_READ_INFO_INIT(&info))
        return -1;
    switch (which) {
    case CONFIG: return kvb_config_parse(buf, len, &m, &q, &info, &e);
    case SAFETENSORS: return kvb_safetensors_parse(buf, len, &info, &e);
    case GGUF: return kvb_gguf_parse(buf, len, &m, &q, &info, &e);
    default: {
        kvb__reader r;
        kvb__reader_init(&r, "", &e);
        uint64_t total = 0, entries = 0;
        return kvb__st_index_read(&r, buf, len, no_shard, NULL, &total,
                                  &entries);
    }
    }
}

/* unused under ASan */
__attribute__((unused)) static size_t peak_mib(reader which, const char *buf,
                                               size_t len, int *status)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        size_t base = rss_now();
        int st = parse(which, buf, len);
        size_t peak = rss_peak();
        size_t mib = peak > base ? (peak - base) >> 20 : 0;
        (void)st; /* accepted or refused: only the memory counts here */
        _exit(mib >= 250 ? 255 : (int)mib);
    }
    int ws = 0;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws));
    *status = 0;
    return (size_t)WEXITSTATUS(ws);
}

static void check(const char *what, reader which, char *buf, size_t len)
{
#ifdef KVB_ASAN
    /* RSS is not meaningful under AddressSanitizer */
    (void)what;
    (void)which;
    (void)len;
    free(buf);
#else
    int status = 0;
    size_t mib = peak_mib(which, buf, len, &status);
    free(buf);
    size_t limit = (KVB_MEM_FACTOR * len + KVB_MEM_SLACK) >> 20;
    print_message("%s: input %zu MiB, parse peak %zu MiB (limit %zu)\n", what,
                  len >> 20, mib, limit);
    if (mib > limit)
        fail_msg("%s: the parse took %s%zu MiB for %zu MiB of input; "
                 "allowed: %zu MiB",
                 what, mib == 255 ? "over " : "", mib == 255 ? 250 : mib,
                 len >> 20, limit);
#endif
}

static void test_read_memory_config(void **state)
{
    (void)state;
    size_t n;
    char *b = make("{\"a\": [", "[]", true, "]}", &n);
    check("config.json, empty arrays", CONFIG, b, n);
    b = make("{\"a\": [", "1", true, "]}", &n);
    check("config.json, small integers", CONFIG, b, n);
    b = make("{\"a\": [", "{}", true, "]}", &n);
    check("config.json, empty objects", CONFIG, b, n);
    /* just under the cap: the tree is built, and bounded */
    reps = (1u << 17) - 16;
    b = make("{\"a\": [", "[]", true, "]}", &n);
    check("config.json, empty arrays at the cap", CONFIG, b, n);
    reps = 0;
}

static void test_read_memory_index(void **state)
{
    (void)state;
    size_t n;
    char *b = make("{\"weight_map\": {}, \"x\": [", "[]", true, "]}", &n);
    check("index.json, empty arrays", INDEX, b, n);
    reps = (1u << 18) - 16;
    b = make("{\"weight_map\": {}, \"x\": [", "[]", true, "]}", &n);
    check("index.json, empty arrays at the cap", INDEX, b, n);
    reps = 0;
    b = make("{\"weight_map\": {\"a\":\"b\"", ",\"\":\"\"", false, "}}", &n);
    check("index.json, tiny entries", INDEX, b, n);
}

static void test_read_memory_safetensors(void **state)
{
    (void)state;
    size_t n;
    char *b = make("01234567{\"x\": [", "[]", true, "]}", &n);
    uint64_t h = n - 8;
    for (int i = 0; i < 8; i++)
        b[i] = (char)(h >> (8 * i));
    check("safetensors header, empty arrays", SAFETENSORS, b, n);
    b = make("01234567{\"__metadata__\": {\"a\": \"b\"", ",\"\":\"\"", false,
             "}}", &n);
    h = n - 8;
    for (int i = 0; i < 8; i++)
        b[i] = (char)(h >> (8 * i));
    check("safetensors header, empty metadata", SAFETENSORS, b, n);
    reps = (1u << 18) - 16;
    b = make("01234567{\"x\": [", "[]", true, "]}", &n);
    h = n - 8;
    for (int i = 0; i < 8; i++)
        b[i] = (char)(h >> (8 * i));
    check("safetensors header, empty arrays at the cap", SAFETENSORS, b, n);
    reps = 0;
}

static void put64(char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (char)(v >> (8 * i));
}

/* A GGUF whose one key is an array of empty strings (8 bytes each). */
static void test_read_memory_gguf(void **state)
{
    (void)state;
    const char *key = "tokenizer.ggml.tokens";
    size_t kn = strlen(key);
    size_t count = (INPUT_BYTES - 64) / 8, n = 24 + 8 + kn + 4 + 4 + 8;
    size_t len = n + 8 * count;
    char *b = calloc(1, len);
    assert_non_null(b);
    memcpy(b, "GGUF", 4);
    b[4] = 3;         /* version */
    put64(b + 8, 0);  /* tensors */
    put64(b + 16, 1); /* metadata pairs */
    put64(b + 24, kn);
    memcpy(b + 32, key, kn);
    b[32 + kn] = 9;     /* array */
    b[32 + kn + 4] = 8; /* of strings */
    put64(b + 32 + kn + 8, count);
    check("GGUF, array of empty strings", GGUF, b, len);
}

KVB_TESTS(cmocka_unit_test(test_read_memory_config),
          cmocka_unit_test(test_read_memory_index),
          cmocka_unit_test(test_read_memory_safetensors),
          cmocka_unit_test(test_read_memory_gguf));
