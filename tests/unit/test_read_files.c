/*
 * test_read_files.c -- kvb_model_read on paths: model directories,
 * config.json beside its weights, sharded safetensors through the index,
 * one safetensors file, and what goes wrong with each.  The checkpoints
 * are written here, in a temporary directory, from the tensor inventory
 * of tiny_llama() (testing.h), in BF16 and header-only.
 */
#define _POSIX_C_SOURCE 200809L
#include "testing.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void path_of(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

static void write_text(const char *name, const void *p, size_t n)
{
    char path[256];
    path_of(path, sizeof path, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    fclose(f);
}

static void remove_name(const char *name)
{
    char path[256];
    path_of(path, sizeof path, name);
    unlink(path);
}

/* tiny_llama() as its config.json would say it. */
static const char config[] =
    "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\",\n"
    " \"hidden_size\": 256, \"num_hidden_layers\": 2,\n"
    " \"num_attention_heads\": 4, \"num_key_value_heads\": 2,\n"
    " \"intermediate_size\": 512, \"vocab_size\": 1000,\n"
    " \"max_position_embeddings\": 4096, \"tie_word_embeddings\": false,\n"
    " \"torch_dtype\": \"bfloat16\"}\n";

/* Tensors [first, last) of the inventory as one BF16 safetensors header;
 * appends each name to `map` as an index entry for `file`. */
static uint64_t write_shard(const char *file, size_t first, size_t last,
                            char *map, size_t cap)
{
    kvb_model m = tiny_llama();
    char *json = malloc(65536);
    assert_non_null(json);
    size_t len = (size_t)snprintf(json, 65536, "{");
    uint64_t off = 0;
    for (size_t i = first; i < last; i++) {
        kvb_tensor t = {.struct_size = sizeof t}; /* no init function */
        kvb_error e = KVB_ERROR_INIT;
        assert_int_equal(kvb_model_tensor_get(&m, NULL, i, &t, &e), KVB_OK);
        uint64_t bytes = 2 * t.rows * t.cols;
        if (t.cols == 1)
            len += (size_t)snprintf(
                json + len, 65536 - len,
                "%s\"%s\":{\"dtype\":\"BF16\",\"shape\":"
                "[%llu],\"data_offsets\":[%llu,%llu]}",
                i > first ? "," : "", t.name, (unsigned long long)t.rows,
                (unsigned long long)off, (unsigned long long)(off + bytes));
        else
            len += (size_t)snprintf(
                json + len, 65536 - len,
                "%s\"%s\":{\"dtype\":\"BF16\",\"shape\":"
                "[%llu,%llu],\"data_offsets\":[%llu,%llu]}",
                i > first ? "," : "", t.name, (unsigned long long)t.rows,
                (unsigned long long)t.cols, (unsigned long long)off,
                (unsigned long long)(off + bytes));
        off += bytes;
        if (map)
            snprintf(map + strlen(map), cap - strlen(map), "%s\"%s\": \"%s\"",
                     *map ? ", " : "", t.name, file);
    }
    len += (size_t)snprintf(json + len, 65536 - len, "}");
    unsigned char *b = malloc(8 + len);
    assert_non_null(b);
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)((uint64_t)len >> (8 * i));
    memcpy(b + 8, json, len);
    write_text(file, b, 8 + len);
    free(b);
    free(json);
    return off;
}

typedef struct got {
    kvb_model m;
    kvb_quant q;
    kvb_read_info info;
    kvb_error e;
    kvb_status st;
} got;

static got read_path(const char *path)
{
    got g;
    assert_int_equal(KVB_MODEL_INIT(&g.m), KVB_OK);
    assert_int_equal(KVB_QUANT_INIT(&g.q), KVB_OK);
    assert_int_equal(KVB_READ_INFO_INIT(&g.info), KVB_OK);
    assert_int_equal(kvb_error_init(&g.e, sizeof g.e), KVB_OK);
    g.st = kvb_model_read(path, &g.m, &g.q, &g.info, &g.e);
    return g;
}

static got read_name(const char *name)
{
    char path[256];
    path_of(path, sizeof path, name);
    return read_path(name[0] ? path : dir);
}

