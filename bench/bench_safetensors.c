/*
 * bench_safetensors.c -- reading the headers of a sharded 70B-class
 * checkpoint: Llama-3.1-70B in BF16, 723 tensors in 30 shards, with its
 * config.json and model.safetensors.index.json.  The benchmark writes the
 * directory itself; each shard is its 8-byte length, its JSON header and
 * the tensor data as a sparse hole (ftruncate).
 *
 * Cases, one line each:  bench <case> <iterations> <ns/op> <ops/s>
 *   st.kvb_model_read        kvb_model_read(dir): config, index, every
 *                            shard header, checked and summed
 *   st.kvb_safetensors_parse kvb_safetensors_parse over the 30 headers
 *                            already in memory
 *   st.raw_read              open + read of the same files' header bytes
 * bench/st_json.py does what Python's json module needs for the same
 * directory (bench/run.py runs it side by side).
 *
 *   bench_safetensors [--tiny] [--dir DIR] [--reps N]
 * prints "# dir <path>" for the peers.
 */
#define _POSIX_C_SOURCE 200809L

#include "bench_common.h"
#include "kvbudget.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
    fprintf(stderr, "bench_safetensors: %s: %s\n", what, strerror(errno));
    exit(2);
}

typedef struct text {
    char *p;
    size_t n, cap;
} text;

static void add(text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#include <stdarg.h>
static void add(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->p ? t->p + t->n : NULL, t->p ? t->cap - t->n : 0,
                          fmt, ap);
        va_end(ap);
        if (n < 0)
            die("vsnprintf");
        if (t->p && t->n + (size_t)n < t->cap) {
            t->n += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap * 2 : 4096;
        while (cap < t->n + (size_t)n + 1)
            cap *= 2;
        char *p = realloc(t->p, cap);
        if (!p)
            die("realloc");
        t->p = p;
        t->cap = cap;
    }
}

static void write_file(const char *path, const void *p, size_t n,
                       uint64_t total)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        die(path);
    for (size_t done = 0; done < n;) {
        ssize_t w = write(fd, (const char *)p + done, n - done);
        if (w <= 0)
            die("write");
        done += (size_t)w;
    }
    if (total > n && ftruncate(fd, (off_t)total) != 0)
        die("ftruncate");
    close(fd);
}

typedef struct shape {
    unsigned layers, hidden, ffn, heads, kv_heads, vocab, shards;
} shape;

typedef struct tensor_row {
    char name[96];
    uint64_t rows, cols; /* cols 0: a vector */
} tensor_row;

static size_t tensors_of(const shape *m, tensor_row *t)
{
    size_t n = 0;
    uint64_t kv = (uint64_t)m->kv_heads * (m->hidden / m->heads);
#define ROW(r, c, ...)                                                         \
    do {                                                                       \
        snprintf(t[n].name, sizeof t[n].name, __VA_ARGS__);                    \
        t[n].rows = (r);                                                       \
        t[n].cols = (c);                                                       \
        n++;                                                                   \
    } while (0)
    ROW(m->vocab, m->hidden, "model.embed_tokens.weight");
    for (unsigned i = 0; i < m->layers; i++) {
        ROW(m->hidden, 0, "model.layers.%u.input_layernorm.weight", i);
        ROW(m->ffn, m->hidden, "model.layers.%u.mlp.down_proj.weight", i);
        ROW(m->ffn, m->hidden, "model.layers.%u.mlp.gate_proj.weight", i);
        ROW(m->ffn, m->hidden, "model.layers.%u.mlp.up_proj.weight", i);
        ROW(m->hidden, 0, "model.layers.%u.post_attention_layernorm.weight", i);
        ROW(kv, m->hidden, "model.layers.%u.self_attn.k_proj.weight", i);
        ROW(m->hidden, m->hidden, "model.layers.%u.self_attn.o_proj.weight", i);
        ROW(m->hidden, m->hidden, "model.layers.%u.self_attn.q_proj.weight", i);
        ROW(kv, m->hidden, "model.layers.%u.self_attn.v_proj.weight", i);
    }
    ROW(m->hidden, 0, "model.norm.weight");
    ROW(m->vocab, m->hidden, "lm_head.weight");
#undef ROW
    return n;
}

