#!/usr/bin/env python3
"""Write sparse GGUF files of real model shapes for the llama.cpp oracle.

Every tensor llama.cpp's loader asks for is listed with its true shape and
type; the data section is a hole (the file is truncated to its full size),
so a 70B model costs a few megabytes of vocabulary.  The shapes are the
models' published config.json values (named per entry below).

usage: make_gguf.py [--header-only] OUT_DIR [NAME ...]
(--header-only: no vocabulary and no data section, for kvbudget's own
tests, which read headers only)
"""
import os
import struct
import sys

F32, F16, Q4_0, Q8_0 = 0, 1, 2, 8
BLOCK = {F32: (1, 4), F16: (1, 2), Q4_0: (32, 18), Q8_0: (32, 34)}
ALIGN = 32

T_U32, T_F32, T_BOOL, T_STR, T_ARR, T_I32 = 4, 6, 7, 8, 9, 5


def s(x):
    b = x.encode()
    return struct.pack("<Q", len(b)) + b


def kv(key, t, v):
    out = s(key) + struct.pack("<I", t)
    if t == T_U32:
        out += struct.pack("<I", v)
    elif t == T_I32:
        out += struct.pack("<i", v)
    elif t == T_F32:
        out += struct.pack("<f", v)
    elif t == T_BOOL:
        out += struct.pack("<B", 1 if v else 0)
    elif t == T_STR:
        out += s(v)
    elif t == T_ARR:
        et, items = v
        out += struct.pack("<IQ", et, len(items))
        if et == T_STR:
            out += b"".join(s(it) for it in items)
        else:
            fmt = {T_F32: "f", T_I32: "i", T_BOOL: "B"}.get(et, "I")
            out += struct.pack("<%d%s" % (len(items), fmt), *items)
    return out


def nbytes(shape, t):
    n = 1
    for d in shape:
        n *= d
    blk, size = BLOCK[t]
    return n // blk * size


def vocab(n):
    """<unk> <s> </s>, the 256 byte tokens, chat markers, then fillers."""
    v = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % i for i in range(256)]
    v += ["<|end|>", "<|user|>", "<|assistant|>", "<|system|>",
          "<|endoftext|>", "\n"]
    return v + ["t%d" % i for i in range(len(v), n)]


def write(path, arch, keys, tensors, n_vocab, header_only=False):
    kvs = [kv("general.architecture", T_STR, arch),
           kv("general.name", T_STR, os.path.basename(path)),
           kv("tokenizer.ggml.model", T_STR, "llama")]
    if not header_only:  # llama.cpp loads the vocabulary; kvbudget does not
        kvs += [kv("tokenizer.ggml.tokens", T_ARR, (T_STR, vocab(n_vocab))),
                kv("tokenizer.ggml.scores", T_ARR, (T_F32, [0.0] * n_vocab)),
                kv("tokenizer.ggml.token_type", T_ARR,
                   (T_I32, [2, 3, 3] + [1] * (n_vocab - 3))),
                kv("tokenizer.ggml.bos_token_id", T_U32, 1),
                kv("tokenizer.ggml.eos_token_id", T_U32, 2)]
    for k, t, v in keys:
        kvs.append(kv(arch + "." + k if not k.startswith("general.") else k,
                      t, v))
    parts = []
    off = 0
    for name, shape, t in tensors:
        parts.append(s(name) + struct.pack("<I", len(shape)))
        parts.append(b"".join(struct.pack("<Q", d) for d in shape))
        parts.append(struct.pack("<IQ", t, off))
        off += (nbytes(shape, t) + ALIGN - 1) // ALIGN * ALIGN
    infos = b"".join(parts)
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs))
    head += b"".join(kvs) + infos
    pad = (-len(head)) % ALIGN
    with open(path, "wb") as f:
        f.write(head + b"\0" * pad)
        if not header_only:
            f.truncate(len(head) + pad + off)


