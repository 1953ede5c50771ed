#!/usr/bin/env python3
"""make bench: every benchmark once, side by side, ratios into
bench/results.json and a summary on stdout.

    python3 bench/run.py [--build build] [--quick]

Runs, in one go on this machine: bench_plan (kvb_plan_compute per call and
kvb_batch_compute per plan on the planner's grid), callgrind on both (the
instructions per plan) and on a calibration loop (this core's instruction
rate) for the physical floor, bench/bench_python.py --grid issue8 (per-call
ctypes and the batch entry point), bench_gguf with @huggingface/gguf on the
same file (bench/node, installed with `npm ci` when missing; the only step
that needs the network), and bench_safetensors with Python's json module on
the same headers (bench/st_json.py).  Every ratio compares numbers measured
in this run; absolute times are for orientation only.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else \
    sys.executable


def run(cmd, env=None, cwd=None) -> str:
    print("$ " + " ".join(cmd), flush=True)
    out = subprocess.run(cmd, env=env, cwd=cwd, check=True, text=True,
                         stdout=subprocess.PIPE).stdout
    sys.stdout.write(out)
    return out


def cases(text: str) -> dict:
    """bench <case> <iterations> <ns/op> <ops/s> lines."""
    out = {}
    for m in re.finditer(r"^bench (\S+) (\d+) ([\d.]+) ([\d.]+)$", text,
                         re.M):
        out[m.group(1)] = {"iterations": int(m.group(2)),
                           "ns_per_op": float(m.group(3)),
                           "ops_per_second": float(m.group(4))}
    return out


def callgrind_ir(cmd, function: str) -> int:
    """Instructions executed inside `function` (callgrind, Ir)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind",
                        f"--callgrind-out-file={out}",
                        f"--toggle-collect={function}"] + cmd, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as f:
            for line in f:
                if line.startswith("summary:") or line.startswith("totals:"):
                    return int(line.split()[1])
    raise RuntimeError("no callgrind summary")


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} " \
           f"{platform.release()}"


