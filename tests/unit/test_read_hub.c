/*
 * test_read_hub.c -- kvb_model_read_ref against repositories this test
 * writes: served by the stand-in Hub (tests/hub/standin.py, started here
 * on 127.0.0.1 and stopped after each case), laid out as the Hugging Face
 * cache, and as an Ollama store.  Nothing reaches the internet; shards are
 * sparse files that hold only their headers.
 */
#define _POSIX_C_SOURCE 200809L
#include "testing.h"

#include "readers/remote.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- files ---- */

typedef struct fixture {
    char root[256];  /* a fresh temporary folder */
    char repos[300]; /* root/hub: what the stand-in serves */
    char url[64];    /* http://127.0.0.1:PORT; "" when not started */
    pid_t server;
} fixture;

static void mkdir_p(const char *path)
{
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(tmp, 0755);
            *p = '/';
        }
    mkdir(tmp, 0755);
}

static void write_at(const char *path, const void *p, size_t n, uint64_t size)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    mkdir_p(dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, p, n), (ssize_t)n);
    /* the tensor data: a hole */
    assert_int_equal(ftruncate(fd, (off_t)(size > n ? size : n)), 0);
    close(fd);
}

static void write_text(const char *dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    write_at(path, text, strlen(text), 0);
}

/* ---- a safetensors model: tiny Llama, BF16, two shards ---- */

static const char *const config_json =
    "{\"model_type\": \"llama\", \"architectures\": [\"LlamaForCausalLM\"],"
    " \"hidden_size\": 256, \"intermediate_size\": 512,"
    " \"num_hidden_layers\": 2, \"num_attention_heads\": 4,"
    " \"num_key_value_heads\": 2, \"vocab_size\": 1000,"
    " \"max_position_embeddings\": 4096, \"torch_dtype\": \"bfloat16\","
    " \"tie_word_embeddings\": false}";

typedef struct tensor {
    const char *name;
    uint64_t rows, cols; /* cols 0: a vector */
} tensor;

/* BF16 bytes of one layer: q 256x256, k and v 128x256, o 256x256, gate
 * and up 512x256, down 256x512, two norms of 256:
 * 2 x (65536 + 2 x 32768 + 65536 + 3 x 131072 + 2 x 256) = 1180672. */
