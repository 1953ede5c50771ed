#!/usr/bin/env python3
"""Per-call against batch planning from Python: the same grid both ways.

The grid is the Cartesian product of model presets x quantizations x GPU
presets x TP sizes x max-model-len x utilization (gpu count 8).  The
per-call path walks a strided sample of that grid through the 1:1 ctypes
layer (one kvb_plan_compute call per row, structs built once and reused:
the cheapest a Python loop can be) and through kvbudget.plan() (the
Pythonic call); the batch path plans the whole grid with kvbudget.sweep()
(one kvb_batch_compute call per thread), end to end (building the grid
columns and the result buffers included) and the C call alone into warm
buffers.  Sampled rows are checked equal both ways.  One machine-readable line per case:

    bench <case> <rows> <ns/plan> <plans/s>

then the ratio of batch to per-call throughput (end to end, and for the C
call alone).

    KVBUDGET_LIBRARY=build/lib/libkvbudget.so.0 \\
        python3 bench/bench_python.py [--rows 1000000] [--calls 20000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "bindings", "python"))

import kvbudget  # noqa: E402
from kvbudget import _capi  # noqa: E402

QUANTS = [None, "fp8", "awq-4", "q4_k_m"]
TPS = [1, 2, 4, 8]


def grid(rows: int):
    """Axes whose product is about `rows` (at least 1024)."""
    models = [p.name for p in kvbudget.presets.models()][:8]
    gpus = [g.name for g in kvbudget.presets.gpus()][:4]
    fixed = len(models) * len(QUANTS) * len(gpus) * len(TPS)
    lens = [1024 * (1 + i) for i in range(32)]
    n_util = max(1, rows // (fixed * len(lens)))
    utils = [round(0.5 + 0.45 * i / max(1, n_util - 1), 6)
             for i in range(n_util)]
    return models, gpus, lens, utils


def line(case: str, rows: int, seconds: float) -> float:
    rate = rows / seconds if seconds > 0 else float("inf")
    print(f"bench {case} {rows} {seconds / max(rows, 1) * 1e9:.1f} "
          f"{rate:.0f}", flush=True)
    return rate


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000,
                    help="batch grid size (rounded to the grid's shape)")
    ap.add_argument("--calls", type=int, default=20_000,
                    help="rows of the grid planned one call at a time")
    ap.add_argument("--threads", type=int, default=1,
                    help="threads for the batch path")
    args = ap.parse_args()

    models, gpus, lens, utils = grid(args.rows)
    print(f"# libkvbudget {kvbudget.library_version()} from "
          f"{kvbudget.library_path()}; numpy "
          f"{'yes' if kvbudget.HAVE_NUMPY else 'no'}; python "
          f"{sys.version.split()[0]}")

    # ---- batch: the whole grid, one C call (per thread) ----
    start = time.perf_counter()
    r = kvbudget.sweep(models, QUANTS, gpus, tensor_parallel_size=TPS,
                       max_model_len=lens, gpu_memory_utilization=utils,
                       gpu_count=8, threads=args.threads)
    batch_s = time.perf_counter() - start
    n = len(r)
    print(f"# grid: {len(models)} models x {len(QUANTS)} quants x "
          f"{len(gpus)} GPUs x {len(TPS)} TP x {len(lens)} lengths x "
          f"{len(utils)} utilizations = {n} rows ({r.failed} rows with a "
          f"status, e.g. lengths past a model's maximum)")
    batch_rate = line("python.batch_sweep", n, batch_s)
    start = time.perf_counter()
    r._rerun()  # the C call alone, into the same (warm) buffers
    c_rate = line("python.batch_c_call_warm", n, time.perf_counter() - start)
    if kvbudget.HAVE_NUMPY:
        start = time.perf_counter()
        kvbudget.sweep(models, QUANTS, gpus, tensor_parallel_size=TPS,
                       max_model_len=lens, gpu_memory_utilization=utils,
                       gpu_count=8, threads=args.threads, numpy=True)
        line("python.batch_sweep_numpy", n, time.perf_counter() - start)

    # ---- per call: a strided sample of the same grid ----
    step = max(1, n // args.calls)
    sample = range(0, n, step)
    lib = _capi.library()
    c_models = {m: kvbudget.model(m).to_c() for m in models}
    c_quants = {q: kvbudget._api._quant_c(q) for q in QUANTS}
    c_gpus = {g: kvbudget.gpu(g, count=8).to_c() for g in gpus}
    serving = _capi.Serving()
    plan = _capi.Plan()
    err = _capi.Error()
    rows = [r[i] for i in sample]  # the inputs, read before timing
    start = time.perf_counter()
    for row in rows:
        serving.tensor_parallel_size = row.tensor_parallel_size
        serving.max_model_len = row.max_model_len
        serving.gpu_memory_utilization = row.gpu_memory_utilization
        try:
            lib.kvb_plan_compute(c_models[row.model], c_quants[row.quant],
                                 c_gpus[row.gpu], serving, plan, err)
        except kvbudget.KvbError:
            continue
    call_rate = line("python.per_call_ctypes", len(rows),
                     time.perf_counter() - start)

    few = rows[: max(1, len(rows) // 10)]
    start = time.perf_counter()
    mismatches = 0
    for row in few:
        try:
            p = kvbudget.plan(row.model, row.quant, row.gpu, gpu_count=8,
                              tensor_parallel_size=row.tensor_parallel_size,
                              max_model_len=row.max_model_len,
                              gpu_memory_utilization=(
                                  row.gpu_memory_utilization))
        except kvbudget.KvbError as exc:
            mismatches += row.status != exc.status
            continue
        mismatches += (p.max_kv_tokens, p.verdict) != (row.max_kv_tokens,
                                                       row.verdict)
    line("python.per_call_plan", len(few), time.perf_counter() - start)

    print(f"ratio batch/per-call (ctypes): {batch_rate / call_rate:.1f}x "
          f"end to end, {c_rate / call_rate:.1f}x for the C call alone")
    if mismatches:
        print(f"ERROR: {mismatches} sampled rows differ between batch and "
              f"per-call", file=sys.stderr)
        return 1
    print(f"# {len(few)} sampled rows equal both ways")
    return 0


if __name__ == "__main__":
    sys.exit(main())