def node_ready(node_dir: str) -> bool:
    if os.path.isdir(os.path.join(node_dir, "node_modules", "@huggingface",
                                  "gguf")):
        return True
    if not shutil.which("npm"):
        return False
    print("# installing the peers into bench/node (npm ci)", flush=True)
    r = subprocess.run(["npm", "ci", "--prefix", node_dir, "--no-audit",
                        "--no-fund"])
    return r.returncode == 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--quick", action="store_true",
                    help="fewer repetitions (a check of the driver)")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    bench = os.path.join(build, "bench")
    data = os.path.join(bench, "data")
    os.makedirs(data, exist_ok=True)
    reps = "2" if args.quick else "5"
    res = {"date": datetime.date.today().isoformat(), "machine": machine()}

    # ---- plans ----
    out = run([os.path.join(bench, "bench_plan"), "--reps", reps,
               "--sample", "100000"])
    c = cases(out)
    res["plans_per_second"] = c["plan.batch"]["ops_per_second"]
    res["ns_per_plan_batch"] = c["plan.batch"]["ns_per_op"]
    res["plans_per_second_per_call"] = c["plan.compute"]["ops_per_second"]
    res["ns_per_plan_per_call"] = c["plan.compute"]["ns_per_op"]
    res["plans_in_grid"] = c["plan.batch"]["iterations"]
    if shutil.which("valgrind"):
        exe = os.path.join(bench, "bench_plan")
        ir_b = callgrind_ir([exe, "--only", "batch"], "kvb_batch_compute")
        ir_c = callgrind_ir([exe, "--only", "compute", "--sample", "5000"],
                            "kvb_plan_compute")
        calls = cases(run([exe, "--only", "compute", "--sample",
                           "5000"]))["plan.compute"]["iterations"]
        n_cal = 2_000_000
        ir_cal = callgrind_ir([exe, "--calibrate", str(n_cal)],
                              "calibrate_loop")
        cal = cases(run([exe, "--calibrate", "500000000"]))["calibrate.loop"]
        ips = (ir_cal / n_cal) / (cal["ns_per_op"] * 1e-9)
        res["instructions_per_plan_batch"] = round(ir_b / res["plans_in_grid"])
        res["instructions_per_plan_per_call"] = round(ir_c / calls)
        res["machine_instructions_per_second"] = round(ips)
        res["floor_ns_per_plan_batch"] = round(
            res["instructions_per_plan_batch"] / ips * 1e9, 2)
        res["floor_ns_per_plan_per_call"] = round(
            res["instructions_per_plan_per_call"] / ips * 1e9, 2)
        res["batch_time_vs_floor"] = round(
            res["ns_per_plan_batch"] / res["floor_ns_per_plan_batch"], 2)

    # ---- Python ----
    lib = os.path.join(build, "lib", "libkvbudget.so.0")
    env = dict(os.environ, KVBUDGET_LIBRARY=lib)
    out = run([PY, os.path.join(HERE, "bench_python.py"), "--grid", "issue8",
               "--calls", "20000" if args.quick else "50000"], env=env)
    c = cases(out)
    res["python_percall_plans_per_second"] = \
        c["python.per_call_ctypes"]["ops_per_second"]
    res["python_batch_plans_per_second"] = c["python.batch"]["ops_per_second"]
    res["python_plan_batch_plans_per_second"] = \
        c["python.plan_batch"]["ops_per_second"]
    res["python_batch_vs_percall"] = round(
        res["python_batch_plans_per_second"] /
        res["python_percall_plans_per_second"], 1)

    # ---- GGUF ----
    out = run([os.path.join(bench, "bench_gguf"), "--dir", data, "--reps",
               "10" if args.quick else "30"])
    c = cases(out)
    gguf_file = re.search(r"^# file (\S+)", out, re.M).group(1)
    kvb = c["gguf.kvb_model_read"]["ns_per_op"]
    res["gguf_header_bytes"] = int(re.search(r"^# file \S+ (\d+)", out,
                                             re.M).group(1))
    res["gguf_read_ns"] = kvb
    res["gguf_raw_read_ns"] = c["gguf.raw_read"]["ns_per_op"]
    res["gguf_read_time_vs_raw_read"] = round(kvb / c["gguf.raw_read"][
        "ns_per_op"], 2)
    node_dir = os.path.join(HERE, "node")
    if shutil.which("node") and node_ready(node_dir):
        out = run(["node", os.path.join(node_dir, "gguf_read.mjs"), gguf_file,
                   "2" if args.quick else "3"])
        hf = cases(out)["gguf.hf_gguf"]["ns_per_op"]
        res["hf_gguf_read_ns"] = hf
        res["gguf_read_speedup_vs_hf_gguf"] = round(hf / kvb, 1)
    else:
        print("# @huggingface/gguf not available: no comparison",
              file=sys.stderr)
        res["gguf_read_speedup_vs_hf_gguf"] = None

    # ---- safetensors ----
    st_dir = os.path.join(data, "llama-70b-bf16")
    out = run([os.path.join(bench, "bench_safetensors"), "--dir", st_dir,
               "--reps", "10" if args.quick else "30"])
    c = cases(out)
    kvb = c["st.kvb_model_read"]["ns_per_op"]
    res["safetensors_read_ns"] = kvb
    res["safetensors_raw_read_ns"] = c["st.raw_read"]["ns_per_op"]
    out = run([PY, os.path.join(HERE, "st_json.py"), st_dir, "--reps",
               "10" if args.quick else "30"])
    py = cases(out)["st.python_json"]["ns_per_op"]
    res["python_json_read_ns"] = py
    res["safetensors_read_speedup_vs_python_json"] = round(py / kvb, 2)

    with open(os.path.join(HERE, "results.json"), "w") as f:
        json.dump(res, f, indent=2)
        f.write("\n")
    print("\n== summary (bench/results.json)")
    print(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
