#!/usr/bin/env bash
# tests/gpu/run.sh -- every GPU check in one run (docs/validation.md):
# build with CUDA, the unit tests and the CUDA tests, the probe, validate
# for several models / quantizations / utilizations, the PyTorch
# cross-check, and the results table.
#
#   bash tests/gpu/run.sh          (from the repository root)
#
# Results go to $OUT when it is set (the device machine's output folder),
# else to build-gpu/out: results.md (the table for docs/validation.md),
# probe.jsonl, validate.jsonl, torch.jsonl, ctest.txt, env.txt, log.txt.
# Made for a bare machine with the NVIDIA driver, nvcc, python3, torch and
# transformers but possibly no cmake dependencies and no network:
#  - as root it tries apt-get (a short timeout: there may be no network);
#  - Debian packages carried in .gpudeps/*.deb are unpacked under /tmp
#    (see docs/validation.md, "Running it");
#  - failing all that (or with KVB_GPU_FORCE_CC=1), the library and the GPU programs are built with a
#    plain cc (no unit tests, no CLI), which is all the measurements need.
# Budget: well under 10 minutes on one H200; every step has a timeout.
set -u -o pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
B=$ROOT/build-gpu
O=${OUT:-$B/out}
mkdir -p "$B" "$O"
LOG=$O/log.txt
: >"$LOG"
T0=$(date +%s)
JOBS=$(nproc 2>/dev/null || echo 4)

# The whole run must end well inside the device machine's 10 minutes:
# every step gets the smaller of its own limit and what is left of this.
BUDGET=${KVB_GPU_BUDGET:-480}

log() { echo "[run.sh +$(($(date +%s) - T0))s] $*" | tee -a "$LOG"; }
have() { command -v "$1" >/dev/null 2>&1; }
# seconds for a step: min(limit, budget left); 0 when the budget is spent
limit() {
    local left=$((BUDGET - ($(date +%s) - T0)))
    [ "$left" -lt 0 ] && left=0
    [ "$1" -lt "$left" ] && echo "$1" || echo "$left"
}
# run a step with a time limit (its output to the log); fails when the
# budget is spent
lim() {
    local s
    s=$(limit "$1")
    shift
    if [ "$s" -le 5 ]; then
        log "out of time, skipped: $*"
        return 124
    fi
    timeout --kill-after=5 "$s" "$@"
}
step() {
    lim "$@" >>"$LOG" 2>&1
}

# ---- the machine ----
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "host: $(uname -srm)"
    if have nvidia-smi; then
        nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap \
            --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
    else
        echo "gpu: nvidia-smi not found"
    fi
    have nvcc && nvcc --version | tail -1 | sed 's/^/nvcc: /'
    echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
} >"$O/env.txt" 2>&1
cat "$O/env.txt" | tee -a "$LOG"

# ---- the CUDA headers (cuda.h, cudaTypedefs.h) ----
CUDA_INC=
for d in "${CUDA_HOME:-/nonexistent}/include" /usr/local/cuda/include \
    /usr/local/cuda-*/include /usr/include; do
    if [ -f "$d/cuda.h" ] && [ -f "$d/cudaTypedefs.h" ]; then
        CUDA_INC=$d
        break
    fi
done
log "CUDA headers: ${CUDA_INC:-none found}"

# ---- dependencies ----
missing() {
    local m=""
    have cmake || m="$m cmake"
    have pkg-config || m="$m pkg-config"
    have pkg-config && pkg-config --exists jansson 2>/dev/null ||
        m="$m libjansson-dev"
    have pkg-config && pkg-config --exists cmocka 2>/dev/null ||
        m="$m libcmocka-dev"
    echo "$m"
}
need=$(missing)
if [ -n "$need" ] && [ "$(id -u)" = 0 ] && have apt-get; then
    log "trying apt-get for:$need"
    export DEBIAN_FRONTEND=noninteractive
    if step 45 apt-get -qq -o Acquire::Retries=0 \
        -o Acquire::http::Timeout=8 -o Acquire::https::Timeout=8 update; then
        # shellcheck disable=SC2086
        step 90 apt-get install -y -qq --no-install-recommends $need ||
            log "apt-get install failed"
    else
        log "apt-get update failed (no network?)"
    fi
    need=$(missing)
fi
if [ -n "$need" ] && ls "$ROOT"/.gpudeps/*.deb >/dev/null 2>&1; then
    log "unpacking .gpudeps/*.deb under /tmp/kvbdeps"
    D=/tmp/kvbdeps
    rm -rf "$D" && mkdir -p "$D/bin"
    for f in "$ROOT"/.gpudeps/*.deb; do dpkg-deb -x "$f" "$D"; done
    for pc in "$D"/usr/lib/*/pkgconfig/*.pc "$D"/usr/lib/pkgconfig/*.pc \
        "$D"/usr/share/pkgconfig/*.pc; do
        # every /usr path (prefix=, or literal -I/-L as cmocka.pc has)
        [ -f "$pc" ] && sed -i "s#/usr#$D/usr#g" "$pc"
    done
    [ -x "$D/usr/bin/pkgconf" ] && ln -sf "$D/usr/bin/pkgconf" "$D/bin/pkg-config"
    export PATH="$D/bin:$D/usr/bin:$PATH"
    export PKG_CONFIG_PATH="$(ls -d "$D"/usr/lib/*/pkgconfig "$D"/usr/share/pkgconfig 2>/dev/null | tr '\n' ':')${PKG_CONFIG_PATH:-}"
    export LD_LIBRARY_PATH="$(ls -d "$D"/usr/lib/* 2>/dev/null | tr '\n' ':')${LD_LIBRARY_PATH:-}"
    export LIBRARY_PATH="$(ls -d "$D"/usr/lib/x86_64-linux-gnu 2>/dev/null):${LIBRARY_PATH:-}"
    export CPATH="$D/usr/include:${CPATH:-}"
    need=$(missing)
