#!/usr/bin/env python3
"""Max concurrency against max-model-len for one model on several GPUs.

One sweep call plans every (GPU, max-model-len) point; the result is a PNG
(matplotlib, e.g. Debian's python3-matplotlib) and a table on stdout.
Without matplotlib the table is still printed and the PNG is skipped with
a message (exit status 0).

    python3 plot_concurrency.py Llama-3.1-8B --gpus A10G,H100 \\
        --quant awq-4 --out concurrency.png
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Dict, List, Optional

try:
    import kvbudget
except ImportError:  # run from a source checkout: the package is next door
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), os.pardir))
    import kvbudget


def lengths(lo: int, hi: int, per_octave: int) -> List[int]:
    """Block-aligned lengths from lo to hi, `per_octave` per doubling."""
    out, x = [], float(lo)
    while x <= hi * 1.0001:
        n = int(round(x / 16.0)) * 16
        if n >= 16 and (not out or n > out[-1]):
            out.append(n)
        x *= 2 ** (1.0 / per_octave)
    return out


def curves(model: str, gpus: List[str], quant: Optional[str],
           lens: List[int],
           utilization: float) -> Dict[str, List[float]]:
    """{gpu: max concurrency at each length}; 0 where a request does not
    fit or the length is past the model's maximum."""
    r = kvbudget.sweep(model, quant, gpus, max_model_len=lens,
                       gpu_memory_utilization=utilization)
    out: Dict[str, List[float]] = {}
    for row in r:
        ok = row.status == 0 and row.verdict in (
            kvbudget.Verdict.FITS, kvbudget.Verdict.CONCURRENCY_EXCEEDS)
        out.setdefault(row.gpu, []).append(row.max_concurrency if ok else 0.0)
    return out


def plot(path: str, title: str, lens: List[int],
         data: Dict[str, List[float]]) -> bool:
    """Write the PNG; False (with a message) when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (Debian: apt-get install "
              "python3-matplotlib); no PNG written")
        return False
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    for gpu, ys in data.items():
        pts = [(x, y) for x, y in zip(lens, ys) if y > 0]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=".",
                    label=gpu)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlabel("max-model-len (tokens)")
    ax.set_ylabel("max concurrency (full-length requests)")
    ax.set_title(title)
    ax.grid(True, which="both", linewidth=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    print(f"wrote {path}")
    return True


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="model preset name")
    ap.add_argument("--gpus", default=None,
                    help="comma-separated GPU presets (default: all)")
    ap.add_argument("--quant", default="auto", help="quantization method")
    ap.add_argument("--min-len", type=int, default=1024)
    ap.add_argument("--max-len", type=int, default=0,
                    help="default: the model's max_position_embeddings")
    ap.add_argument("--per-octave", type=int, default=2)
    ap.add_argument("--utilization", type=float, default=0.0,
                    help="gpu_memory_utilization (0: the engine default)")
    ap.add_argument("--out", default="concurrency.png")
    args = ap.parse_args(argv)

    model = kvbudget.model(args.model)
    gpus = (args.gpus.split(",") if args.gpus
            else [g.name for g in kvbudget.presets.gpus()])
    hi = args.max_len or model.max_position_embeddings
    lens = lengths(args.min_len, min(hi, model.max_position_embeddings),
                   args.per_octave)
    quant = None if args.quant == "auto" else args.quant
    data = curves(model.name, gpus, quant, lens, args.utilization)

    print(f"{model.name} ({args.quant}): max concurrency at max-model-len")
    print(f"{'max-model-len':>13} " + " ".join(f"{g:>12}" for g in data))
    for i, n in enumerate(lens):
        cells = " ".join(f"{data[g][i]:>12.2f}" if data[g][i] else
                         f"{'-':>12}" for g in data)
        print(f"{n:>13} {cells}")
    plot(args.out, f"{model.name} ({args.quant}) under vLLM", lens, data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