static void expect_ok(const got *g)
{
    if (g->st != KVB_OK)
        fail_msg("%s %s: %s (%s)", kvb_status_name(g->st), g->e.field,
                 g->e.message, g->e.source);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/kvb-read-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    static const char *const names[] = {"config.json",
                                        "model.safetensors",
                                        "model-1.safetensors",
                                        "model-2.safetensors",
                                        "model.safetensors.index.json",
                                        "a.safetensors",
                                        "b.safetensors",
                                        "other.json",
                                        "junk.bin"};
    (void)state;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        remove_name(names[i]);
    return rmdir(dir);
}

/* Parameters of tiny_llama: embed 1000 x 256 = 256,000; per layer norms
 * 2 x 256, q 256 x 256 = 65,536, k and v 128 x 256 = 32,768 each, o
 * 65,536, gate, up and down 512 x 256 = 131,072 each: 590,336, x 2 =
 * 1,180,672; final norm 256; lm_head 256,000.  1,692,928 in BF16 =
 * 3,385,856 bytes, 21 tensors. */
#define TINY_BYTES   3385856u
#define TINY_TENSORS 21u

static void test_read_files_sharded(void **state)
{
    (void)state;
    char map[8192] = "", index[9000];
    write_text("config.json", config, sizeof config - 1);
    uint64_t a = write_shard("model-1.safetensors", 0, 10, map, sizeof map);
    uint64_t b =
        write_shard("model-2.safetensors", 10, TINY_TENSORS, map, sizeof map);
    snprintf(index, sizeof index,
             "{\"metadata\": {\"total_size\": %llu}, \"weight_map\": {%s}}",
             (unsigned long long)(a + b), map);
    write_text("model.safetensors.index.json", index, strlen(index));
    got g = read_name("");
    expect_ok(&g);
    assert_int_equal(g.info.format, KVB_FORMAT_DIRECTORY);
    assert_int_equal(g.info.weights_format, KVB_FORMAT_SAFETENSORS_INDEX);
    assert_int_equal(g.info.weights_bytes, TINY_BYTES);
    assert_int_equal(g.info.tensor_count, TINY_TENSORS);
    assert_int_equal(g.info.shard_count, 2);
    assert_int_equal(g.info.warning_count, 0);
    assert_true((g.info.fields_from_file >> KVB_READ_FIELD_WEIGHTS_BYTES) & 1u);
    /* the exact figure is the core's estimate for unquantized BF16 */
    kvb_weights w;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_WEIGHTS_INIT(&w), KVB_OK);
    assert_int_equal(kvb_weights_compute(&g.m, &g.q, 1, 1, &w, &e), KVB_OK);
    assert_int_equal(w.bytes, g.info.weights_bytes);
    kvb_model want = tiny_llama();
    assert_int_equal(g.m.num_hidden_layers, want.num_hidden_layers);
    assert_int_equal(g.m.num_key_value_heads, want.num_key_value_heads);
    /* the index path itself reads the same */
    g = read_name("model.safetensors.index.json");
    expect_ok(&g);
    assert_int_equal(g.info.format, KVB_FORMAT_SAFETENSORS_INDEX);
    assert_int_equal(g.info.weights_bytes, TINY_BYTES);
    /* config.json by name picks up the weights beside it */
    g = read_name("config.json");
    expect_ok(&g);
    assert_int_equal(g.info.format, KVB_FORMAT_CONFIG_JSON);
    assert_int_equal(g.info.weights_bytes, TINY_BYTES);
    /* a shard missing: the index's total_size, with a warning */
    remove_name("model-2.safetensors");
    g = read_name("");
    expect_ok(&g);
    assert_int_equal(g.info.weights_bytes, a + b);
    assert_int_equal(g.info.shard_count, 1);
    assert_int_equal(g.info.warning_count, 1);
    assert_non_null(strstr(g.info.warning, "1 of 2 shards"));
    /* ... and without total_size: no exact figure */
    snprintf(index, sizeof index, "{\"weight_map\": {%s}}", map);
    write_text("model.safetensors.index.json", index, strlen(index));
    g = read_name("");
    expect_ok(&g);
    assert_int_equal(g.info.weights_bytes, 0);
    assert_int_equal(g.info.weights_format, KVB_FORMAT_NONE);
    remove_name("model-1.safetensors");
    remove_name("model.safetensors.index.json");
}

