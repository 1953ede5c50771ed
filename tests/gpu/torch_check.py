#!/usr/bin/env python3
"""Cross-check libkvbudget's weights and KV-cache bytes against PyTorch.

For several preset architectures, cut to a few layers so each runs in
seconds, build the real Hugging Face model with random weights on the GPU
(transformers AutoModelForCausalLM.from_config; nothing is downloaded) and
compare torch.cuda.memory_allocated() with the predicted weights bytes;
then allocate transformers' static KV cache for BATCH x LEN tokens and
compare with the predicted KV bytes.  The predictions come from
kvb_gpu_tool (tests/gpu/gpu_tool.c), i.e. from the library itself.

    python3 tests/gpu/torch_check.py --tool build-gpu/tests/gpu/kvb_gpu_tool \
        [--out torch.jsonl]

One JSON object per case on stdout (and in --out).  Exit status 0 when
every case agrees within 1%, 1 otherwise, 2 when torch or transformers
or a GPU is missing.
"""
import argparse
import gc
import inspect
import json
import os
import subprocess
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

# (preset, layers kept, dtype): dense, GQA with biases, q/k norms, sliding
# window, sandwich norms and a 256k vocabulary, fused projections, MoE.
CASES = [
    ("Llama-3.1-8B", 2, "bf16"),
    ("Qwen2.5-7B", 2, "bf16"),
    ("Qwen3-8B", 2, "bf16"),
    ("Mistral-7B-v0.3", 2, "fp16"),
    ("Gemma-2-9B", 2, "bf16"),
    ("Phi-3-mini-4k-instruct", 2, "bf16"),
    ("Mixtral-8x7B", 1, "bf16"),
    ("Qwen3-30B-A3B", 2, "bf16"),
]
BATCH, LEN = 4, 1024
TOLERANCE = 0.01