/* Write config.json, the shards and the index; returns the shard count. */
static unsigned write_model(const char *dir, const shape *m)
{
    char path[4096];
    tensor_row *t = calloc(16 + 9 * (size_t)m->layers, sizeof *t);
    if (!t)
        die("calloc");
    size_t n = tensors_of(m, t);
    text cfg = {0}, idx = {0};
    add(&cfg,
        "{\n  \"architectures\": [\"LlamaForCausalLM\"],\n"
        "  \"model_type\": \"llama\",\n  \"hidden_size\": %u,\n"
        "  \"intermediate_size\": %u,\n  \"num_hidden_layers\": %u,\n"
        "  \"num_attention_heads\": %u,\n  \"num_key_value_heads\": %u,\n"
        "  \"vocab_size\": %u,\n  \"max_position_embeddings\": 131072,\n"
        "  \"rms_norm_eps\": 1e-05,\n  \"rope_theta\": 500000.0,\n"
        "  \"tie_word_embeddings\": false,\n  \"torch_dtype\": "
        "\"bfloat16\"\n}\n",
        m->hidden, m->ffn, m->layers, m->heads, m->kv_heads, m->vocab);
    snprintf(path, sizeof path, "%s/config.json", dir);
    write_file(path, cfg.p, cfg.n, 0);
    uint64_t total = 0;
    add(&idx, "{\n  \"metadata\": {\n    \"total_size\": TOTAL_SIZE_SLOT\n"
              "  },\n  \"weight_map\": {\n");
    for (unsigned s = 0; s < m->shards; s++) {
        text h = {0};
        uint64_t off = 0;
        add(&h, "{\"__metadata__\":{\"format\":\"pt\"}");
        for (size_t i = s * n / m->shards; i < (s + 1) * n / m->shards; i++) {
            uint64_t bytes = t[i].rows * (t[i].cols ? t[i].cols : 1) * 2;
            if (t[i].cols)
                add(&h,
                    ",\"%s\":{\"dtype\":\"BF16\",\"shape\":[%llu,%llu],"
                    "\"data_offsets\":[%llu,%llu]}",
                    t[i].name, (unsigned long long)t[i].rows,
                    (unsigned long long)t[i].cols, (unsigned long long)off,
                    (unsigned long long)(off + bytes));
            else
                add(&h,
                    ",\"%s\":{\"dtype\":\"BF16\",\"shape\":[%llu],"
                    "\"data_offsets\":[%llu,%llu]}",
                    t[i].name, (unsigned long long)t[i].rows,
                    (unsigned long long)off, (unsigned long long)(off + bytes));
            add(&idx, "    \"%s\": \"model-%05u-of-%05u.safetensors\"%s\n",
                t[i].name, s + 1, m->shards, i + 1 < n ? "," : "");
            off += bytes;
        }
        add(&h, "}");
        while (h.n % 8) /* the writer pads with spaces to 8 bytes */
            add(&h, " ");
        unsigned char len[8];
        for (int k = 0; k < 8; k++)
            len[k] = (unsigned char)((uint64_t)h.n >> (8 * k));
        snprintf(path, sizeof path, "%s/model-%05u-of-%05u.safetensors", dir,
                 s + 1, m->shards);
        char *all = malloc(8 + h.n);
        if (!all)
            die("malloc");
        memcpy(all, len, 8);
        memcpy(all + 8, h.p, h.n);
        write_file(path, all, 8 + h.n, 8 + h.n + off);
        free(all);
        free(h.p);
        total += off;
    }
    add(&idx, "  }\n}\n");
    char num[32];
    snprintf(num, sizeof num, "%llu", (unsigned long long)total);
    char *slot = strstr(idx.p, "TOTAL_SIZE_SLOT");
    text fixed = {0};
    add(&fixed, "%.*s%s%s", (int)(slot - idx.p), idx.p, num,
        slot + strlen("TOTAL_SIZE_SLOT"));
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    write_file(path, fixed.p, fixed.n, 0);
    free(fixed.p);
    free(idx.p);
    free(cfg.p);
    free(t);
    return m->shards;
}

/* ---- reading ---- */

typedef struct headers {
    unsigned char *p[64];
    size_t n[64];
    unsigned count;
    uint64_t bytes; /* all files' header bytes */
} headers;

static unsigned char *read_prefix(const char *path, size_t *len, int st)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        die(path);
    size_t n = 0;
    if (st) {
        unsigned char h[8];
        if (read(fd, h, 8) != 8)
            die("read");
        uint64_t v = 0;
        for (int k = 7; k >= 0; k--)
            v = v << 8 | h[k];
        n = (size_t)v + 8;
    } else {
        struct stat sb;
        if (fstat(fd, &sb) != 0)
            die("fstat");
        n = (size_t)sb.st_size;
    }
    unsigned char *p = malloc(n);
    if (!p)
        die("malloc");
    size_t done = 0;
    if (st) {
        for (int k = 0; k < 8; k++) /* the length again, as parsed */
            p[k] = (unsigned char)((uint64_t)(n - 8) >> (8 * k));
        done = 8;
    }
    while (done < n) {
        ssize_t r = read(fd, p + done, n - done);
        if (r <= 0)
            die("read");
        done += (size_t)r;
    }
    close(fd);
    *len = n;
    return p;
}

