#!/bin/sh
# llama.cpp itself against libkvbudget, case by case (cases.txt).
# usage: run_oracle.sh CHECK_BINARY WORK_DIR
# For each case: llama.cpp's "llama_kv_cache: size = ..." lines (one per
# cache) must equal ours byte for byte, and its compute buffer (CPU
# backend) must be within 15% of ours.  Exit 77: the oracle cannot run
# here (no node, npm or python3; npm ci failed: no registry).
set -u
check=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
for tool in node npm python3; do
    if ! command -v $tool >/dev/null 2>&1; then
        echo "SKIP: $tool is not installed; the llama.cpp oracle needs node, npm and python3"
        exit 77
    fi
done
if [ ! -d "$here/node_modules/@node-llama-cpp/linux-x64" ]; then
    echo "# installing node-llama-cpp 3.22.1 from package-lock.json (npm ci)"
    if ! (cd "$here" && npm ci --omit=optional --ignore-scripts --no-audit \
            --no-fund >/dev/null 2>&1); then
        echo "SKIP: npm ci failed (no registry?); the oracle was not run"
        exit 77
    fi
fi
mkdir -p "$work"
models=$(grep -v '^#' "$here/cases.txt" | awk '{print $1}' | sort -u)
for m in $models; do
    [ -f "$work/$m.gguf" ] || python3 "$here/make_gguf.py" "$work" "$m" >/dev/null || exit 1
done
fail=0
n=0
grep -v '^#' "$here/cases.txt" | {
while read -r m c s u fa k v sf; do
    n=$((n + 1))
    theirs=$(node "$here/oracle.mjs" "$work/$m.gguf" "$c" "$s" "$u" "$fa" "$k" "$v" "$sf" 2>&1)
    ours=$("$check" "$work/$m.gguf" "$c" "$s" "$u" "$fa" "$k" "$v" "$sf")
    tkv=$(printf '%s\n' "$theirs" | grep -o 'llama_kv_cache: size = .*')
    okv=$(printf '%s\n' "$ours" | grep -o 'llama_kv_cache: size = .*')
    tcb=$(printf '%s\n' "$theirs" | sed -n 's/.*CPU compute buffer size = *\([0-9.]*\) MiB.*/\1/p' | tail -1)
    ocb=$(printf '%s\n' "$ours" | sed -n 's/.*compute buffer size = *\([0-9.]*\) MiB.*/\1/p')
    label="$m -c $c -np $s -ub $u -fa $fa -ctk $k -ctv $v swa_full=$sf"
    if [ -z "$tkv" ] || [ "$tkv" != "$okv" ]; then
        echo "FAIL KV  $label"
        echo "  llama.cpp: $tkv"
        echo "  ours:      $okv"
        fail=1
    else
        echo "ok   KV  $label: $(printf '%s' "$tkv" | tr '\n' ' ')"
    fi
    if [ -z "$tcb" ] || ! awk -v t="$tcb" -v o="$ocb" 'BEGIN { d = (o - t) / t; if (d < 0) d = -d; exit !(d <= 0.15) }'; then
        echo "FAIL CB  $label: llama.cpp ${tcb:-?} MiB, ours $ocb MiB"
        fail=1
    else
        echo "ok   CB  $label: llama.cpp $tcb MiB, ours $ocb MiB"
    fi
done
exit $fail
}