#define LAYER(i)                                                               \
    {"model.layers." #i ".self_attn.q_proj.weight", 256, 256},                 \
        {"model.layers." #i ".self_attn.k_proj.weight", 128, 256},             \
        {"model.layers." #i ".self_attn.v_proj.weight", 128, 256},             \
        {"model.layers." #i ".self_attn.o_proj.weight", 256, 256},             \
        {"model.layers." #i ".mlp.gate_proj.weight", 512, 256},                \
        {"model.layers." #i ".mlp.up_proj.weight", 512, 256},                  \
        {"model.layers." #i ".mlp.down_proj.weight", 256, 512},                \
        {"model.layers." #i ".input_layernorm.weight", 256, 0},                \
    {                                                                          \
        "model.layers." #i ".post_attention_layernorm.weight", 256, 0          \
    }

static const tensor shard1[] = {{"model.embed_tokens.weight", 1000, 256},
                                LAYER(0)};
static const tensor shard2[] = {
    LAYER(1), {"model.norm.weight", 256, 0}, {"lm_head.weight", 1000, 256}};

/* embed 512000 + 2 layers x 1180672 + norm 512 + lm_head 512000 */
#define TINY_BYTES 3385856u
#define SHARD1     "model-00001-of-00002.safetensors"
#define SHARD2     "model-00002-of-00002.safetensors"

/* A safetensors file of these tensors (header only, data a hole); returns
 * the header's bytes (8 + its length). */
static uint64_t write_shard(const char *path, const tensor *t, size_t n)
{
    char json[8192];
    size_t len = (size_t)snprintf(json, sizeof json,
                                  "{\"__metadata__\":{\"format\":\"pt\"}");
    uint64_t off = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t bytes = t[i].rows * (t[i].cols ? t[i].cols : 1) * 2;
        if (t[i].cols)
            len += (size_t)snprintf(json + len, sizeof json - len,
                                    ",\"%s\":{\"dtype\":\"BF16\",\"shape\":"
                                    "[%llu,%llu],\"data_offsets\":[%llu,%llu]}",
                                    t[i].name, (unsigned long long)t[i].rows,
                                    (unsigned long long)t[i].cols,
                                    (unsigned long long)off,
                                    (unsigned long long)(off + bytes));
        else
            len += (size_t)snprintf(json + len, sizeof json - len,
                                    ",\"%s\":{\"dtype\":\"BF16\",\"shape\":"
                                    "[%llu],\"data_offsets\":[%llu,%llu]}",
                                    t[i].name, (unsigned long long)t[i].rows,
                                    (unsigned long long)off,
                                    (unsigned long long)(off + bytes));
        off += bytes;
    }
    len += (size_t)snprintf(json + len, sizeof json - len, "}");
    unsigned char buf[8200];
    for (int i = 0; i < 8; i++)
        buf[i] = (unsigned char)((uint64_t)len >> (8 * i));
    memcpy(buf + 8, json, len);
    write_at(path, buf, 8 + len, 8 + len + off);
    return 8 + len;
}

static void write_index(const char *dir)
{
    char json[8192];
    size_t len = (size_t)snprintf(json, sizeof json,
                                  "{\"metadata\": {\"total_size\": %u}, "
                                  "\"weight_map\": {",
                                  TINY_BYTES);
    for (size_t i = 0; i < KVB__ARRAY_LEN(shard1); i++)
        len +=
            (size_t)snprintf(json + len, sizeof json - len, "%s\"%s\": \"%s\"",
                             i ? ", " : "", shard1[i].name, SHARD1);
    for (size_t i = 0; i < KVB__ARRAY_LEN(shard2); i++)
        len += (size_t)snprintf(json + len, sizeof json - len,
                                ", \"%s\": \"%s\"", shard2[i].name, SHARD2);
    snprintf(json + len, sizeof json - len, "}}");
    write_text(dir, "model.safetensors.index.json", json);
}

/* The whole repository in dir; returns the two headers' bytes. */
static uint64_t write_st_repo(const char *dir)
{
    char path[1024];
    write_text(dir, "config.json", config_json);
    write_text(dir, "generation_config.json", "{\"max_length\": 4096}");
    write_index(dir);
    snprintf(path, sizeof path, "%s/%s", dir, SHARD1);
    uint64_t h = write_shard(path, shard1, KVB__ARRAY_LEN(shard1));
    snprintf(path, sizeof path, "%s/%s", dir, SHARD2);
    return h + write_shard(path, shard2, KVB__ARRAY_LEN(shard2));
}

/* ---- a GGUF model: tiny Llama, Q4_K_M-like mix ---- */

typedef struct gb {
    unsigned char p[8192];
    size_t n;
} gb;

static void put_le(gb *b, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        b->p[b->n++] = (unsigned char)(v >> (8 * i));
}

static void put_str(gb *b, const char *s)
{
    put_le(b, strlen(s), 8);
    memcpy(b->p + b->n, s, strlen(s));
    b->n += strlen(s);
}

static void kv_u32(gb *b, const char *key, uint32_t v)
{
    put_str(b, key);
    put_le(b, 4, 4); /* UINT32 */
    put_le(b, v, 4);
}

static void kv_str(gb *b, const char *key, const char *v)
{
    put_str(b, key);
    put_le(b, 8, 4); /* STRING */
    put_str(b, v);
}

typedef struct gtensor {
    const char *name;
    uint64_t ne0, ne1;
    uint32_t type;  /* 8 Q8_0, 12 Q4_K, 14 Q6_K */
    uint64_t bytes; /* ne0 x ne1 / block x bytes per block */
} gtensor;

/* token_embd Q8_0: 256000 / 32 x 34 = 272000; attn_q Q4_K: 65536 / 256 x
 * 144 = 36864; ffn_down Q6_K: 131072 / 256 x 210 = 107520; output Q6_K:
 * 256000 / 256 x 210 = 210000.  Sum 626384. */
static const gtensor gguf_tensors[] = {
    {"token_embd.weight", 256, 1000, 8, 272000},
    {"blk.0.attn_q.weight", 256, 256, 12, 36864},
    {"blk.0.ffn_down.weight", 512, 256, 14, 107520},
    {"output.weight", 256, 1000, 14, 210000},
};
#define GGUF_BYTES 626384u

/* Tensors [from, to) of the list; split no of count (count 0: one file). */
static void write_gguf(const char *path, size_t from, size_t to, unsigned no,
                       unsigned count)
{
    gb *b = calloc(1, sizeof *b);
    assert_non_null(b);
    memcpy(b->p, "GGUF", 4);
    b->n = 4;
    put_le(b, 3, 4);
    put_le(b, to - from, 8);
    put_le(b, (no <= 1 ? 8 : 0) + (count ? 3 : 0), 8);
    if (no <= 1) {
        kv_str(b, "general.architecture", "llama");
        kv_u32(b, "llama.block_count", 1);
        kv_u32(b, "llama.embedding_length", 256);
        kv_u32(b, "llama.feed_forward_length", 512);
        kv_u32(b, "llama.attention.head_count", 4);
        kv_u32(b, "llama.attention.head_count_kv", 2);
        kv_u32(b, "llama.context_length", 4096);
        kv_u32(b, "general.file_type", 15); /* MOSTLY_Q4_K_M */
    }
    if (count) {
        kv_u32(b, "split.no", no - 1);
        kv_u32(b, "split.count", count);
        kv_u32(b, "split.tensors.count",
               (uint32_t)KVB__ARRAY_LEN(gguf_tensors));
    }
    uint64_t off = 0;
    for (size_t i = from; i < to; i++) {
        put_str(b, gguf_tensors[i].name);
        put_le(b, 2, 4);
        put_le(b, gguf_tensors[i].ne0, 8);
        put_le(b, gguf_tensors[i].ne1, 8);
        put_le(b, gguf_tensors[i].type, 4);
        put_le(b, off, 8);
        off += (gguf_tensors[i].bytes + 31) / 32 * 32;
    }
    size_t data = (b->n + 31) / 32 * 32;
    write_at(path, b->p, b->n, data + off);
    free(b);
}

static void write_gguf_repo(const char *dir)
{
    char path[1024];
    write_text(dir, "README.md", "# tiny\n");
    snprintf(path, sizeof path, "%s/tiny-Q8_0.gguf", dir);
    write_gguf(path, 0, 4, 0, 0);
    snprintf(path, sizeof path, "%s/Q4_K_M/tiny-Q4_K_M-00001-of-00002.gguf",
             dir);
    write_gguf(path, 0, 2, 1, 2);
    snprintf(path, sizeof path, "%s/Q4_K_M/tiny-Q4_K_M-00002-of-00002.gguf",
             dir);
    write_gguf(path, 2, 4, 2, 2);
    snprintf(path, sizeof path, "%s/mmproj-tiny-f16.gguf", dir);
    write_gguf(path, 0, 1, 0, 0);
}

/* ---- the stand-in Hub ---- */

static void standin_path(char *out, size_t cap)
{
    /* __FILE__ is tests/unit/test_read_hub.c, as CMake names it */
    snprintf(out, cap, "%s", __FILE__);
    char *slash = strrchr(out, '/');
    assert_non_null(slash);
    *slash = '\0';
    slash = strrchr(out, '/');
    assert_non_null(slash);
    snprintf(slash, cap - (size_t)(slash - out), "/hub/standin.py");
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    const char *tmp = getenv("TMPDIR");
    snprintf(f->root, sizeof f->root, "%s/kvb_hub_XXXXXX", tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(f->root));
    snprintf(f->repos, sizeof f->repos, "%s/hub", f->root);
    mkdir_p(f->repos);
    *state = f;
    return 0;
}

/* Start the stand-in on an ephemeral port (python3 from Debian). */
static bool start_hub(fixture *f)
{
    char script[1024], portfile[400];
    standin_path(script, sizeof script);
    snprintf(portfile, sizeof portfile, "%s/port", f->root);
    const char *python =
        access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execlp(python, python, script, "--root", f->repos, "--port-file",
               portfile, (char *)NULL);
        _exit(127);
    }
    f->server = pid;
    for (int i = 0; i < 1000; i++) { /* up to 10 s for python to start */
        FILE *p = fopen(portfile, "r");
        unsigned port = 0;
        if (p) {
            int got = fscanf(p, "%u", &port);
            fclose(p);
            if (got == 1 && port) {
                snprintf(f->url, sizeof f->url, "http://127.0.0.1:%u", port);
                return true;
            }
        }
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            f->server = 0;
            return false;
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return false;
}

static void remove_tree(const char *path)
{
    pid_t pid = fork();
    if (pid == 0) {
        execlp("rm", "rm", "-rf", path, (char *)NULL);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
}

static int teardown(void **state)
{
    fixture *f = *state;
    if (f->server > 0) {
        kill(f->server, SIGTERM);
        int status;
        waitpid(f->server, &status, 0);
    }
    remove_tree(f->root);
    free(f);
    return 0;
}

/* ---- reading ---- */

typedef struct result {
    kvb_model m;
    kvb_quant q;
    kvb_read_info info;
    kvb_ref_info where;
    kvb_error e;
    kvb_status st;
} result;

static kvb_ref_options options(const fixture *f)
{
    kvb_ref_options o;
    assert_int_equal(KVB_REF_OPTIONS_INIT(&o), KVB_OK);
    o.flags = KVB_REF_NO_ENV | KVB_REF_NO_CACHE;
    o.hf_endpoint = f->url;
    o.backoff_ms = 1; /* retries without waiting */
    o.timeout_ms = 20000;
    return o;
}

static result read_ref(const char *ref, const kvb_ref_options *o)
{
    result r;
    assert_int_equal(KVB_MODEL_INIT(&r.m), KVB_OK);
    assert_int_equal(KVB_QUANT_INIT(&r.q), KVB_OK);
    assert_int_equal(KVB_READ_INFO_INIT(&r.info), KVB_OK);
    assert_int_equal(KVB_REF_INFO_INIT(&r.where), KVB_OK);
    r.e = (kvb_error)KVB_ERROR_INIT;
    r.st = kvb_model_read_ref(ref, o, &r.m, &r.q, &r.info, &r.where, &r.e);
    return r;
}

/* The stand-in's log: requests, body bytes it sent, and those of its
 * Range answers (206). */
static void hub_log(const fixture *f, unsigned *requests, uint64_t *bytes,
                    uint64_t *ranges)
{
    char path[400], line[2048];
    snprintf(path, sizeof path, "%s/requests.log", f->repos);
    *requests = 0;
    *bytes = *ranges = 0;
    FILE *p = fopen(path, "r");
    if (!p)
        return;
    while (fgets(line, sizeof line, p)) {
        const char *b = strstr(line, "\"bytes\": ");
        uint64_t n = b ? strtoull(b + 9, NULL, 10) : 0;
        (*requests)++;
        *bytes += n;
        if (strstr(line, "\"status\": 206"))
            *ranges += n;
    }
    fclose(p);
}

#define NEED_HUB(f)                                                            \
    do {                                                                       \
        if (!kvb_hub_built()) {                                                \
            skip();                                                            \
        }                                                                      \
        if (!start_hub(f))                                                     \
            fail_msg("the stand-in Hub did not start (python3?)");             \
    } while (0)

/* Two shards: the model API, config.json, the index, and per shard a
 * resolve (302) and one Range (206) that covers the whole header. */
static void test_read_hub_safetensors_exact(void **state)
{
    fixture *f = *state;
    char dir[400];
    snprintf(dir, sizeof dir, "%s/org/tiny", f->repos);
    uint64_t headers = write_st_repo(dir);
    NEED_HUB(f);
    kvb_ref_options o = options(f);
    result r = read_ref("org/tiny", &o);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.info.weights_bytes, TINY_BYTES);
    assert_int_equal(r.info.tensor_count, 21); /* 1 + 2 x 9 + 2 */
    assert_int_equal(r.info.shard_count, 2);
    assert_int_equal(r.info.weights_format, KVB_FORMAT_SAFETENSORS_INDEX);
    assert_int_equal(r.info.warning_count, 0);
    assert_int_equal(r.m.num_hidden_layers, 2);
    assert_int_equal(r.m.num_key_value_heads, 2);
    assert_string_equal(r.m.name, "tiny");
    assert_int_equal(r.where.source, KVB_REF_SOURCE_HUB);
    assert_string_equal(r.where.repo, "org/tiny");
    assert_string_equal(r.where.revision, "main");
    /* sha1("org/tiny"), the stand-in's commit of main */
    assert_int_equal(strlen(r.where.commit), 40);
    assert_string_equal(r.where.file, "model.safetensors.index.json");
    assert_int_equal(r.where.file_count, 4);
    /* 1 API + 1 config + 1 index + 2 x (302 + 206) */
    assert_int_equal(r.where.http_requests, 7);
    unsigned requests = 0;
    uint64_t sent = 0, ranges = 0;
    hub_log(f, &requests, &sent, &ranges);
    assert_int_equal(requests, 7);
    assert_int_equal(r.where.http_bytes, sent);
    /* The two headers are 2251 bytes together; each first range is the
     * guess from the index (256 + per tensor its name + 96, rounded up to
     * a KiB): 2 x 2048 bytes, less than twice the headers. */
    assert_int_equal(headers, 2251);
    assert_int_equal(ranges, 4096);
}

/* A header longer than the guess: one more Range, to the redirect's
 * target (no second resolve). */
static void test_read_hub_long_header(void **state)
{
    fixture *f = *state;
    char dir[400], path[500];
    snprintf(dir, sizeof dir, "%s/org/one", f->repos);
    write_text(dir, "config.json", config_json);
    tensor all[KVB__ARRAY_LEN(shard1) + KVB__ARRAY_LEN(shard2)];
    memcpy(all, shard1, sizeof shard1);
    memcpy(all + KVB__ARRAY_LEN(shard1), shard2, sizeof shard2);
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    uint64_t header = write_shard(path, all, KVB__ARRAY_LEN(all));
    NEED_HUB(f);
    kvb_ref_options o = options(f);
    o.max_parallel = 1;
    result r = read_ref("hf://org/one", &o);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.info.weights_bytes, TINY_BYTES);
    assert_string_equal(r.where.file, "model.safetensors");
    /* 1 API + 1 config + 302 + 206; the guess from the config (2 layers)
     * covers this header, so no third range */
    assert_int_equal(r.where.http_requests, 4);
    assert_true(header < 4096);
}

/* A ModelOpt checkpoint: hf_quant_config.json is fetched with config.json
 * and the index (one more request, no more round trips) and gives the
 * method. */
static void test_read_hub_modelopt(void **state)
{
    fixture *f = *state;
    char dir[400];
    snprintf(dir, sizeof dir, "%s/org/fp8", f->repos);
    write_st_repo(dir);
    write_text(dir, "hf_quant_config.json",
               "{\"producer\": {\"name\": \"modelopt\"}, \"quantization\": "
               "{\"quant_algo\": \"FP8\", \"kv_cache_quant_algo\": null}}");
    NEED_HUB(f);
    kvb_ref_options o = options(f);
    result r = read_ref("org/fp8", &o);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.q.method, KVB_QUANT_FP8);
    assert_true(r.info.fields_from_file &
                ((uint64_t)1 << KVB_READ_FIELD_QUANT_METHOD));
    assert_int_equal(r.info.weights_bytes, TINY_BYTES);
    /* 1 API + config, index, hf_quant_config + 2 x (302 + 206) */
    assert_int_equal(r.where.http_requests, 8);
}

/* :QUANT picks the first split in a subfolder, counts the other split,
 * and reads only the header. */
static void test_read_hub_gguf_quant(void **state)
{
    fixture *f = *state;
    char dir[400];
    snprintf(dir, sizeof dir, "%s/org/tiny-GGUF", f->repos);
    write_gguf_repo(dir);
    NEED_HUB(f);
    kvb_ref_options o = options(f);
    result r = read_ref("org/tiny-GGUF:Q4_K_M", &o);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.info.weights_bytes, GGUF_BYTES);
    assert_int_equal(r.info.tensor_count, 4);
    assert_int_equal(r.info.warning_count, 0);
    assert_string_equal(r.where.file, "Q4_K_M/tiny-Q4_K_M-00001-of-00002.gguf");
    assert_int_equal(r.where.split_count, 2);
    assert_string_equal(r.m.name, "tiny-GGUF:Q4_K_M");
    assert_int_equal(r.m.hidden_size, 256);
    /* 1 API + 2 splits x (302 + 206) */
    assert_int_equal(r.where.http_requests, 5);

    /* the single file, named */
    r = read_ref("hf://org/tiny-GGUF/tiny-Q8_0.gguf", &o);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.info.weights_bytes, GGUF_BYTES);
    assert_int_equal(r.where.split_count, 0);

    /* a quantization the repository does not have: the list of files */
    r = read_ref("org/tiny-GGUF:Q2_K", &o);
    assert_int_equal(r.st, KVB_ENOTFOUND);
    assert_non_null(strstr(r.e.message, "Q2_K"));
    assert_non_null(strstr(r.e.message, "tiny-Q8_0.gguf"));
    /* several GGUF files and no :QUANT */
    r = read_ref("org/tiny-GGUF", &o);
    assert_int_equal(r.st, KVB_EINVAL);
    assert_non_null(strstr(r.e.message, ":QUANT"));
}

static void test_read_hub_errors(void **state)
{
    fixture *f = *state;
    char dir[400];
    snprintf(dir, sizeof dir, "%s/org/gated", f->repos);
    write_st_repo(dir);
    write_text(dir, ".hub.json", "{\"token\": \"hf_good\"}");
    snprintf(dir, sizeof dir, "%s/org/noindex", f->repos);
    write_text(dir, "config.json", config_json);
    write_text(dir, "model.safetensors.index.json",
               "{\"weight_map\": {\"a\": \"missing.safetensors\"}}");
    NEED_HUB(f);
    kvb_ref_options o = options(f);

    result r = read_ref("org/gated", &o);
    assert_int_equal(r.st, KVB_EIO);
    assert_string_equal(r.e.field, "hf_token");
    assert_non_null(strstr(r.e.message, "HF_TOKEN"));
    assert_non_null(strstr(r.e.message, "gated"));

    o.hf_token = "hf_wrong";
    r = read_ref("org/gated", &o);
    assert_int_equal(r.st, KVB_EIO);
    assert_non_null(strstr(r.e.message, "has no access"));

    o.hf_token = "hf_good";
    r = read_ref("org/gated", &o);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.info.weights_bytes, TINY_BYTES);
    o.hf_token = NULL;

    r = read_ref("org/nothere", &o);
    assert_int_equal(r.st, KVB_ENOTFOUND);
    assert_non_null(
        strstr(r.e.message, "repository org/nothere was not found"));

    r = read_ref("org/noindex@v9", &o);
    assert_int_equal(r.st, KVB_ENOTFOUND);
    assert_non_null(strstr(r.e.message, "revision v9"));

    r = read_ref("org/noindex", &o);
    assert_int_equal(r.st, KVB_ENOTFOUND);
    assert_non_null(strstr(r.e.message, "missing.safetensors"));

    r = read_ref("hf://org/noindex/nope.gguf", &o);
    assert_int_equal(r.st, KVB_ENOTFOUND);

    r = read_ref("org/a/b/c", &o);
    assert_int_equal(r.st, KVB_EINVAL);
    r = read_ref("../x/y", &o);
    assert_int_equal(r.st, KVB_EINVAL);

    /* nothing listens: a transport error, retried, then EIO */
    kvb_ref_options dead = o;
    dead.hf_endpoint = "http://127.0.0.1:9";
    dead.max_retries = 1;
    r = read_ref("org/tiny", &dead);
    assert_int_equal(r.st, KVB_EIO);
    assert_non_null(strstr(r.e.message, "after 2 tries"));
}

/* 503 and 429 are retried with backoff, a bounded number of times. */
static void test_read_hub_retries(void **state)
{
    fixture *f = *state;
    char dir[400];
    snprintf(dir, sizeof dir, "%s/org/flaky", f->repos);
    write_st_repo(dir);
    write_text(dir, ".hub.json", "{\"flaky\": 3}");
    snprintf(dir, sizeof dir, "%s/org/down", f->repos);
    write_st_repo(dir);
    write_text(dir, ".hub.json", "{\"flaky\": 100}");
    NEED_HUB(f);
    kvb_ref_options o = options(f);
    result r = read_ref("org/flaky", &o);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.info.weights_bytes, TINY_BYTES);
    /* 3 failed API calls, then the 7 of a clean read */
    assert_int_equal(r.where.http_requests, 10);

    o.max_retries = 2;
    r = read_ref("org/down", &o);
    assert_int_equal(r.st, KVB_EIO);
    assert_non_null(strstr(r.e.message, "after 3 tries"));
    assert_int_equal(r.where.http_requests, 3);
}

/* A request that takes longer than timeout_ms fails, bounded: one try
 * and one retry, then EIO naming the timeout. */
static void test_read_hub_timeout(void **state)
{
    fixture *f = *state;
    char dir[400];
    snprintf(dir, sizeof dir, "%s/org/slow", f->repos);
    write_st_repo(dir);
    write_text(dir, ".hub.json", "{\"slow\": 5}");
    NEED_HUB(f);
    kvb_ref_options o = options(f);
    o.timeout_ms = 200;
    o.max_retries = 1;
    result r = read_ref("org/slow", &o);
    assert_int_equal(r.st, KVB_EIO);
    assert_string_equal(r.e.field, "hub");
    assert_non_null(strstr(r.e.message, "after 2 tries"));
    assert_non_null(strstr(r.e.message, "timed out")); /* libcurl's words */
    assert_int_equal(r.where.http_requests, 2);
}

/* --cache: config.json and the index go into the huggingface_hub layout;
 * then the cache serves the reference offline. */
static void test_read_hub_store_then_offline(void **state)
{
    fixture *f = *state;
    char dir[400], cache[400], path[700];
    snprintf(dir, sizeof dir, "%s/org/tiny", f->repos);
    write_st_repo(dir);
    snprintf(cache, sizeof cache, "%s/cache", f->root);
    NEED_HUB(f);
    kvb_ref_options o = options(f);
    o.flags = KVB_REF_NO_ENV | KVB_REF_STORE_CACHE;
    o.hf_cache = cache;
    result r = read_ref("org/tiny", &o);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.where.source, KVB_REF_SOURCE_HUB);
    snprintf(path, sizeof path, "%s/models--org--tiny/refs/main", cache);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    snprintf(path, sizeof path, "%s/models--org--tiny/snapshots/%s/config.json",
             cache, r.where.commit);
    assert_int_equal(lstat(path, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));

    o.flags = KVB_REF_NO_ENV | KVB_REF_OFFLINE;
    result c = read_ref("org/tiny", &o);
    assert_int_equal(c.st, KVB_OK);
    assert_int_equal(c.where.source, KVB_REF_SOURCE_HF_CACHE);
    assert_int_equal(c.where.http_requests, 0);
    assert_string_equal(c.where.commit, r.where.commit);
    /* no shard headers in the cache: the index's total_size */
    assert_int_equal(c.info.weights_bytes, TINY_BYTES);
    assert_int_equal(c.info.weights_format, KVB_FORMAT_SAFETENSORS_INDEX);
}