fi
log "still missing:${need:- nothing}"

# ---- build ----
TOOL= TESTBIN= CLI= CMAKE_OK=0
if [ -z "${KVB_GPU_FORCE_CC:-}" ] && [ -z "$need" ] && step 120 cmake -S "$ROOT" -B "$B/cmake" \
    -DKVB_WITH_CUDA=ON -DKVB_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=Release &&
    step 200 cmake --build "$B/cmake" -j "$JOBS"; then
    CMAKE_OK=1
    TOOL=$B/cmake/tests/gpu/kvb_gpu_tool
    TESTBIN=$B/cmake/tests/gpu/test_gpu_probe
    [ -x "$B/cmake/bindings/cli/kvbudget" ] && CLI=$B/cmake/bindings/cli/kvbudget
    log "cmake build done (CLI: ${CLI:-not built})"
elif [ -n "$CUDA_INC" ]; then
    log "cmake build not possible; building with plain cc (no unit tests)"
    F=$B/cc
    rm -rf "$F" && mkdir -p "$F/obj"
    for src in $(find "$ROOT/lib" -name '*.c' | sort); do
        # readers that need jansson are skipped: nothing here calls them
        cc -std=c11 -O2 -fPIC -DKVB_STATIC -DKVB_HAVE_CUDA=1 \
            -I"$ROOT/include" -I"$ROOT/lib" -I"$CUDA_INC" -c "$src" \
            -o "$F/obj/$(echo "${src#"$ROOT"/lib/}" | tr / _ | sed 's/\.c$//').o" 2>>"$LOG" ||
            log "skipped $(basename "$src")"
    done
    ar rcs "$F/libkvbudget.a" "$F"/obj/*.o
    cc -std=c11 -O2 -DKVB_STATIC -I"$ROOT/include" \
        "$ROOT/tests/gpu/gpu_tool.c" "$F/libkvbudget.a" -ldl -lm \
        -o "$F/kvb_gpu_tool" 2>>"$LOG" && TOOL=$F/kvb_gpu_tool
    cc -std=c11 -O2 -DKVB_STATIC -I"$ROOT/include" -I"$ROOT/lib" \
        "$ROOT/tests/gpu/test_gpu_probe.c" "$F/libkvbudget.a" -ldl -lm \
        -o "$F/test_gpu_probe" 2>>"$LOG" && TESTBIN=$F/test_gpu_probe
else
    log "no build possible: neither cmake dependencies nor cuda.h"
fi

# ---- probe ----
if [ -n "$TOOL" ]; then
    lim 60 "$TOOL" probe >"$O/probe.jsonl" 2>>"$LOG"
    log "probe exit $?: $(head -c 300 "$O/probe.jsonl")"
fi
if [ -n "$CLI" ]; then
    log "kvbudget probe"
    step 60 "$CLI" probe
fi

# ---- validate: models x weights formats x utilizations ----
# MODEL QUANT UTIL [LAYERS [ENGINE [KV_DTYPE]]]; LAYERS 0 = all
CASES=(
    "Llama-3.1-8B auto 0.92"
    "Llama-3.1-8B auto 0.5"
    "Llama-3.1-8B fp8 0.92"
    "Llama-3.1-8B auto 0.9 0 vllm@0.11"
    "Llama-3.1-8B auto 0.92 0 vllm fp8"
    "Qwen2.5-14B awq 0.9"
    "Qwen2.5-32B auto 0.92"
    "Gemma-2-9B auto 0.9"
    "Mixtral-8x7B auto 0.95"
    "Llama-3.1-70B fp8 0.92"
)
: >"$O/validate.jsonl"
if [ -n "$TOOL" ] && grep -q '"KVB_OK"' "$O/probe.jsonl" 2>/dev/null; then
    for c in "${CASES[@]}"; do
        log "validate $c"
        # shellcheck disable=SC2086
        lim 60 "$TOOL" validate $c >>"$O/validate.jsonl" 2>>"$LOG"
        log "  exit $?: $(tail -1 "$O/validate.jsonl" | grep -o '"message": "[^"]*"')"
    done
    if [ -n "$CLI" ]; then
        log "kvbudget validate (human output)"
        step 90 "$CLI" validate --model Llama-3.1-8B
    fi
else
    log "validate skipped: no tool or no GPU"
fi

# ---- PyTorch cross-check ----
if [ -n "$TOOL" ] && have python3; then
    log "PyTorch cross-check"
    PYTHONUNBUFFERED=1 lim 180 python3 "$ROOT/tests/gpu/torch_check.py" \
        --tool "$TOOL" --out "$O/torch.jsonl" >>"$LOG" 2>&1
    log "torch_check exit $?"
fi

# ---- tests (after the measurements, with the time left) ----
if [ "$CMAKE_OK" = 1 ]; then
    log "ctest"
    lim 200 ctest --test-dir "$B/cmake" --output-on-failure -j "$JOBS" \
        >"$O/ctest.txt" 2>&1
    log "ctest exit $?: $(grep -E 'tests passed|tests failed' "$O/ctest.txt" | tail -1)"
elif [ -n "$TESTBIN" ]; then
    log "CUDA test (cc build)"
    lim 120 "$TESTBIN" >"$O/ctest.txt" 2>&1
    log "test_gpu_probe exit $?"
fi

# ---- the table ----
if have python3; then
    python3 "$ROOT/tests/gpu/report.py" "$O" >"$O/results.md" 2>>"$LOG"
    cat "$O/results.md"
fi
log "done in $(($(date +%s) - T0)) s; results in $O"
