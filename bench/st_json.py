#!/usr/bin/env python3
"""Python's json module on the headers bench_safetensors reads.

What a Python tool needs at least to get the same answer from a sharded
safetensors checkpoint: config.json and model.safetensors.index.json
through json.load, then each shard's 8-byte length and JSON header through
json.loads, summing the tensors' data_offsets.  One machine-readable line:

    bench st.python_json <iterations> <ns/op> <ops/s>

    python3 bench/st_json.py DIR [--reps N]
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import sys
import time


def read_model(d: str) -> tuple:
    with open(os.path.join(d, "config.json"), "rb") as f:
        config = json.load(f)
    with open(os.path.join(d, "model.safetensors.index.json"), "rb") as f:
        index = json.load(f)
    total = tensors = 0
    for shard in sorted(set(index["weight_map"].values())):
        with open(os.path.join(d, shard), "rb") as f:
            (n,) = struct.unpack("<Q", f.read(8))
            header = json.loads(f.read(n))
        for name, t in header.items():
            if name == "__metadata__":
                continue
            begin, end = t["data_offsets"]
            total += end - begin
            tensors += 1
    return config["num_hidden_layers"], tensors, total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    read_model(args.dir)  # warm
    best = None
    for _ in range(max(1, args.reps)):
        t0 = time.perf_counter_ns()
        layers, tensors, total = read_model(args.dir)
        t = time.perf_counter_ns() - t0
        best = t if best is None or t < best else best
    print(f"# {layers} layers, {tensors} tensors, {total} bytes")
    print(f"bench st.python_json {args.reps} {best} {1e9 / best:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
