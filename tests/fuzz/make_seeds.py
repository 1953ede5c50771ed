#!/usr/bin/env python3
"""Write the seed corpus of the fuzz targets (tests/fuzz/corpus/<target>/).

The seeds are small, valid inputs that reach every branch of a reader's
happy path; libFuzzer mutates them.  Run once after changing a reader's
format support; the output is checked in.
"""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, "..", "data", "configs")


def out(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


# ---- config.json ----
for name in ("llama-3.1-8b-instruct.json", "gemma-2-9b.json",
             "deepseek-v3.json", "qwen1.5-moe-a2.7b.json",
             "redpajama-incite-3b-v1.json"):
    with open(os.path.join(CONFIGS, name), "rb") as f:
        out("config", name, f.read())
BODY = {"hidden_size": 256, "num_hidden_layers": 4, "num_attention_heads": 4,
        "num_key_value_heads": 2, "intermediate_size": 512,
        "vocab_size": 1000, "max_position_embeddings": 4096}
out("config", "awq.json", json.dumps(dict(BODY, model_type="llama",
    quantization_config={"quant_method": "awq", "bits": 4,
                         "group_size": 128, "version": "gemm"})))
out("config", "ct.json", json.dumps(dict(BODY, model_type="mistral",
    sliding_window=64, quantization_config={
        "quant_method": "compressed-tensors", "config_groups": {"g": {
            "weights": {"num_bits": 8, "type": "float",
                        "strategy": "block", "block_structure": [128, 128]}}}})))
out("config", "gemma3.json", json.dumps({"model_type": "gemma3",
    "text_config": dict(BODY, model_type="gemma3_text", sliding_window=64,
                        layer_types=["sliding_attention"] * 3 +
                        ["full_attention"])}))
out("config", "llama4.json", json.dumps({"model_type": "llama4",
    "text_config": dict(BODY, model_type="llama4_text",
                        intermediate_size_mlp=512, num_local_experts=4,
                        num_experts_per_tok=1, interleave_moe_layer_step=2,
                        attention_chunk_size=128,
                        no_rope_layers=[1, 1, 1, 0])}))
out("config", "falcon.json", json.dumps({"model_type": "falcon",
    "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
    "multi_query": True, "vocab_size": 1000, "bias": True}))


# ---- safetensors ----
def st(tensors, meta=None):
    header, off = {}, 0
    if meta is not None:
        header["__metadata__"] = meta
    for name, dtype, shape, nbytes in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [off, off + nbytes]}
        off += nbytes
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text


BITS = {"BOOL": 8, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "U8": 8, "I8": 8,
        "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8, "F8_E4M3FNUZ": 8,
        "F8_E5M2FNUZ": 8, "I16": 16, "U16": 16, "F16": 16, "BF16": 16,
        "I32": 32, "U32": 32, "F32": 32, "C64": 64, "F64": 64, "I64": 64,
        "U64": 64}
out("safetensors", "dtypes", st([("t." + d, d, [4, 6], 24 * b // 8)
                                  for d, b in BITS.items()],
                                 {"format": "pt"}))
out("safetensors", "gptq", st([("l.qweight", "I32", [16, 128], 8192),
                               ("l.qzeros", "I32", [1, 16], 64),
                               ("l.scales", "F16", [1, 128], 256),
                               ("l.g_idx", "I32", [128], 512)]))
out("safetensors", "empty", st([]))

# ---- index ----
out("st_index", "index", json.dumps({"metadata": {"total_size": 1234},
    "weight_map": {"a": "model-00001-of-00002.safetensors",
                   "b": "model-00002-of-00002.safetensors"}}))
out("st_index", "nototal", json.dumps({"weight_map": {"x": "m.safetensors"}}))


# ---- GGUF ----
def s(text):
    b = text.encode()
    return struct.pack("<Q", len(b)) + b


def kv_u32(k, v):
    return s(k) + struct.pack("<II", 4, v)


def kv_str(k, v):
    return s(k) + struct.pack("<I", 8) + s(v)


def tinfo(name, ne, typ, off):
    return (s(name) + struct.pack("<I", len(ne)) +
            b"".join(struct.pack("<Q", n) for n in ne) +
            struct.pack("<IQ", typ, off))


def gguf(kvs, infos, version=3):
    return (b"GGUF" + struct.pack("<IQQ", version, len(infos), len(kvs)) +
            b"".join(kvs) + b"".join(infos))


LLAMA = [kv_str("general.architecture", "llama"),
         kv_u32("llama.block_count", 1), kv_u32("llama.embedding_length", 256),
         kv_u32("llama.feed_forward_length", 512),
         kv_u32("llama.attention.head_count", 4),
         kv_u32("llama.attention.head_count_kv", 2),
         kv_u32("llama.context_length", 4096),
         kv_u32("general.file_type", 15)]
infos, off = [], 0
for name, ne, typ, nbytes in [("token_embd.weight", [256, 1000], 12, 144000),
                              ("blk.0.attn_q.weight", [256, 256], 12, 36864),
                              ("blk.0.attn_q.bias", [256], 0, 1024),
                              ("output.weight", [256, 1000], 14, 210000)]:
    infos.append(tinfo(name, ne, typ, off))
    off += (nbytes + 31) // 32 * 32
out("gguf", "llama_q4km", gguf(LLAMA, infos))
out("gguf", "llama_v2", gguf(LLAMA, infos[:1], version=2))
values = [s("t.u8") + struct.pack("<IB", 0, 1),
          s("t.i64") + struct.pack("<Iq", 11, -5),
          s("t.f64") + struct.pack("<Id", 12, 0.5),
          s("t.bool") + struct.pack("<IB", 7, 1),
          s("t.strs") + struct.pack("<IIQ", 9, 8, 2) + s("a") + s("bc"),
          s("t.nested") + struct.pack("<IIQ", 9, 9, 1) +
          struct.pack("<IQ", 2, 2) + struct.pack("<HH", 1, 2),
          s("general.alignment") + struct.pack("<II", 4, 64)]
out("gguf", "values", gguf(LLAMA + [kv_u32("llama.vocab_size", 1000)] + values, []))
DS = [kv_str("general.architecture", "deepseek2")] + [
    kv_u32("deepseek2." + k, v) for k, v in [
        ("block_count", 2), ("embedding_length", 256),
        ("feed_forward_length", 512), ("attention.head_count", 4),
        ("context_length", 4096), ("vocab_size", 1000),
        ("attention.kv_lora_rank", 64), ("attention.q_lora_rank", 96),
        ("attention.key_length", 48), ("attention.value_length", 32),
        ("rope.dimension_count", 16), ("leading_dense_block_count", 1),
        ("expert_count", 8), ("expert_used_count", 2),
        ("expert_feed_forward_length", 128), ("expert_shared_count", 1)]]
out("gguf", "deepseek2", gguf(DS, [tinfo("blk.1.exp_probs_b.bias", [8], 0,
                                         0)]))
G3 = [kv_str("general.architecture", "gemma3")] + [
    kv_u32("gemma3." + k, v) for k, v in [
        ("block_count", 4), ("embedding_length", 256),
        ("feed_forward_length", 512), ("attention.head_count", 4),
        ("context_length", 4096), ("vocab_size", 1000),
        ("attention.sliding_window", 512)]] + [
    s("gemma3.attention.sliding_window_pattern") +
    struct.pack("<IIQ", 9, 7, 4) + bytes([1, 0, 1, 0])]
out("gguf", "gemma3", gguf(G3, []))