def dense(L, E, H, KV, HD, FF, V, ctx, arch, extra=(), bias=False,
          qk_norm=False, post_norms=False, tied=False, experts=None):
    keys = [("context_length", T_U32, ctx), ("embedding_length", T_U32, E),
            ("block_count", T_U32, L), ("feed_forward_length", T_U32, FF),
            ("attention.head_count", T_U32, H),
            ("attention.head_count_kv", T_U32, KV),
            ("attention.key_length", T_U32, HD),
            ("attention.value_length", T_U32, HD),
            ("rope.dimension_count", T_U32, HD),
            ("attention.layer_norm_rms_epsilon", T_F32, 1e-6)] + list(extra)
    t = [("token_embd.weight", [E, V], F16),
         ("output_norm.weight", [E], F32)]
    if not tied:
        t.append(("output.weight", [E, V], F16))
    for i in range(L):
        b = "blk.%d." % i
        t += [(b + "attn_norm.weight", [E], F32),
              (b + "attn_q.weight", [E, H * HD], F16),
              (b + "attn_k.weight", [E, KV * HD], F16),
              (b + "attn_v.weight", [E, KV * HD], F16),
              (b + "attn_output.weight", [H * HD, E], F16),
              (b + "ffn_norm.weight", [E], F32)]
        if bias:
            t += [(b + "attn_q.bias", [H * HD], F32),
                  (b + "attn_k.bias", [KV * HD], F32),
                  (b + "attn_v.bias", [KV * HD], F32)]
        if qk_norm:
            t += [(b + "attn_q_norm.weight", [HD], F32),
                  (b + "attn_k_norm.weight", [HD], F32)]
        if post_norms:
            t += [(b + "post_attention_norm.weight", [E], F32),
                  (b + "post_ffw_norm.weight", [E], F32)]
        if experts:
            n, ff = experts
            t += [(b + "ffn_gate_inp.weight", [E, n], F32),
                  (b + "ffn_gate_exps.weight", [E, ff, n], F16),
                  (b + "ffn_up_exps.weight", [E, ff, n], F16),
                  (b + "ffn_down_exps.weight", [ff, E, n], F16)]
        else:
            t += [(b + "ffn_gate.weight", [E, FF], F16),
                  (b + "ffn_up.weight", [E, FF], F16),
                  (b + "ffn_down.weight", [FF, E], F16)]
    return arch, keys, t, V


def gpt_oss():
    # openai/gpt-oss-20b config.json: 24 layers, window 128 on every other
    L, E, H, KV, HD, FF, N, V = 24, 2880, 64, 8, 64, 2880, 32, 201088
    keys = [("context_length", T_U32, 131072), ("embedding_length", T_U32, E),
            ("block_count", T_U32, L), ("feed_forward_length", T_U32, FF),
            ("attention.head_count", T_U32, H),
            ("attention.head_count_kv", T_U32, KV),
            ("attention.key_length", T_U32, HD),
            ("attention.value_length", T_U32, HD),
            ("rope.dimension_count", T_U32, HD),
            ("attention.layer_norm_rms_epsilon", T_F32, 1e-5),
            ("attention.sliding_window", T_U32, 128),
            ("expert_count", T_U32, N), ("expert_used_count", T_U32, 4),
            ("expert_feed_forward_length", T_U32, FF)]
    t = [("token_embd.weight", [E, V], F16), ("output_norm.weight", [E], F32),
         ("output.weight", [E, V], F16)]
    for i in range(L):
        b = "blk.%d." % i
        t += [(b + "attn_norm.weight", [E], F32),
              (b + "attn_q.weight", [E, H * HD], F16),
              (b + "attn_q.bias", [H * HD], F32),
              (b + "attn_k.weight", [E, KV * HD], F16),
              (b + "attn_k.bias", [KV * HD], F32),
              (b + "attn_v.weight", [E, KV * HD], F16),
              (b + "attn_v.bias", [KV * HD], F32),
              (b + "attn_output.weight", [H * HD, E], F16),
              (b + "attn_output.bias", [E], F32),
              (b + "attn_sinks.weight", [H], F32),
              (b + "post_attention_norm.weight", [E], F32),
              (b + "ffn_gate_inp.weight", [E, N], F32),
              (b + "ffn_gate_inp.bias", [N], F32),
              (b + "ffn_gate_exps.weight", [E, FF, N], F16),
              (b + "ffn_gate_exps.bias", [FF, N], F32),
              (b + "ffn_up_exps.weight", [E, FF, N], F16),
              (b + "ffn_up_exps.bias", [FF, N], F32),
              (b + "ffn_down_exps.weight", [FF, E, N], F16),
              (b + "ffn_down_exps.bias", [E, N], F32)]
    return "gpt-oss", keys, t, V


