#!/usr/bin/env python3
"""Turn the GPU run's JSON lines into the tables of docs/validation.md.

    python3 tests/gpu/report.py OUTDIR > OUTDIR/results.md

Reads OUTDIR/probe.jsonl, OUTDIR/validate.jsonl, OUTDIR/torch.jsonl (each
optional) and OUTDIR/env.txt.
"""
import json
import os
import sys

GIB = float(1 << 30)
MIB = float(1 << 20)


def lines(path):
    if not os.path.exists(path):
        return []
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    rows.append(json.loads(line))
                except ValueError:
                    pass
    return rows


def pct(x):
    return "%+.3f%%" % (100 * x)


def main(outdir):
    env = ""
    if os.path.exists(os.path.join(outdir, "env.txt")):
        env = open(os.path.join(outdir, "env.txt")).read().strip()
    print("## Measured results\n")
    print("```\n%s\n```\n" % env)

    probe = lines(os.path.join(outdir, "probe.jsonl"))
    print("### Probe\n")
    print("| device | name | total (bytes) | total GiB | free GiB | in use GiB"
          " | cc | SMs | driver |")
    print("|---|---|---|---|---|---|---|---|---|")
    for d in probe:
        if d.get("status") != "KVB_OK":
            print("| - | %s | | | | | | | |" % d.get("message", "?"))
            continue
        cc = d["compute_capability"]
        print("| %d | %s | %d | %.2f | %.2f | %.2f | %d.%d | %d | %s |" % (
            d["index"], d["name"], d["total_bytes"], d["total_bytes"] / GIB,
            d["free_bytes"] / GIB, d["used_by_others_bytes"] / GIB,
            cc // 10, cc % 10, d["multiprocessor_count"], d["driver_version"]))
    print()

    val = lines(os.path.join(outdir, "validate.jsonl"))
    print("### Validate: predicted against observed (cuMemGetInfo deltas)\n")
    print("| model | weights | KV dtype | engine | util | weights pred GiB |"
          " weights obs GiB | error | KV pred GiB | KV obs GiB | error |"
          " other stages obs-pred MiB | tight | valid |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for v in val:
        if v.get("status") != "KVB_OK":
            print("| %s | | | | | | | | | | | | | %s |" % (
                v.get("model", "?"), v.get("message", v.get("status"))))
            continue
        st = {s["stage"]: s for s in v["stages"]}
        w, kv = st["weights"], st["kv_cache"]
        other = sum(st[k]["observed_bytes"] - st[k]["predicted_bytes"]
                    for k in ("activation", "non_torch", "cudagraph"))
        if v["failed_stage"]:
            tight = "out of memory in stage %d" % (v["failed_stage"] - 1)
        elif not v["tight_checked"]:
            tight = "not checked"
        else:
            tight = "%s: %d blocks at u=%.4f %s, +3%% %s, %.2f GiB spare" % (
                "yes" if v["tight"] else "NO", v["tight_num_blocks"],
                v["tight_utilization"], "fit" if v["tight_fits"] else
                "did NOT fit", "fit too" if v["tight_over_fits"] else
                "did not", v["tight_free_bytes"] / GIB)
        print("| %s | %s | %s | %s | %.2f | %.4f | %.4f | %s | %.4f | %.4f |"
              " %s | %+.1f | %s | %s |" % (
                  v["model"], v["quant"], v["kv_cache_dtype"], v["engine"],
                  v["gpu_memory_utilization"], w["predicted_bytes"] / GIB,
                  w["observed_bytes"] / GIB, pct(w["error"]),
                  kv["predicted_bytes"] / GIB, kv["observed_bytes"] / GIB,
                  pct(kv["error"]), other / MIB, tight,
                  "yes" if v["valid"] else "no"))
    print()

    tor = lines(os.path.join(outdir, "torch.jsonl"))
    print("### PyTorch cross-check (random weights, static KV cache %s)\n" % (
        "%dx%d tokens" % (tor[0]["batch"], tor[0]["len"])
        if tor and "batch" in tor[0] else ""))
    print("| model | layers | dtype | params pred | params torch |"
          " weights pred bytes | torch allocated | error |"
          " KV pred bytes | torch KV allocated | error |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for t in tor:
        if "error" in t or "skipped" in t or "weights_error" not in t:
            print("| %s | %s | %s | | | | | | | | %s |" % (
                t.get("model", "?"), t.get("layers", ""), t.get("dtype", ""),
                t.get("error", t.get("skipped", t.get("reason", "?")))))
            continue
        print("| %s | %d | %s | %d | %d | %d | %d | %s | %d | %d | %s |" % (
            t["model"], t["layers"], t["dtype"], t["params_predicted"],
            t["params_torch"], t["weights_predicted"], t["weights_allocated"],
            pct(t["weights_error"]), t["kv_predicted"], t["kv_allocated"],
            pct(t["kv_error"])))
    if tor and "torch" in tor[0]:
        print("\ntorch %s, transformers %s, %s" % (
            tor[0]["torch"], tor[0]["transformers"], tor[0]["device"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