def predict(tool, name, layers, dtype):
    out = subprocess.run(
        [tool, "predict", name, str(layers), dtype, str(BATCH), str(LEN)],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def hf_config(p):
    """The Hugging Face config of a predicted model, built locally."""
    from transformers import AutoConfig
    arch = p["arch"]
    kw = dict(
        vocab_size=p["vocab_size"],
        hidden_size=p["hidden_size"],
        intermediate_size=p["intermediate_size"],
        num_hidden_layers=p["num_hidden_layers"],
        num_attention_heads=p["num_attention_heads"],
        num_key_value_heads=p["num_key_value_heads"],
        max_position_embeddings=p["max_position_embeddings"],
        tie_word_embeddings=bool(p["tie_word_embeddings"]),
    )
    if p["head_dim"]:
        kw["head_dim"] = p["head_dim"]
    window = p["sliding_window"] or None
    if arch == "llama":
        kw.update(attention_bias=False, mlp_bias=False)
    elif arch == "mistral":
        kw.update(sliding_window=window)
    elif arch == "qwen2":
        kw.update(use_sliding_window=False)
    elif arch == "qwen3":
        kw.update(attention_bias=False, use_sliding_window=False)
    elif arch == "gemma2":
        kw.update(sliding_window=window or 4096,
                  query_pre_attn_scalar=p["head_dim"] or 256)
    elif arch == "phi3":
        kw.update(sliding_window=window)
    elif arch == "mixtral":
        kw.update(num_local_experts=p["num_experts"],
                  num_experts_per_tok=p["num_experts_per_tok"],
                  intermediate_size=(p["moe_intermediate_size"]
                                     or p["intermediate_size"]),
                  sliding_window=None)
    elif arch == "qwen3_moe":
        kw.update(num_experts=p["num_experts"],
                  num_experts_per_tok=p["num_experts_per_tok"],
                  moe_intermediate_size=p["moe_intermediate_size"],
                  decoder_sparse_step=1, mlp_only_layers=[],
                  use_sliding_window=False)
    else:
        return None
    return AutoConfig.for_model(arch, **kw)


def build_model(cfg, dtype):
    import torch
    from transformers import AutoModelForCausalLM
    with torch.device("cuda"):
        try:
            model = AutoModelForCausalLM.from_config(
                cfg, dtype=dtype, attn_implementation="eager")
        except TypeError:
            model = AutoModelForCausalLM.from_config(
                cfg, torch_dtype=dtype, attn_implementation="eager")
    model = model.to(device="cuda", dtype=dtype).eval()
    torch.cuda.synchronize()
    return model


def static_cache(cfg, dtype):
    """transformers' StaticCache, whichever constructor this version has."""
    import torch
    from transformers import StaticCache
    params = inspect.signature(StaticCache.__init__).parameters
    kw = {"config": cfg, "max_cache_len": LEN}
    for name, value in (("max_batch_size", BATCH), ("batch_size", BATCH),
                        ("device", "cuda"), ("dtype", dtype)):
        if name in params:
            kw[name] = value
    if "device" not in params:
        torch.set_default_device("cuda")
    try:
        return StaticCache(**kw)
    finally:
        torch.set_default_device("cpu")


def cache_tensor_bytes(cache):
    seen, total = set(), 0
    tensors = []
    for layer in getattr(cache, "layers", []) or []:
        tensors += [getattr(layer, "keys", None), getattr(layer, "values", None)]
    tensors += list(getattr(cache, "key_cache", []) or [])
    tensors += list(getattr(cache, "value_cache", []) or [])
    for t in tensors:
        if t is None or not hasattr(t, "untyped_storage"):
            continue
        ptr = t.untyped_storage().data_ptr()
        if ptr in seen:
            continue
        seen.add(ptr)
        total += t.untyped_storage().nbytes()
    return total


def rel(observed, predicted):
    return (observed - predicted) / predicted if predicted else 0.0


def run_case(tool, name, layers, dtype_name):
    import torch
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[dtype_name]
    t0 = time.time()
    p = predict(tool, name, layers, dtype_name)
    row = {"model": name, "layers": layers, "dtype": dtype_name,
           "arch": p["arch"], "batch": BATCH, "len": LEN}
    cfg = hf_config(p)
    if cfg is None:
        row["skipped"] = "no Hugging Face mapping for arch " + p["arch"]
        return row
    gc.collect()
    torch.cuda.empty_cache()
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    model = build_model(cfg, dtype)
    weights_alloc = torch.cuda.memory_allocated() - base
    params = {id(t): t for t in model.parameters()}
    row.update(
        params_predicted=p["param_count"],
        params_torch=sum(t.numel() for t in params.values()),
        weights_predicted=p["weights_bytes"],
        weights_param_bytes=sum(t.numel() * t.element_size()
                                for t in params.values()),
        weights_buffer_bytes=sum(b.numel() * b.element_size()
                                 for b in model.buffers()),
        weights_allocated=weights_alloc,
    )
    row["weights_error"] = rel(weights_alloc, p["weights_bytes"])

    before = torch.cuda.memory_allocated()
    cache = static_cache(cfg, dtype)
    ids = torch.zeros((BATCH, 1), dtype=torch.long, device="cuda")
    with torch.no_grad():
        out = model(input_ids=ids, past_key_values=cache, use_cache=True)
    del out, ids
    gc.collect()
    torch.cuda.synchronize()
    row.update(
        kv_predicted=p["kv_bytes"],
        kv_tensor_bytes=cache_tensor_bytes(cache),
        kv_allocated=torch.cuda.memory_allocated() - before,
    )
    row["kv_error"] = rel(row["kv_allocated"], p["kv_bytes"])
    del cache, model
    gc.collect()
    torch.cuda.empty_cache()
    row["seconds"] = round(time.time() - t0, 2)
    return row


def skipped(out, reason):
    row = json.dumps({"status": "skipped", "skipped": reason})
    print(row)
    if out:
        with open(out, "w") as f:
            f.write(row + "\n")
    return 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", required=True, help="path of kvb_gpu_tool")
    ap.add_argument("--out", help="also write the JSON lines here")
    ap.add_argument("--only", help="run only this preset")
    args = ap.parse_args()
    try:
        import torch
        import transformers
    except ImportError as e:
        return skipped(args.out, "cannot import: %s" % e)
    if not torch.cuda.is_available():
        return skipped(args.out, "torch sees no CUDA device")
    env = {"torch": torch.__version__, "transformers": transformers.__version__,
           "device": torch.cuda.get_device_name(0)}
    rows, bad = [], 0
    for name, layers, dtype in CASES:
        if args.only and args.only != name:
            continue
        try:
            row = run_case(args.tool, name, layers, dtype)
        except Exception as e:  # a case that breaks is a result too
            row = {"model": name, "layers": layers, "dtype": dtype,
                   "error": "%s: %s" % (type(e).__name__, e)}
        row.update(env)
        ok = ("error" not in row and "skipped" not in row and
              abs(row["weights_error"]) <= TOLERANCE and
              abs(row["kv_error"]) <= TOLERANCE)
        row["within_tolerance"] = ok
        bad += not ok
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.out:
        with open(args.out, "w") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