def deepseek2():
    # deepseek-ai/DeepSeek-V2-Lite config.json, written as current
    # convert_hf_to_gguf.py writes MLA models (key_length 576, value_length
    # 512, the per-head sizes in *_mla, attn_k_b / attn_v_b)
    L, E, H, V = 27, 2048, 16, 102400
    R, ROPE, NOPE, VD = 512, 64, 128, 128
    FF, MFF, N, SH = 10944, 1408, 64, 2
    keys = [("context_length", T_U32, 163840), ("embedding_length", T_U32, E),
            ("block_count", T_U32, L), ("feed_forward_length", T_U32, FF),
            ("attention.head_count", T_U32, H),
            ("attention.head_count_kv", T_U32, 1),
            ("attention.key_length", T_U32, R + ROPE),
            ("attention.value_length", T_U32, R),
            ("attention.key_length_mla", T_U32, NOPE + ROPE),
            ("attention.value_length_mla", T_U32, VD),
            ("attention.kv_lora_rank", T_U32, R),
            ("rope.dimension_count", T_U32, ROPE),
            ("attention.layer_norm_rms_epsilon", T_F32, 1e-6),
            ("leading_dense_block_count", T_U32, 1),
            ("expert_count", T_U32, N), ("expert_used_count", T_U32, 6),
            ("expert_shared_count", T_U32, SH),
            ("expert_feed_forward_length", T_U32, MFF),
            ("expert_weights_scale", T_F32, 1.0)]
    t = [("token_embd.weight", [E, V], F16), ("output_norm.weight", [E], F32),
         ("output.weight", [E, V], F16)]
    for i in range(L):
        b = "blk.%d." % i
        t += [(b + "attn_norm.weight", [E], F32),
              (b + "attn_q.weight", [E, H * (NOPE + ROPE)], F16),
              (b + "attn_kv_a_mqa.weight", [E, R + ROPE], F16),
              (b + "attn_kv_a_norm.weight", [R], F32),
              (b + "attn_k_b.weight", [NOPE, R, H], F16),
              (b + "attn_v_b.weight", [R, VD, H], F16),
              (b + "attn_output.weight", [H * VD, E], F16),
              (b + "ffn_norm.weight", [E], F32)]
        if i == 0:
            t += [(b + "ffn_gate.weight", [E, FF], F16),
                  (b + "ffn_up.weight", [E, FF], F16),
                  (b + "ffn_down.weight", [FF, E], F16)]
        else:
            t += [(b + "ffn_gate_inp.weight", [E, N], F32),
                  (b + "ffn_gate_exps.weight", [E, MFF, N], F16),
                  (b + "ffn_up_exps.weight", [E, MFF, N], F16),
                  (b + "ffn_down_exps.weight", [MFF, E, N], F16),
                  (b + "ffn_gate_shexp.weight", [E, MFF * SH], F16),
                  (b + "ffn_up_shexp.weight", [E, MFF * SH], F16),
                  (b + "ffn_down_shexp.weight", [MFF * SH, E], F16)]
    return "deepseek2", keys, t, V