static void test_read_files_single(void **state)
{
    (void)state;
    write_text("config.json", config, sizeof config - 1);
    write_shard("model.safetensors", 0, TINY_TENSORS, NULL, 0);
    got g = read_name("");
    expect_ok(&g);
    assert_int_equal(g.info.weights_format, KVB_FORMAT_SAFETENSORS);
    assert_int_equal(g.info.weights_bytes, TINY_BYTES);
    assert_int_equal(g.info.shard_count, 1);
    /* the safetensors path: the config beside it, its own bytes */
    g = read_name("model.safetensors");
    expect_ok(&g);
    assert_int_equal(g.info.format, KVB_FORMAT_SAFETENSORS);
    assert_int_equal(g.info.weights_bytes, TINY_BYTES);
    assert_int_equal(g.m.hidden_size, 256);
    remove_name("model.safetensors");
    /* no index, no model.safetensors: every *.safetensors is a shard */
    uint64_t a = write_shard("a.safetensors", 0, 5, NULL, 0);
    uint64_t b = write_shard("b.safetensors", 5, TINY_TENSORS, NULL, 0);
    g = read_name("");
    expect_ok(&g);
    assert_int_equal(g.info.weights_bytes, a + b);
    assert_int_equal(a + b, TINY_BYTES);
    assert_int_equal(g.info.shard_count, 2);
    remove_name("a.safetensors");
    remove_name("b.safetensors");
    /* no weights at all: the estimate, with a warning */
    g = read_name("");
    expect_ok(&g);
    assert_int_equal(g.info.weights_bytes, 0);
    assert_int_equal(g.info.warning_count, 1);
    /* a config under another name is only a config */
    write_text("other.json", config, sizeof config - 1);
    write_shard("model.safetensors", 0, TINY_TENSORS, NULL, 0);
    g = read_name("other.json");
    expect_ok(&g);
    assert_int_equal(g.info.weights_bytes, 0);
    assert_string_equal(g.m.name, "other");
    remove_name("other.json");
    remove_name("model.safetensors");
}

static void test_read_files_errors(void **state)
{
    (void)state;
    write_text("config.json", config, sizeof config - 1);
    /* a corrupt shard: its own path and the offset in it */
    write_text("model.safetensors", "\x10\0\0\0\0\0\0\0{\"a\": 7}        ",
               8 + 16);
    got g = read_name("");
    assert_int_equal(g.st, KVB_EPARSE);
    assert_non_null(strstr(g.e.source, "model.safetensors"));
    assert_string_equal(g.e.field, "safetensors.a");
    assert_int_equal(g.e.offset, 8 + 6);
    /* a header length past the end of the file */
    write_text("model.safetensors", "\xff\0\0\0\0\0\0\0{}", 10);
    g = read_name("");
    assert_int_equal(g.st, KVB_EPARSE);
    assert_string_equal(g.e.field, "safetensors.header_size");
    remove_name("model.safetensors");
    /* a safetensors file without config.json beside it */
    remove_name("config.json");
    write_shard("a.safetensors", 0, TINY_TENSORS, NULL, 0);
    g = read_name("a.safetensors");
    assert_int_equal(g.st, KVB_EIO);
    assert_non_null(strstr(g.e.message, "no config.json"));
    remove_name("a.safetensors");
    /* a directory with neither config.json nor a .gguf */
    g = read_name("");
    assert_int_equal(g.st, KVB_EIO);
    /* a path that does not exist */
    g = read_name("nothing-here");
    assert_int_equal(g.st, KVB_EIO);
    assert_string_equal(g.e.field, "path");
    assert_non_null(strstr(g.e.message, "does not exist"));
    /* something that is no model file */
    write_text("junk.bin",
               "\x7f"
               "ELF\2\1\1\0",
               8);
    g = read_name("junk.bin");
    assert_int_equal(g.st, KVB_EPARSE);
    assert_int_equal(g.e.offset, 0);
    remove_name("junk.bin");
    /* argument checks */
    kvb_model m;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_MODEL_INIT(&m), KVB_OK);
    assert_int_equal(kvb_model_read(NULL, &m, NULL, NULL, &e), KVB_EINVAL);
    assert_int_equal(kvb_model_read("", &m, NULL, NULL, &e), KVB_EINVAL);
    assert_int_equal(kvb_model_read(dir, NULL, NULL, NULL, &e), KVB_EINVAL);
    kvb_read_info info;
    assert_int_equal(KVB_READ_INFO_INIT(&info), KVB_OK);
    info.struct_size = 4;
    assert_int_equal(kvb_model_read(dir, &m, NULL, &info, &e), KVB_EABI);
    assert_int_equal(kvb_read_info_init(&info, 3), KVB_EABI);
    assert_int_equal(kvb_read_info_init(NULL, sizeof info), KVB_EINVAL);
}

