/* fuzz_files.c -- the file layer: the input written to a file and read
 * through kvb_model_read (format sniffing, the streaming GGUF reader and
 * its refills, the directory walk), and the streaming GGUF reader checked
 * against the in-memory parser on the same bytes: same status, same
 * model, same info.  The streaming reader starts with a small buffer so
 * that its refill path runs on every input that needs more. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], file[96], cfg[96];

static void setup(void)
{
    if (dir[0])
        return;
    snprintf(dir, sizeof dir, "/tmp/kvb-fuzz-files-%ld", (long)getpid());
    mkdir(dir, 0700);
    snprintf(file, sizeof file, "%s/m.gguf", dir);
    snprintf(cfg, sizeof cfg, "%s/config.json", dir);
}

static void put(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
}

/* The streaming reader as files.c drives it, from a small first buffer. */
static kvb_status streamed(kvb__reader *r, uint64_t size)
{
    FILE *f = fopen(file, "rb");
    if (!f)
        abort();
    kvb__reader saved = *r;
    uint64_t want = size < 64 ? size : 64, need = 0;
    kvb_status st;
    for (;;) {
        st = kvb__gguf_read_file(r, f, size, want, &need);
        if (!st || need <= want || need > KVB_READ_MAX_GGUF_HEADER_BYTES)
            break;
        *r = saved;
        kvb__clear(r->err);
        want = need > 2 * want ? need : 2 * want;
        if (want > size)
            want = size;
    }
    fclose(f);
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    put(file, data, size);
    kvb_error e1 = KVB_ERROR_INIT, e2 = KVB_ERROR_INIT;
    kvb__reader a, b;
    uint64_t need = 0;
    kvb__reader_init(&a, "fuzz", &e1);
    kvb__reader_init(&b, "fuzz", &e2);
    kvb_status sa = streamed(&a, size);
    kvb_status sb = kvb__gguf_read(&b, data, size, size, &need);
    /* the streaming reader and the parser agree on everything */
    if (sa != sb)
        __builtin_trap();
    if (sa == KVB_OK && (memcmp(&a.model, &b.model, sizeof a.model) != 0 ||
                         memcmp(&a.quant, &b.quant, sizeof a.quant) != 0 ||
                         a.info.tensor_count != b.info.tensor_count ||
                         a.info.weights_bytes != b.info.weights_bytes))
        __builtin_trap();
    if (sa != KVB_OK && (strcmp(e1.field, e2.field) != 0 ||
                         strcmp(e1.message, e2.message) != 0))
        __builtin_trap();

    /* the front door: by path (sniffed), and the directory walk */
    kvb_model m;
    kvb_quant q;
    kvb_read_info info;
    kvb_error e = KVB_ERROR_INIT;
    if (KVB_MODEL_INIT(&m) || KVB_QUANT_INIT(&q) || KVB_READ_INFO_INIT(&info))
        return 0;
    (void)kvb_model_read(file, &m, &q, &info, &e);
    (void)kvb_model_read(dir, &m, &q, &info, &e);
    /* the same bytes as a config.json beside it (the directory prefers
     * it), then gone again */
    put(cfg, data, size);
    (void)kvb_model_read(dir, &m, &q, &info, &e);
    unlink(cfg);
    return 0;
}