def phi3():
    # microsoft/Phi-3-mini-4k-instruct config.json (fused qkv and gate_up;
    # sliding_window 2047 is ignored by llama.cpp)
    L, E, H, FF, V = 32, 3072, 32, 8192, 32064
    keys = [("context_length", T_U32, 4096), ("embedding_length", T_U32, E),
            ("block_count", T_U32, L), ("feed_forward_length", T_U32, FF),
            ("attention.head_count", T_U32, H),
            ("attention.head_count_kv", T_U32, H),
            ("rope.dimension_count", T_U32, 96),
            ("attention.layer_norm_rms_epsilon", T_F32, 1e-5),
            ("attention.sliding_window", T_U32, 2047)]
    t = [("token_embd.weight", [E, V], F16), ("output_norm.weight", [E], F32),
         ("output.weight", [E, V], F16)]
    for i in range(L):
        b = "blk.%d." % i
        t += [(b + "attn_norm.weight", [E], F32),
              (b + "attn_qkv.weight", [E, 3 * E], F16),
              (b + "attn_output.weight", [E, E], F16),
              (b + "ffn_norm.weight", [E], F32),
              (b + "ffn_up.weight", [E, 2 * FF], F16),
              (b + "ffn_down.weight", [FF, E], F16)]
    return "phi3", keys, t, V


MODELS = {
    "gpt-oss-20b": gpt_oss,
    "deepseek-v2-lite": deepseek2,
    "phi3-mini": phi3,
    # meta-llama/Llama-3.1-8B config.json
    "llama31-8b": lambda: dense(32, 4096, 32, 8, 128, 14336, 128256, 131072,
                                "llama"),
    # Qwen/Qwen2.5-7B-Instruct config.json (q/k/v biases)
    "qwen25-7b": lambda: dense(28, 3584, 28, 4, 128, 18944, 152064, 32768,
                               "qwen2", bias=True),
    # Qwen/Qwen3-8B config.json (head_dim 128, q/k norms)
    "qwen3-8b": lambda: dense(36, 4096, 32, 8, 128, 12288, 151936, 40960,
                              "qwen3", qk_norm=True),
    # Qwen/Qwen3-30B-A3B config.json (128 experts of 768, 8 used)
    "qwen3-30b-a3b": lambda: dense(
        48, 2048, 32, 4, 128, 6144, 151936, 40960, "qwen3moe",
        extra=[("expert_count", T_U32, 128), ("expert_used_count", T_U32, 8),
               ("expert_feed_forward_length", T_U32, 768)],
        qk_norm=True, experts=(128, 768)),
    # google/gemma-3-12b-it text_config (window 1024, every 6th global)
    "gemma3-12b": lambda: dense(
        48, 3840, 16, 8, 256, 15360, 262208, 131072, "gemma3",
        extra=[("attention.sliding_window", T_U32, 1024)], qk_norm=True,
        post_norms=True, tied=True),
    # google/gemma-2-9b-it config.json (window 4096, every other layer)
    "gemma2-9b": lambda: dense(
        42, 3584, 16, 8, 256, 14336, 256000, 8192, "gemma2",
        extra=[("attention.sliding_window", T_U32, 4096)], post_norms=True,
        tied=True),
    # mistralai/Mistral-7B-v0.1 (llama arch in GGUF; window ignored)
    "mistral-7b": lambda: dense(
        32, 4096, 32, 8, 128, 14336, 32000, 32768, "llama",
        extra=[("attention.sliding_window", T_U32, 4096)]),
}


def main():
    args = sys.argv[1:]
    header_only = args[:1] == ["--header-only"]
    if header_only:
        args = args[1:]
    out = args[0]
    names = args[1:] or sorted(MODELS)
    os.makedirs(out, exist_ok=True)
    for n in names:
        arch, keys, tensors, V = MODELS[n]()
        write(os.path.join(out, n + ".gguf"), arch, keys, tensors, V,
              header_only)
        print(n)


if __name__ == "__main__":
    main()