/* A plan with the reader's exact bytes in serving.weights_bytes uses them:
 * the way the command wires --model. */
static void test_read_files_plan(void **state)
{
    (void)state;
    char path[256];
    path_of(path, sizeof path, "config.json");
    write_text("config.json", config, sizeof config - 1);
    write_shard("model.safetensors", 0, TINY_TENSORS, NULL, 0);
    got g = read_path(dir);
    expect_ok(&g);
    kvb_gpu gpu = gpu_of(24 * GIB, 1);
    kvb_serving s = serving_default();
    kvb_plan p;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_PLAN_INIT(&p), KVB_OK);
    s.weights_bytes = g.info.weights_bytes;
    assert_int_equal(kvb_plan_compute(&g.m, &g.q, &gpu, &s, &p, &e), KVB_OK);
    assert_int_equal(p.weights_bytes, TINY_BYTES);
    remove_name("model.safetensors");
    remove_name("config.json");
}

/* A FIFO blocks open(2) until a writer comes: the reader refuses it by its
 * type, named, without waiting (alarm: a hang fails the test). */
static void test_read_files_special(void **state)
{
    (void)state;
    char path[256];
    path_of(path, sizeof path, "pipe.gguf");
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(20);
    got g = read_name("pipe.gguf");
    assert_int_equal(g.st, KVB_EIO);
    assert_string_equal(g.e.field, "path");
    assert_non_null(strstr(g.e.message, "is a FIFO"));
    assert_non_null(strstr(g.e.message, "pipe.gguf"));
    /* a directory whose only .gguf is that FIFO */
    g = read_name("");
    assert_int_equal(g.st, KVB_EIO);
    assert_non_null(strstr(g.e.message, "is a FIFO"));
    /* a config.json that is a FIFO is not read either */
    remove_name("pipe.gguf");
    path_of(path, sizeof path, "config.json");
    assert_int_equal(mkfifo(path, 0600), 0);
    g = read_name("config.json");
    assert_int_equal(g.st, KVB_EIO);
    assert_non_null(strstr(g.e.message, "is a FIFO"));
    /* a character device */
    g = read_path("/dev/null");
    assert_int_equal(g.st, KVB_EIO);
    assert_non_null(strstr(g.e.message, "is a character device"));
    alarm(0);
    remove_name("config.json");
}

/* An index whose shards are all missing, with a total_size that cannot be
 * the model's (1 byte for 1,692,928 parameters): an error, not a plan with
 * no weights.  1 bit per parameter is 1,692,928 / 8 = 211,616 bytes. */
static void test_read_files_index_no_shards(void **state)
{
    (void)state;
    write_text("config.json", config, sizeof config - 1);
    const char *index = "{\"metadata\": {\"total_size\": 1}, \"weight_map\": "
                        "{\"model.embed_tokens.weight\": \"a.safetensors\", "
                        "\"lm_head.weight\": \"b.safetensors\"}}";
    write_text("model.safetensors.index.json", index, strlen(index));
    got g = read_name("");
    assert_int_equal(g.st, KVB_EPARSE);
    assert_string_equal(g.e.field, "weights_bytes");
    assert_non_null(strstr(g.e.message, "1 bytes, the index's total_size"));
    assert_non_null(strstr(g.e.message, "at least 211616 bytes"));
    /* the smallest plausible total_size passes, with the warning */
    index = "{\"metadata\": {\"total_size\": 211616}, \"weight_map\": "
            "{\"lm_head.weight\": \"b.safetensors\"}}";
    write_text("model.safetensors.index.json", index, strlen(index));
    g = read_name("");
    expect_ok(&g);
    assert_int_equal(g.info.weights_bytes, 211616);
    assert_non_null(strstr(g.info.warning, "1 of 1 shards are not present"));
    remove_name("model.safetensors.index.json");
    remove_name("config.json");
}

