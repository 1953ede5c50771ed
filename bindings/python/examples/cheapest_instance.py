#!/usr/bin/env python3
"""The cheapest cloud instance that serves a model at a wanted context and
concurrency, across quantizations and tensor-parallel sizes.

Every (instance, quantization, TP size) is planned in one batch call.  An
instance of N GPUs with TP size T runs N // T engine replicas, so each
replica has to hold ceil(concurrency / replicas) sequences of the full
context.  Prices come from the instance presets, or from your own table
(CSV with the columns name, gpu, gpu_count, price_per_hour and optionally
cloud; gpu is a GPU preset name).

    python3 cheapest_instance.py Llama-3.1-70B --context 32768 \\
        --concurrency 16 --quant auto,fp8,awq-4 --prices prices.csv
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import time
from dataclasses import dataclass
from typing import List, Optional

try:
    import kvbudget
except ImportError:  # run from a source checkout: the package is next door
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), os.pardir))
    import kvbudget


@dataclass(frozen=True)
class Offer:
    """An instance type and its price."""
    name: str
    cloud: str
    gpu: kvbudget.Gpu  # count = GPUs in the instance
    price_per_hour: float


@dataclass(frozen=True)
class Option:
    """One way to serve the model on one instance."""
    offer: Offer
    quant: str
    tensor_parallel_size: int
    replicas: int
    per_replica: int  # sequences each replica must hold
    max_concurrency: float  # per replica, at the wanted context
    kv_tokens: int
    weights_gib: float


def offers_from_presets(cloud: Optional[str]) -> List[Offer]:
    out = []
    for p in kvbudget.presets.instances():
        inst = p.instance
        if inst.price_per_hour <= 0 or (cloud and inst.cloud != cloud):
            continue
        out.append(Offer(inst.name, inst.cloud, p.gpu, inst.price_per_hour))
    return out


def offers_from_csv(path: str, cloud: Optional[str]) -> List[Offer]:
    out = []
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if cloud and row.get("cloud", "") != cloud:
                continue
            gpu = kvbudget.gpu(row["gpu"], count=int(row["gpu_count"]))
            out.append(Offer(row["name"], row.get("cloud", ""), gpu,
                             float(row["price_per_hour"])))
    return out


def cheapest(model: str, offers: List[Offer], quants: List[str],
             tps: List[int], context: int,
             concurrency: int) -> List[Option]:
    """Every option that fits, cheapest first (then most headroom)."""
    rows = []  # (offer index, quant index, tp, replicas, per replica)
    for oi, offer in enumerate(offers):
        for qi in range(len(quants)):
            for tp in tps:
                if tp > offer.gpu.count:
                    continue
                replicas = offer.gpu.count // tp
                rows.append((oi, qi, tp, replicas,
                             math.ceil(concurrency / replicas)))
    if not rows:
        return []
    gpus = [o.gpu for o in offers]
    result = kvbudget.plan_batch(
        model, gpus, quants=[None if q == "auto" else q for q in quants],
        gpu_index=[r[0] for r in rows],
        quant_index=[r[1] for r in rows],
        tensor_parallel_size=[r[2] for r in rows],
        concurrency=[r[4] for r in rows],
        max_model_len=context)
    options = []
    for i, (oi, qi, tp, replicas, per) in enumerate(rows):
        if result.status[i] != 0 or not result.fits[i]:
            continue
        options.append(Option(offers[oi], quants[qi], tp, replicas, per,
                              result.max_concurrency[i],
                              result.max_kv_tokens[i],
                              result.weights_bytes_per_gpu[i] / kvbudget.GIB))
    options.sort(key=lambda o: (o.offer.price_per_hour, -o.max_concurrency))
    return options


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="model preset name")
    ap.add_argument("--context", type=int, required=True,
                    help="max-model-len every request may use (tokens)")
    ap.add_argument("--concurrency", type=int, default=1,
                    help="sequences of the full context served at once")
    ap.add_argument("--quant", default="auto,fp8,awq-4",
                    help="comma-separated quantizations to consider")
    ap.add_argument("--tp", default="1,2,4,8",
                    help="comma-separated tensor-parallel sizes")
    ap.add_argument("--prices", help="CSV price table (default: presets)")
    ap.add_argument("--cloud", help="only this cloud (aws, gcp, azure)")
    ap.add_argument("--top", type=int, default=10, help="options to show")
    args = ap.parse_args(argv)

    offers = (offers_from_csv(args.prices, args.cloud) if args.prices
              else offers_from_presets(args.cloud))
    if not offers:
        print("no instances with a price to choose from", file=sys.stderr)
        return 1
    quants = [q.strip() for q in args.quant.split(",") if q.strip()]
    tps = [int(t) for t in args.tp.split(",")]
    start = time.perf_counter()
    options = cheapest(args.model, offers, quants, tps, args.context,
                       args.concurrency)
    elapsed = time.perf_counter() - start
    print(f"{args.model} at {args.context} tokens x {args.concurrency} "
          f"concurrent sequences: {len(offers)} instance types, "
          f"{len(quants)} quantizations, TP {args.tp} "
          f"(planned in {elapsed * 1000:.1f} ms)")
    if not options:
        print("nothing fits: try a smaller context, fewer sequences, a "
              "stronger quantization or bigger instances")
        return 2
    shown = options[:args.top]
    gpus = [f"{o.offer.gpu.count}x {o.offer.gpu.name}" for o in shown]
    wi = max(len("instance"), *(len(o.offer.name) for o in shown))
    wc = max(len("cloud"), *(len(o.offer.cloud) for o in shown))
    wg = max(len("GPUs"), *(len(g) for g in gpus))
    print(f"{'instance':<{wi}} {'cloud':<{wc}} {'GPUs':<{wg}} "
          f"{'quant':<8} {'TP':>3} {'repl':>4} {'$/hour':>8} "
          f"{'conc/repl':>9} {'KV tokens':>10} {'weights/GPU':>11}")
    for o, g in zip(shown, gpus):
        print(f"{o.offer.name:<{wi}} {o.offer.cloud:<{wc}} {g:<{wg}} "
              f"{o.quant:<8} {o.tensor_parallel_size:>3} {o.replicas:>4} "
              f"{o.offer.price_per_hour:>8.3f} {o.max_concurrency:>9.2f} "
              f"{o.kv_tokens:>10} {o.weights_gib:>9.2f} G")
    best = options[0]
    print(f"cheapest: {best.offer.name} (${best.offer.price_per_hour:.3f}/h)"
          f" with {best.quant}, TP {best.tensor_parallel_size}, "
          f"{best.replicas} replica(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