/* ---- the cache and the Ollama store, offline ---- */

static void test_read_hub_cache_layout(void **state)
{
    fixture *f = *state;
    const char *sha = "0123456789abcdef0123456789abcdef01234567";
    char repo[400], snap[600], path[800];
    snprintf(repo, sizeof repo, "%s/cache/models--org--tiny", f->root);
    snprintf(snap, sizeof snap, "%s/snapshots/%s", repo, sha);
    write_st_repo(snap);
    write_text(repo, "refs/main", sha);
    /* a GGUF repository, its files links into blobs/, as huggingface_hub
     * writes them */
    snprintf(repo, sizeof repo, "%s/cache/models--org--tiny-GGUF", f->root);
    snprintf(path, sizeof path, "%s/blobs", repo);
    write_gguf_repo(path);
    write_text(repo, "refs/main", sha);
    snprintf(snap, sizeof snap, "%s/snapshots/%s/Q4_K_M", repo, sha);
    mkdir_p(snap);
    const char *names[] = {"tiny-Q4_K_M-00001-of-00002.gguf",
                           "tiny-Q4_K_M-00002-of-00002.gguf"};
    for (int i = 0; i < 2; i++) {
        char target[300];
        snprintf(path, sizeof path, "%s/%s", snap, names[i]);
        snprintf(target, sizeof target, "../../../blobs/Q4_K_M/%s", names[i]);
        assert_int_equal(symlink(target, path), 0);
    }

    kvb_ref_options o;
    assert_int_equal(KVB_REF_OPTIONS_INIT(&o), KVB_OK);
    char cache[400];
    snprintf(cache, sizeof cache, "%s/cache", f->root);
    o.hf_cache = cache;
    o.flags = KVB_REF_NO_ENV | KVB_REF_OFFLINE;
    result r = read_ref("org/tiny", &o);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.where.source, KVB_REF_SOURCE_HF_CACHE);
    assert_int_equal(r.info.weights_bytes, TINY_BYTES);
    assert_int_equal(r.info.shard_count, 2);
    assert_string_equal(r.where.commit, sha);
    assert_string_equal(r.m.name, "tiny");

    r = read_ref("org/tiny@0123456789abcdef0123456789abcdef01234567", &o);
    assert_int_equal(r.st, KVB_OK);

    r = read_ref("org/tiny-GGUF:q4_k_m", &o);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.info.weights_bytes, GGUF_BYTES);
    assert_int_equal(r.where.split_count, 2);
    assert_string_equal(r.where.file, "Q4_K_M/tiny-Q4_K_M-00001-of-00002.gguf");

    r = read_ref("org/tiny@v2", &o);
    assert_int_equal(r.st, KVB_ENOTFOUND);
    assert_non_null(strstr(r.e.message, "HF_HUB_OFFLINE"));
}