/* A local ModelOpt checkpoint (nvidia/Llama-3.1-8B-Instruct-FP4 ships this
 * shape of hf_quant_config.json): read as NVFP4, never as BF16; the FP8
 * KV-cache scales it declares are named in a warning, and a quantization_
 * config in config.json wins over it. */
static void test_read_files_modelopt(void **state)
{
    (void)state;
    write_text("config.json", config, sizeof config - 1);
    static const char nvfp4[] =
        "{\"producer\": {\"name\": \"modelopt\", \"version\": \"0.23.0\"}, "
        "\"quantization\": {\"quant_algo\": \"NVFP4\", "
        "\"kv_cache_quant_algo\": \"FP8\", \"group_size\": 16, "
        "\"exclude_modules\": [\"lm_head\"]}}";
    write_text("hf_quant_config.json", nvfp4, sizeof nvfp4 - 1);
    got g = read_name("");
    expect_ok(&g);
    assert_int_equal(g.q.method, KVB_QUANT_NVFP4);
    assert_true(g.info.fields_from_file &
                ((uint64_t)1 << KVB_READ_FIELD_QUANT_METHOD));
    assert_non_null(strstr(g.info.warning, "kv_cache_quant_algo FP8"));
    /* the config.json path reads it too */
    g = read_name("config.json");
    expect_ok(&g);
    assert_int_equal(g.q.method, KVB_QUANT_NVFP4);
    /* FP8: one scale per tensor; an exclude list with a real linear is
     * named */
    static const char fp8[] =
        "{\"quantization\": {\"quant_algo\": \"FP8\", "
        "\"exclude_modules\": [\"lm_head\", \"model.layers.0.self_attn\"]}}";
    write_text("hf_quant_config.json", fp8, sizeof fp8 - 1);
    g = read_name("");
    expect_ok(&g);
    assert_int_equal(g.q.method, KVB_QUANT_FP8);
    assert_int_equal(g.q.fp8_scale, KVB_FP8_SCALE_TENSOR);
    assert_non_null(strstr(g.info.warning, "model.layers.0.self_attn"));
    /* TensorRT-LLM SmoothQuant: int8 weights, per-channel scales */
    static const char sq[] =
        "{\"quantization\": {\"quant_algo\": \"W8A8_SQ_PER_CHANNEL\"}}";
    write_text("hf_quant_config.json", sq, sizeof sq - 1);
    g = read_name("");
    expect_ok(&g);
    assert_int_equal(g.q.method, KVB_QUANT_W8A8_INT8);
    assert_int_equal(g.q.fp8_scale, KVB_FP8_SCALE_CHANNEL);
    /* an algorithm not modelled is said, not guessed */
    static const char other[] =
        "{\"quantization\": {\"quant_algo\": \"MIXED_PRECISION\"}}";
    write_text("hf_quant_config.json", other, sizeof other - 1);
    g = read_name("");
    expect_ok(&g);
    assert_int_equal(g.q.method, KVB_QUANT_AUTO);
    assert_non_null(strstr(g.info.warning, "MIXED_PRECISION"));
    remove_name("hf_quant_config.json");
    remove_name("config.json");
}

KVB_TESTS(
    cmocka_unit_test_setup_teardown(test_read_files_modelopt, setup, teardown),
    cmocka_unit_test_setup_teardown(test_read_files_sharded, setup, teardown),
    cmocka_unit_test_setup_teardown(test_read_files_single, setup, teardown),
    cmocka_unit_test_setup_teardown(test_read_files_errors, setup, teardown),
    cmocka_unit_test_setup_teardown(test_read_files_plan, setup, teardown),
    cmocka_unit_test_setup_teardown(test_read_files_special, setup, teardown),
    cmocka_unit_test_setup_teardown(test_read_files_index_no_shards, setup,
                                    teardown));
