#!/bin/sh
# llama.cpp itself against libkvbudget, case by case (cases.txt).
# usage: run_oracle.sh CHECK_BINARY WORK_DIR
# For each case: llama.cpp's "llama_kv_cache: size = ..." lines (one per
# cache) must equal ours byte for byte, so must its output buffer, and its
# compute buffer (CPU backend) must be within 15% of ours.  Exit 77: the
# oracle cannot run here (no node, npm or python3; npm install failed).
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
    # npm install, not npm ci: npm 11's ci refuses a lock file that holds
    # only this platform's optional prebuilt packages ("Missing: ... from
    # lock file"), while install still takes every version from the lock
    # and, with --no-save, leaves it as it is.
    echo "# installing node-llama-cpp 3.22.1 from package-lock.json"
    if ! (cd "$here" && npm install --no-save --omit=optional \
            --ignore-scripts --no-audit --no-fund >/dev/null 2>&1); then
        echo "SKIP: npm install failed (no registry?); the oracle was not run"
        exit 77
    fi
fi
mkdir -p "$work"
fail=0
for m in $(grep -v '^#' "$here/cases.txt" | awk '{print $1}' | uniq); do
    [ -f "$work/$m.gguf" ] || python3 "$here/make_gguf.py" "$work" "$m" >/dev/null || exit 1
    grep "^$m " "$here/cases.txt" | cut -d' ' -f2- > "$work/$m.cases"
    # one llama.cpp process per model, one context per case
    set --
    while read -r spec; do set -- "$@" "$spec"; done < "$work/$m.cases"
    node "$here/oracle.mjs" "$work/$m.gguf" "$@" > "$work/$m.oracle" 2>&1
    # a model with a case whose compute line came late (llama.cpp logs
    # asynchronously) is run once more
    if ! awk '/^### / { if (n && !c) bad = 1; n++; c = 0 }
              /compute buffer size/ { c = 1 }
              END { if (!n || !c) bad = 1; exit bad }' "$work/$m.oracle"; then
        node "$here/oracle.mjs" "$work/$m.gguf" "$@" > "$work/$m.oracle" 2>&1
    fi
    i=0
    while read -r c s u fa k v sf; do
        theirs=$(awk -v n="### $i" '$0 == n { on = 1; next } /^### / { on = 0 } on' "$work/$m.oracle")
        i=$((i + 1))
        ours=$("$check" "$work/$m.gguf" "$c" "$s" "$u" "$fa" "$k" "$v" "$sf")
        label="$m -c $c -np $s -ub $u -fa $fa -ctk $k -ctv $v swa_full=$sf"
        tkv=$(printf '%s\n' "$theirs" | grep -o 'llama_kv_cache: size = .*')
        okv=$(printf '%s\n' "$ours" | grep -o 'llama_kv_cache: size = .*')
        tob=$(printf '%s\n' "$theirs" | sed -n 's/.*output buffer size = *\([0-9.]*\) MiB.*/\1/p')
        oob=$(printf '%s\n' "$ours" | sed -n 's/.*output buffer size = *\([0-9.]*\) MiB.*/\1/p')
        tcb=$(printf '%s\n' "$theirs" | sed -n 's/.*CPU compute buffer size = *\([0-9.]*\) MiB.*/\1/p' | tail -1)
        ocb=$(printf '%s\n' "$ours" | sed -n 's/.*compute buffer size = *\([0-9.]*\) MiB.*/\1/p')
        if [ -z "$tkv" ] || [ "$tkv" != "$okv" ] || [ "$tob" != "$oob" ]; then
            echo "FAIL KV  $label"
            echo "  llama.cpp: $tkv (output $tob MiB)"
            echo "  ours:      $okv (output $oob MiB)"
            fail=1
        else
            echo "ok   KV  $label: $(printf '%s' "$tkv" | tr '\n' ' ')(output buffer $tob MiB)"
        fi
        if [ -z "$tcb" ] || ! awk -v t="$tcb" -v o="$ocb" 'BEGIN { d = (o - t) / t; if (d < 0) d = -d; exit !(d <= 0.15) }'; then
            echo "FAIL CB  $label: llama.cpp ${tcb:-?} MiB, ours $ocb MiB"
            fail=1
        else
            echo "ok   CB  $label: llama.cpp $tcb MiB, ours $ocb MiB"
        fi
    done < "$work/$m.cases"
done
exit $fail