static void test_read_hub_ollama(void **state)
{
    fixture *f = *state;
    char store[400], path[800];
    snprintf(store, sizeof store, "%s/ollama", f->root);
    const char *model =
        "1111111111111111111111111111111111111111111111111111111111111111";
    const char *params =
        "2222222222222222222222222222222222222222222222222222222222222222";
    snprintf(path, sizeof path, "%s/blobs/sha256-%s", store, model);
    write_gguf(path, 0, 4, 0, 0);
    snprintf(path, sizeof path, "%s/blobs", store);
    char name[100];
    snprintf(name, sizeof name, "sha256-%s", params);
    write_text(path, name,
               "{\"num_ctx\": 8192, \"stop\": [\"<|eot_id|>\"], "
               "\"temperature\": 0.6}");
    char manifest[2048];
    snprintf(manifest, sizeof manifest,
             "{\"schemaVersion\": 2, \"layers\": ["
             "{\"mediaType\": \"application/vnd.ollama.image.model\", "
             "\"digest\": \"sha256:%s\", \"size\": 700000}, "
             "{\"mediaType\": \"application/vnd.ollama.image.params\", "
             "\"digest\": \"sha256:%s\", \"size\": 70}]}",
             model, params);
    snprintf(path, sizeof path, "%s/manifests/registry.ollama.ai/library/tiny",
             store);
    write_text(path, "q4", manifest);

    kvb_ref_options o;
    assert_int_equal(KVB_REF_OPTIONS_INIT(&o), KVB_OK);
    o.ollama_models = store;
    o.flags = KVB_REF_NO_ENV;
    result r = read_ref("ollama://tiny:q4", &o);
    assert_int_equal(r.st, KVB_OK);
    assert_int_equal(r.where.source, KVB_REF_SOURCE_OLLAMA);
    assert_int_equal(r.info.weights_bytes, GGUF_BYTES);
    assert_int_equal(r.where.num_ctx, 8192);
    assert_int_equal(r.where.num_batch, -1);
    assert_non_null(strstr(r.where.params, "\"temperature\""));
    assert_string_equal(r.where.repo, "library/tiny");
    assert_string_equal(r.where.revision, "q4");
    assert_string_equal(r.where.commit, model);
    assert_string_equal(r.m.name, "tiny:q4");

    r = read_ref("ollama://tiny", &o); /* :latest is not there */
    assert_int_equal(r.st, KVB_ENOTFOUND);
    assert_non_null(strstr(r.e.message, "ollama pull"));
}

