/*
 * bench_gguf.c -- GGUF header read time on a realistic header, against a
 * raw sequential read of the same bytes.
 *
 * The benchmark writes its own file: a Llama-3.1-70B-shaped Q4_K_M model
 * (80 layers, 723 tensor infos with llama.cpp's Q4_K/Q6_K mix) whose
 * metadata carries a 128,256-token vocabulary as llama.cpp's converter
 * writes it (tokenizer.ggml.tokens, .scores, .token_type, 280,147 merges,
 * a chat template).  The tensor data is a sparse hole (ftruncate): the
 * file is ~40 GiB long and takes a few MiB of disk.
 *
 * Cases, one line each:  bench <case> <iterations> <ns/op> <ops/s>
 *   gguf.kvb_model_read  kvb_model_read(path): open, read, parse, validate
 *   gguf.kvb_gguf_parse  kvb_gguf_parse on the header already in memory
 *   gguf.raw_read        open + read(header bytes) into a fresh buffer
 * Repetitions alternate the cases; each reports its best (least disturbed)
 * time.  The file is in the page cache for all of them (it was just
 * written and read), which is what a planner re-reading headers sees.
 *
 *   bench_gguf [--tiny] [--dir DIR] [--reps N]
 * prints the file's path ("# file <path> <header bytes>") for the peers.
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
    fprintf(stderr, "bench_gguf: %s: %s\n", what, strerror(errno));
    exit(2);
}

/* ---- a growing byte buffer, little-endian writers ---- */

typedef struct buf {
    unsigned char *p;
    size_t n, cap;
    uint64_t kvs; /* metadata pairs written */
} buf;

static void put(buf *b, const void *src, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 16;
        while (cap < b->n + n)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p)
            die("realloc");
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

static void put_le(buf *b, uint64_t v, int bytes)
{
    unsigned char t[8];
    for (int i = 0; i < bytes; i++)
        t[i] = (unsigned char)(v >> (8 * i));
    put(b, t, (size_t)bytes);
}

static void put_str(buf *b, const char *s, size_t n)
{
    put_le(b, n, 8);
    put(b, s, n);
}

enum { T_U32 = 4, T_I32 = 5, T_F32 = 6, T_STRING = 8, T_ARRAY = 9 };

static void kv_key(buf *b, const char *key, uint32_t type)
{
    b->kvs++;
    put_str(b, key, strlen(key));
    put_le(b, type, 4);
}

static void kv_u32(buf *b, const char *key, uint32_t v)
{
    kv_key(b, key, T_U32);
    put_le(b, v, 4);
}

static void kv_f32(buf *b, const char *key, float f)
{
    uint32_t v;
    memcpy(&v, &f, 4);
    kv_key(b, key, T_F32);
    put_le(b, v, 4);
}

static void kv_string(buf *b, const char *key, const char *s)
{
    kv_key(b, key, T_STRING);
    put_str(b, s, strlen(s));
}

static void array_head(buf *b, const char *key, uint32_t et, uint64_t n)
{
    kv_key(b, key, T_ARRAY);
    put_le(b, et, 4);
    put_le(b, n, 8);
}

/* ---- the model ---- */

