#!/bin/sh
# Regenerate data/flags/ from git snapshots of the engines (read with git
# show / git grep; nothing from them is built, imported or run).
#
#   scripts/flags/regen.sh VLLM_GIT_DIRS SGLANG_GIT_DIRS
#
# Each argument is a comma-separated list of git directories that together
# hold every commit of data/flags/<engine>-releases.tsv, e.g. the snapshots
# of CentML/vllm (upstream tags) and EmbeddedLLM/vllm (upstream main) for
# vLLM, AMD-yanfeiwang/sglang for SGLang.  About 30-60 s a release on one
# core.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../../data/flags
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
regen() {
    engine=$1 dirs=$2
    python3 "$here/extract.py" "$engine" "$dirs" "$data/$engine-releases.tsv" \
        > "$tmp/$engine.jsonl"
    python3 "$here/envscan.py" "$engine" "$data/$engine-releases.tsv" "$dirs" \
        > "$data/env-$engine.json"
    python3 "$here/build.py" "$engine" "$data/$engine-releases.tsv" \
        "$data/env-$engine.json" "$tmp/$engine.jsonl" > "$data/$engine.tsv"
}
regen vllm "$1"
regen sglang "$2"