static void test_read_hub_refs(void **state)
{
    (void)state;
    kvb__ref ref;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb__ref_parse("Qwen/Qwen3-32B-AWQ", &ref, &e), KVB_OK);
    assert_string_equal(ref.repo, "Qwen/Qwen3-32B-AWQ");
    assert_string_equal(ref.revision, "main");
    assert_int_equal(kvb__ref_parse("bartowski/Q-GGUF@v1.0:Q4_K_M", &ref, &e),
                     KVB_OK);
    assert_string_equal(ref.revision, "v1.0");
    assert_string_equal(ref.quant, "Q4_K_M");
    assert_int_equal(kvb__ref_parse("hf://a/b@r/sub/f.gguf", &ref, &e), KVB_OK);
    assert_string_equal(ref.file, "sub/f.gguf");
    assert_int_equal(kvb__ref_parse("ollama://llama3.2", &ref, &e), KVB_OK);
    assert_string_equal(ref.repo, "library/llama3.2");
    assert_string_equal(ref.tag, "latest");
    assert_int_equal(kvb__ref_parse("ollama://me/m:7b", &ref, &e), KVB_OK);
    assert_string_equal(ref.repo, "me/m");
    assert_string_equal(ref.tag, "7b");
    const char *bad[] = {"a/b/c", "a/..", "a/b@",          "s3://a/b",
                         "-a/b",  "a/b:", "hf://a/b/../x", "ollama://",
                         "a/b c", "a"};
    for (size_t i = 0; i < KVB__ARRAY_LEN(bad); i++) {
        assert_int_equal(kvb__ref_parse(bad[i], &ref, &e), KVB_EINVAL);
        assert_string_equal(e.field, "ref");
    }
    assert_true(
        kvb__gguf_name_matches("x/M-Q4_K_M-00001-of-00002.gguf", "q4_k_m"));
    assert_false(kvb__gguf_name_matches("M-Q4_K_M.gguf", "Q4_K"));
    assert_false(kvb__gguf_name_matches("mmproj-Q8_0.gguf", "Q8_0"));
    assert_string_equal(kvb_ref_source_name(KVB_REF_SOURCE_HF_CACHE),
                        "hf-cache");
    assert_null(kvb_ref_source_name(99));
}

KVB_TESTS(
    cmocka_unit_test(test_read_hub_refs),
    cmocka_unit_test_setup_teardown(test_read_hub_safetensors_exact, setup,
                                    teardown),
    cmocka_unit_test_setup_teardown(test_read_hub_long_header, setup, teardown),
    cmocka_unit_test_setup_teardown(test_read_hub_modelopt, setup, teardown),
    cmocka_unit_test_setup_teardown(test_read_hub_gguf_quant, setup, teardown),
    cmocka_unit_test_setup_teardown(test_read_hub_errors, setup, teardown),
    cmocka_unit_test_setup_teardown(test_read_hub_retries, setup, teardown),
    cmocka_unit_test_setup_teardown(test_read_hub_timeout, setup, teardown),
    cmocka_unit_test_setup_teardown(test_read_hub_store_then_offline, setup,
                                    teardown),
    cmocka_unit_test_setup_teardown(test_read_hub_cache_layout, setup,
                                    teardown),
    cmocka_unit_test_setup_teardown(test_read_hub_ollama, setup, teardown));