static uint64_t rng(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* A byte-level BPE piece: "Ġ" (2 bytes) on about half, 1-12 letters. */
static size_t token(uint64_t *s, char *out)
{
    size_t n = 0;
    if (rng(s) % 2) {
        out[n++] = (char)0xC4;
        out[n++] = (char)0xA0;
    }
    size_t len = 1 + rng(s) % 7 + rng(s) % 6;
    for (size_t i = 0; i < len; i++)
        out[n++] = (char)('a' + rng(s) % 26);
    return n;
}

typedef struct shape {
    uint32_t layers, hidden, ffn, heads, kv_heads, vocab, merges;
} shape;

/* llama.cpp's use_more_bits: these layers keep Q6_K in a Q4_K_M mix. */
static int more_bits(uint32_t i, uint32_t n)
{
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

enum { GGML_F32 = 0, GGML_Q4_K = 12, GGML_Q6_K = 14 };

static uint64_t type_bytes(uint32_t type, uint64_t elems)
{
    switch (type) {
    case GGML_Q4_K: return elems / 256 * 144;
    case GGML_Q6_K: return elems / 256 * 210;
    default: return elems * 4;
    }
}

static void tensor(buf *b, uint64_t *offset, const char *name, uint32_t type,
                   uint64_t ne0, uint64_t ne1)
{
    put_str(b, name, strlen(name));
    put_le(b, ne1 ? 2 : 1, 4);
    put_le(b, ne0, 8);
    if (ne1)
        put_le(b, ne1, 8);
    put_le(b, type, 4);
    put_le(b, *offset, 8);
    uint64_t bytes = type_bytes(type, ne0 * (ne1 ? ne1 : 1));
    *offset += (bytes + 31) / 32 * 32;
}

static uint64_t tensor_infos(buf *b, const shape *m)
{
    uint64_t off = 0;
    uint64_t kv = (uint64_t)m->kv_heads * (m->hidden / m->heads);
    char name[64];
    tensor(b, &off, "token_embd.weight", GGML_Q4_K, m->hidden, m->vocab);
    tensor(b, &off, "output_norm.weight", GGML_F32, m->hidden, 0);
    tensor(b, &off, "output.weight", GGML_Q6_K, m->hidden, m->vocab);
    for (uint32_t i = 0; i < m->layers; i++) {
        uint32_t mix = more_bits(i, m->layers) ? GGML_Q6_K : GGML_Q4_K;
#define T(suffix, type, a, c)                                                  \
    snprintf(name, sizeof name, "blk.%u." suffix, i);                          \
    tensor(b, &off, name, type, a, c)
        T("attn_norm.weight", GGML_F32, m->hidden, 0);
        T("attn_q.weight", GGML_Q4_K, m->hidden, m->hidden);
        T("attn_k.weight", GGML_Q4_K, m->hidden, kv);
        T("attn_v.weight", mix, m->hidden, kv);
        T("attn_output.weight", GGML_Q4_K, m->hidden, m->hidden);
        T("ffn_norm.weight", GGML_F32, m->hidden, 0);
        T("ffn_gate.weight", GGML_Q4_K, m->hidden, m->ffn);
        T("ffn_up.weight", GGML_Q4_K, m->hidden, m->ffn);
        T("ffn_down.weight", mix, m->ffn, m->hidden);
#undef T
    }
    return off;
}

static const char TEMPLATE_PIECE[] =
    "{% for message in messages %}{{ '<|start_header_id|>' + message['role'] "
    "+ '<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' "
    "}}{% endfor %}";

static void metadata(buf *b, const shape *m)
{
    uint64_t s = 0x5eed;
    char tok[32], merge[64];
    kv_string(b, "general.architecture", "llama");
    kv_string(b, "general.type", "model");
    kv_string(b, "general.name", "Meta Llama 3.1 70B Instruct");
    kv_string(b, "general.finetune", "Instruct");
    kv_string(b, "general.basename", "Meta-Llama-3.1");
    kv_string(b, "general.size_label", "70B");
    kv_string(b, "general.license", "llama3.1");
    kv_u32(b, "llama.block_count", m->layers);
    kv_u32(b, "llama.context_length", 131072);
    kv_u32(b, "llama.embedding_length", m->hidden);
    kv_u32(b, "llama.feed_forward_length", m->ffn);
    kv_u32(b, "llama.attention.head_count", m->heads);
    kv_u32(b, "llama.attention.head_count_kv", m->kv_heads);
    kv_f32(b, "llama.rope.freq_base", 500000.0f);
    kv_f32(b, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
    kv_u32(b, "general.file_type", 15); /* MOSTLY_Q4_K_M */
    kv_u32(b, "llama.vocab_size", m->vocab);
    kv_u32(b, "llama.rope.dimension_count", m->hidden / m->heads);
    kv_string(b, "tokenizer.ggml.model", "gpt2");
    kv_string(b, "tokenizer.ggml.pre", "llama-bpe");
    array_head(b, "tokenizer.ggml.tokens", T_STRING, m->vocab);
    for (uint32_t i = 0; i < m->vocab; i++)
        put_str(b, tok, token(&s, tok));
    array_head(b, "tokenizer.ggml.scores", T_F32, m->vocab);
    for (uint32_t i = 0; i < m->vocab; i++) {
        float f = -(float)i;
        uint32_t v;
        memcpy(&v, &f, 4);
        put_le(b, v, 4);
    }
    array_head(b, "tokenizer.ggml.token_type", T_I32, m->vocab);
    for (uint32_t i = 0; i < m->vocab; i++)
        put_le(b, i < m->vocab - 256 ? 1 : 3, 4);
    array_head(b, "tokenizer.ggml.merges", T_STRING, m->merges);
    for (uint32_t i = 0; i < m->merges; i++) {
        size_t n = token(&s, merge);
        merge[n++] = ' ';
        n += token(&s, merge + n);
        put_str(b, merge, n);
    }
    kv_u32(b, "tokenizer.ggml.bos_token_id", 128000);
    kv_u32(b, "tokenizer.ggml.eos_token_id", 128009);
    char tmpl[sizeof TEMPLATE_PIECE * 24];
    tmpl[0] = '\0';
    for (int i = 0; i < 24; i++)
        strcat(tmpl, TEMPLATE_PIECE);
    kv_string(b, "tokenizer.chat_template", tmpl);
    kv_u32(b, "general.quantization_version", 2);
}

/* Write the file; returns the header's length (up to the data). */
static uint64_t write_gguf(const char *path, const shape *m)
{
    buf b = {NULL, 0, 0, 0};
    put(&b, "GGUF", 4);
    put_le(&b, 3, 4);
    put_le(&b, 3 + 9ull * m->layers, 8);
    put_le(&b, 0, 8); /* the metadata count, patched below */
    metadata(&b, m);
    for (int i = 0; i < 8; i++)
        b.p[16 + i] = (unsigned char)(b.kvs >> (8 * i));
    uint64_t data = tensor_infos(&b, m);
    uint64_t header = b.n;
    while (b.n % 32)
        put(&b, "", 1);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        die(path);
    for (size_t done = 0; done < b.n;) {
        ssize_t w = write(fd, b.p + done, b.n - done);
        if (w <= 0)
            die("write");
        done += (size_t)w;
    }
    if (ftruncate(fd, (off_t)(b.n + data)) != 0) /* the data: a hole */
        die("ftruncate");
    close(fd);
    free(b.p);
    return header;
}

/* ---- timing ---- */

static double time_model_read(const char *path, kvb_read_info *info)
{
    kvb_model m;
    kvb_quant q;
    kvb_error e = KVB_ERROR_INIT;
    if (KVB_MODEL_INIT(&m) || KVB_QUANT_INIT(&q) || KVB_READ_INFO_INIT(info))
        exit(2);
    double t0 = bench_now_ns();
    kvb_status st = kvb_model_read(path, &m, &q, info, &e);
    double t = bench_now_ns() - t0;
    if (st) {
        fprintf(stderr, "bench_gguf: kvb_model_read: %s\n", e.message);
        exit(1);
    }
    return t;
}

static double time_parse(const unsigned char *hdr, size_t n)
{
    kvb_model m;
    kvb_quant q;
    kvb_read_info info;
    if (KVB_MODEL_INIT(&m) || KVB_QUANT_INIT(&q) || KVB_READ_INFO_INIT(&info))
        exit(2);
    double t0 = bench_now_ns();
    kvb_status st = kvb_gguf_parse(hdr, n, &m, &q, &info, NULL);
    double t = bench_now_ns() - t0;
    if (st) {
        fprintf(stderr, "bench_gguf: kvb_gguf_parse: %s\n", kvb_strerror(st));
        exit(1);
    }
    return t;
}

/* What any reader must do at least: open, a buffer, read the bytes. */
static double time_raw(const char *path, uint64_t n, unsigned char **keep)
{
    double t0 = bench_now_ns();
    int fd = open(path, O_RDONLY);
    unsigned char *p = malloc((size_t)n);
    if (fd < 0 || !p)
        die("raw read");
    for (uint64_t done = 0; done < n;) {
        ssize_t r = read(fd, p + done, (size_t)(n - done));
        if (r <= 0)
            die("raw read");
        done += (uint64_t)r;
    }
    close(fd);
    double t = bench_now_ns() - t0;
    if (keep)
        *keep = p;
    else
        free(p);
    return t;
}

int main(int argc, char **argv)
{
    bench_args args = {0, "bench-data", 30, 0};
    if (bench_parse(argc, argv, "bench_gguf", &args))
        return 2;
    int tiny = args.tiny, reps = args.reps, reps_given = args.reps_given;
    const char *dir = args.dir;
    shape m = {80, 8192, 28672, 64, 8, 128256, 280147};
    if (tiny) { /* the smoke test: the same shape, a small vocabulary */
        m.vocab = 512;
        m.merges = 1000;
        m.layers = 4;
        reps = reps_given ? reps : 2;
    }
    if (reps < 1)
        reps = 1;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        die(dir);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir,
             tiny ? "tiny-q4_k_m.gguf" : "llama-70b-q4_k_m.gguf");
    uint64_t header = write_gguf(path, &m);
    printf("# file %s %llu\n", path, (unsigned long long)header);

    kvb_read_info info;
    unsigned char *hdr = NULL;
    time_model_read(path, &info); /* warm: page cache, allocator */
    time_raw(path, info.header_bytes, &hdr);
    if (info.header_bytes != header ||
        info.tensor_count != 3 + 9ull * m.layers) {
        fprintf(stderr, "bench_gguf: read %llu header bytes, %llu tensors\n",
                (unsigned long long)info.header_bytes,
                (unsigned long long)info.tensor_count);
        return 1;
    }
    double best_read = 0, best_parse = 0, best_raw = 0;
    for (int r = 0; r < reps; r++) {
        double a = time_model_read(path, &info);
        double b = time_parse(hdr, (size_t)header);
        double c = time_raw(path, header, NULL);
        best_read = r == 0 || a < best_read ? a : best_read;
        best_parse = r == 0 || b < best_parse ? b : best_parse;
        best_raw = r == 0 || c < best_raw ? c : best_raw;
    }
    free(hdr);
    printf("# header %llu bytes, %llu tensors, weights %.2f GiB\n",
           (unsigned long long)header, (unsigned long long)info.tensor_count,
           (double)info.weights_bytes / 1073741824.0);
    bench_line("gguf.kvb_model_read", (uint64_t)reps, best_read);
    bench_line("gguf.kvb_gguf_parse", (uint64_t)reps, best_parse);
    bench_line("gguf.raw_read", (uint64_t)reps, best_raw);
    printf("ratio gguf.kvb_model_read/gguf.raw_read %.2fx\n",
           best_read / best_raw);
    return 0;
}
