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

``--grid issue8`` plans bench_plan.c's grid instead (every model preset x
every quantization method x every GPU preset, 8 per node, x TP 1..8 x 8
lengths, a length past a model's maximum planned at the maximum): per call
through the 1:1 ctypes layer over a strided sample of ``--calls`` rows, and
through the batch entry point (kvbudget.plan_batch: the columns built, one
kvb_batch_compute call, the result columns) end to end, then the C call
alone.  bench/run.py runs this mode.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "bindings", "python"))

import kvbudget  # noqa: E402
from kvbudget import _capi  # noqa: E402

QUANTS = [None, "fp8", "awq-4", "q4_k_m"]
TPS = [1, 2, 4, 8]


# Each timed case runs this many times and reports its best run.
REPS = 3

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


LENS = [2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144]


def issue8(calls: int) -> int:
    """bench_plan.c's grid, per call and batched (see the module doc)."""
    from array import array
    lib = _capi.library()
    models = [p.name for p in kvbudget.presets.models()]
    gpus = [g.name for g in kvbudget.presets.gpus()]
    c_models = [kvbudget.model(m).to_c() for m in models]
    c_gpus = [kvbudget.gpu(g, count=8).to_c() for g in gpus]
    c_quants = []
    for method in range(_capi.library().kvb_quant_method_count()
                        if hasattr(lib, "kvb_quant_method_count") else 15):
        q = _capi.Quant()
        q.method = method
        c_quants.append(q)
    maxlen = [m.max_position_embeddings for m in c_models]

    nm, nq, ng, nl = len(c_models), len(c_quants), len(c_gpus), len(LENS)

    def build_columns():
        if kvbudget.HAVE_NUMPY:  # what a Python planner would build them with
            import numpy as np
            mi = np.repeat(np.arange(nm, dtype=np.uint32), nq * ng * 8 * nl)
            qi = np.tile(np.repeat(np.arange(nq, dtype=np.uint32),
                                   ng * 8 * nl), nm)
            gi = np.tile(np.repeat(np.arange(ng, dtype=np.uint32), 8 * nl),
                         nm * nq)
            tp = np.tile(np.repeat(np.arange(1, 9, dtype=np.uint32), nl),
                         nm * nq * ng)
            mml = np.minimum(np.tile(np.array(LENS, dtype=np.uint64),
                                     nm * nq * ng * 8),
                             np.repeat(np.array(maxlen, dtype=np.uint64),
                                       nq * ng * 8 * nl))
            return mi, qi, gi, tp, mml
        mi, qi, gi, tp, mml = (array("I"), array("I"), array("I"),
                               array("I"), array("Q"))
        for m in range(nm):
            lens = [min(v, maxlen[m]) for v in LENS]
            for q in range(nq):
                mi.extend([m] * (ng * 8 * nl))
                qi.extend([q] * (ng * 8 * nl))
                for g in range(ng):
                    gi.extend([g] * (8 * nl))
                    for t in range(1, 9):
                        tp.extend([t] * nl)
                        mml.extend(lens)
        return mi, qi, gi, tp, mml

    def batch_once():
        """Build the input columns and fresh output columns, then one
        kvb_batch_compute call through the 1:1 layer."""
        start = time.perf_counter()
        mi, qi, gi, tp, mml = build_columns()
        n = len(mi)
        b = _capi.Batch()
        tables = [(_capi.Model * nm)(*c_models),
                  (_capi.Quant * nq)(*c_quants), (_capi.Gpu * ng)(*c_gpus)]
        b.models, b.num_models = ctypes.addressof(tables[0]), nm
        b.quants, b.num_quants = ctypes.addressof(tables[1]), nq
        b.gpus, b.num_gpus = ctypes.addressof(tables[2]), ng
        b.count = n
        outs = {"status": ("i", "int32"), "verdict": ("i", "int32"),
                "max_kv_tokens": ("Q", "uint64"),
                "max_model_len_fit": ("Q", "uint64")}
        cols = {}
        for name, (code, np_type) in outs.items():
            if kvbudget.HAVE_NUMPY:
                import numpy as np
                cols[name] = np.empty(n, dtype=np_type)
                setattr(b, name, cols[name].ctypes.data)
            else:
                # typed columns, indexed as numbers like numpy's (a
                # c_char array would give bytes: int(b'\x03') fails)
                cols[name] = array(code, bytes(n * array(code).itemsize))
                setattr(b, name, cols[name].buffer_info()[0])
        for name, col in (("model_index", mi), ("quant_index", qi),
                          ("gpu_index", gi), ("tensor_parallel_size", tp),
                          ("max_model_len", mml)):
            setattr(b, name, col.ctypes.data if kvbudget.HAVE_NUMPY
                    else col.buffer_info()[0])
        failed = ctypes.c_uint64()
        lib.kvb_batch_compute(ctypes.byref(b), ctypes.byref(failed),
                              _capi.Error())
        return (time.perf_counter() - start, (mi, qi, gi, tp, mml), cols,
                failed.value)

    # best of REPS: the machine is shared and noisy (bench/README.md)
    runs = [batch_once() for _ in range(REPS)]
    capi_s = min(r[0] for r in runs)
    _, (mi, qi, gi, tp, mml), cols, failed_rows = runs[-1]
    start = time.perf_counter()
    build_columns()
    columns_s = time.perf_counter() - start
    n = len(mi)
    print(f"# grid: {nm} models x {nq} quantizations x {ng} GPUs "
          f"(x8) x TP 1..8 x {nl} lengths = {n} plans ({failed_rows} "
          f"rows with a status); columns built with "
          f"{'numpy' if kvbudget.HAVE_NUMPY else 'array'}")
    batch_rate = line("python.batch", n, capi_s)

    # the same through the Pythonic layer: all nine result columns
    start = time.perf_counter()
    r = kvbudget.plan_batch(c_models, c_gpus, quants=c_quants,
                            model_index=mi, quant_index=qi, gpu_index=gi,
                            tensor_parallel_size=tp, max_model_len=mml)
    line("python.plan_batch", n, time.perf_counter() - start + columns_s)
    start = time.perf_counter()
    r._rerun()
    c_rate = line("python.batch_c_call_warm", n, time.perf_counter() - start)

    step = max(1, n // max(1, calls))
    serving = _capi.Serving()
    plan = _capi.Plan()
    err = _capi.Error()
    rows = [(c_models[mi[i]], c_quants[qi[i]], c_gpus[gi[i]], tp[i], mml[i])
            for i in range(0, n, step)]
    mismatches = 0

    def per_call_once():
        start = time.perf_counter()
        for cm, cq, cg, t, length in rows:
            serving.tensor_parallel_size = t
            serving.max_model_len = length
            try:
                lib.kvb_plan_compute(cm, cq, cg, serving, plan, err)
            except kvbudget.KvbError:
                continue
        return time.perf_counter() - start

    call_rate = line("python.per_call_ctypes", len(rows),
                     min(per_call_once() for _ in range(REPS)))
    for k, i in enumerate(range(0, n, step * 97 + 1)):
        serving.tensor_parallel_size = tp[i]
        serving.max_model_len = mml[i]
        try:
            lib.kvb_plan_compute(c_models[mi[i]], c_quants[qi[i]],
                                 c_gpus[gi[i]], serving, plan, err)
        except kvbudget.KvbError:
            mismatches += int(r.status[i]) == 0
            continue
        mismatches += (plan.max_kv_tokens, plan.verdict) != (
            int(r.max_kv_tokens[i]), int(r.verdict[i]))
    for i in range(0, n, step * 13 + 1):
        mismatches += (int(cols["verdict"][i]), int(cols["status"][i])) != (
            int(r.verdict[i]), int(r.status[i]))
    print(f"ratio batch/per-call (ctypes): {batch_rate / call_rate:.1f}x "
          f"end to end, {c_rate / call_rate:.1f}x for the C call alone")
    if mismatches:
        print(f"ERROR: {mismatches} sampled rows differ between batch and "
              f"per-call", file=sys.stderr)
        return 1
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000,
                    help="batch grid size (rounded to the grid's shape)")
    ap.add_argument("--calls", type=int, default=20_000,
                    help="rows of the grid planned one call at a time")
    ap.add_argument("--threads", type=int, default=1,
                    help="threads for the batch path")
    ap.add_argument("--grid", choices=["default", "issue8"],
                    default="default",
                    help="issue8: bench_plan.c's grid (see above)")
    args = ap.parse_args()
    if args.grid == "issue8":
        return issue8(args.calls)

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