static double time_raw(const char *dir, unsigned shards, headers *keep)
{
    char path[4096];
    size_t n;
    double t0 = bench_now_ns();
    snprintf(path, sizeof path, "%s/config.json", dir);
    free(read_prefix(path, &n, 0));
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    free(read_prefix(path, &n, 0));
    for (unsigned s = 0; s < shards; s++) {
        snprintf(path, sizeof path, "%s/model-%05u-of-%05u.safetensors", dir,
                 s + 1, shards);
        unsigned char *p = read_prefix(path, &n, 1);
        if (keep && s < 64) {
            keep->p[s] = p;
            keep->n[s] = n;
            keep->count = s + 1;
            keep->bytes += n;
        } else {
            free(p);
        }
    }
    return bench_now_ns() - t0;
}

static double time_model_read(const char *dir, kvb_read_info *info)
{
    kvb_model m;
    kvb_quant q;
    kvb_error e = KVB_ERROR_INIT;
    if (KVB_MODEL_INIT(&m) || KVB_QUANT_INIT(&q) || KVB_READ_INFO_INIT(info))
        exit(2);
    double t0 = bench_now_ns();
    kvb_status st = kvb_model_read(dir, &m, &q, info, &e);
    double t = bench_now_ns() - t0;
    if (st) {
        fprintf(stderr, "bench_safetensors: kvb_model_read: %s\n", e.message);
        exit(1);
    }
    return t;
}

static double time_parse(const headers *h, uint64_t *tensors)
{
    double t0 = bench_now_ns();
    *tensors = 0;
    for (unsigned s = 0; s < h->count; s++) {
        kvb_read_info info;
        if (KVB_READ_INFO_INIT(&info))
            exit(2);
        kvb_status st = kvb_safetensors_parse(h->p[s], h->n[s], &info, NULL);
        if (st) {
            fprintf(stderr, "bench_safetensors: parse: %s\n", kvb_strerror(st));
            exit(1);
        }
        *tensors += info.tensor_count;
    }
    return bench_now_ns() - t0;
}

int main(int argc, char **argv)
{
    bench_args args = {0, "bench-data/llama-70b-bf16", 30, 0};
    if (bench_parse(argc, argv, "bench_safetensors", &args))
        return 2;
    int tiny = args.tiny, reps = args.reps, reps_given = args.reps_given;
    const char *dir = args.dir;
    shape m = {80, 8192, 28672, 64, 8, 128256, 30};
    if (tiny) {
        m.layers = 4;
        m.shards = 2;
        reps = reps_given ? reps : 2;
    }
    if (reps < 1)
        reps = 1;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        die(dir);
    unsigned shards = write_model(dir, &m);
    printf("# dir %s\n", dir);
    kvb_read_info info;
    headers h;
    memset(&h, 0, sizeof h);
    time_model_read(dir, &info); /* warm */
    time_raw(dir, shards, &h);
    uint64_t tensors = 0;
    double best_read = 0, best_parse = 0, best_raw = 0;
    for (int r = 0; r < reps; r++) {
        double a = time_model_read(dir, &info);
        double b = time_parse(&h, &tensors);
        double c = time_raw(dir, shards, NULL);
        best_read = r == 0 || a < best_read ? a : best_read;
        best_parse = r == 0 || b < best_parse ? b : best_parse;
        best_raw = r == 0 || c < best_raw ? c : best_raw;
    }
    if (info.tensor_count != tensors || info.shard_count != shards) {
        fprintf(stderr, "bench_safetensors: read %llu tensors in %u shards\n",
                (unsigned long long)info.tensor_count, info.shard_count);
        return 1;
    }
    printf("# %u shards, %llu tensors, %llu header bytes, weights %.2f GiB\n",
           shards, (unsigned long long)tensors,
           (unsigned long long)info.header_bytes,
           (double)info.weights_bytes / 1073741824.0);
    bench_line("st.kvb_model_read", (uint64_t)reps, best_read);
    bench_line("st.kvb_safetensors_parse", (uint64_t)reps, best_parse);
    bench_line("st.raw_read", (uint64_t)reps, best_raw);
    for (unsigned s = 0; s < h.count; s++)
        free(h.p[s]);
    return 0;
}
