#!/bin/sh
# make run: the scenario of the article this project grew from
# (shared/seed-000_09a2755b7cc95e21.txt): Llama 4 Scout with AWQ 4-bit on a
# g5.xlarge (one A10G) at --max-model-len 32768 crash-loops.  Why, and
# which of the article's fixes actually work.
#
# usage: sh scripts/seed.sh BUILD_DIR
# Exits 0 although the plan does not fit: the point is the diagnosis.
set -u

build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
case "$build" in
/*) k="$build/bindings/cli/kvbudget" ;;
*) k="$(pwd)/$build/bindings/cli/kvbudget" ;;
esac
if [ ! -x "$k" ]; then
    echo "seed.sh: $build/bindings/cli/kvbudget is not built (make build)" >&2
    exit 1
fi
cd "$root" || exit 1
logs="tests/data/logs"

model="--model Llama-4-Scout-17B-16E --quant awq-4"
serving="--max-model-len 32768 --gpu-memory-utilization 0.9"

section() {
    printf '\n==== %s ====\n\n' "$1"
}

# One line per variant: the verdict and the concurrency kvbudget predicts.
verdict() {
    label=$1
    shift
    json=$("$k" plan "$@" --json 2>&1)
    v=$(printf '%s\n' "$json" | sed -n 's/^  "verdict": "\(.*\)",$/\1/p')
    c=$(printf '%s\n' "$json" | sed -n 's/^  "max_concurrency": \(.*\),$/\1/p')
    w=$(printf '%s\n' "$json" |
        sed -n 's/^  "weights_bytes_per_gpu": \(.*\),$/\1/p')
    if [ -z "$v" ]; then
        printf '  %-46s %s\n' "$label" "$json"
        return
    fi
    printf '  %-46s %-24s weights %6.2f GiB/GPU, %5.2fx\n' "$label" "$v" \
        "$(echo "$w" | awk '{ printf "%.2f", $1 / 1073741824 }')" "$c"
}

section "1. The plan: kvbudget plan $model --instance g5.xlarge $serving"
# shellcheck disable=SC2086
"$k" plan $model --instance g5.xlarge $serving
echo "(exit status $?: 1 = does not fit)"

section "2. Why the article's \"~9 GB\" is wrong"
cat <<'EOF'
The article sizes Scout as a dense 17B model.  "17B" is the parameters
active per token; Scout stores all 16 routed experts (plus a shared one)
in every MoE layer, about 108B parameters, and vLLM loads every one.
Planned with only one expert stored (--num-experts 1), the article's
arithmetic is roughly reproduced; the 16-bit embeddings and lm_head of a
202k-token vocabulary, and vLLM's rotary cache for Scout's 10M-token
context, come on top of 17B x 4 bits:
EOF
# shellcheck disable=SC2086
verdict "as the article assumed (one expert, ~17B)" $model \
    --instance g5.xlarge $serving --num-experts 1
# shellcheck disable=SC2086
verdict "as Scout is stored (16 experts, ~108B)" $model \
    --instance g5.xlarge $serving

section "3. The article's fixes, each planned"
# shellcheck disable=SC2086
{
    verdict "step 2: --max-model-len 4096" $model --instance g5.xlarge \
        --max-model-len 4096 --gpu-memory-utilization 0.9
    verdict "step 3: --gpu-memory-utilization 0.85" $model \
        --instance g5.xlarge --max-model-len 32768 \
        --gpu-memory-utilization 0.85
    verdict "step 4: --enforce-eager" $model --instance g5.xlarge \
        $serving --enforce-eager
    verdict "step 5: GPTQ 8-bit instead" --model Llama-4-Scout-17B-16E \
        --quant gptq-8 --instance g5.xlarge $serving
    verdict "step 5: GGUF Q4_K_M instead" --model Llama-4-Scout-17B-16E \
        --quant q4_k_m --instance g5.xlarge $serving
    verdict "step 6: g5.12xlarge, TP 4, FP16 (as written)" \
        --model Llama-4-Scout-17B-16E --quant fp16 --instance g5.12xlarge \
        -tp 4 $serving
    verdict "step 6: g5.12xlarge, TP 4, AWQ 4-bit" $model \
        --instance g5.12xlarge -tp 4 $serving
    verdict "step 6: g6.xlarge (1 x L4)" $model --instance g6.xlarge \
        $serving
    verdict "step 6: p4d.24xlarge, TP 8" $model --instance p4d.24xlarge \
        -tp 8 $serving
}

section "4. kvbudget fix: the remedies in the order to try them"
# shellcheck disable=SC2086
"$k" fix $model --instance g5.xlarge $serving

section "5. The article's two log messages: kvbudget explain"
"$k" explain "$logs/seed_oom.log"
echo
# shellcheck disable=SC2086
"$k" explain "$logs/seed_oom.log" $model --instance g5.xlarge $serving |
    sed -n '/^Re-planned/,/^Remedies, in the order/p' | sed '$d'
echo
"$k" explain "$logs/seed_max_len.log"
echo
# shellcheck disable=SC2086
"$k" explain "$logs/seed_max_len.log" $model --instance g5.xlarge $serving |
    sed -n '/^Re-planned/,/^Remedies, in the order/p' | sed '$d'
echo "(The remedies for these inputs are the ones of section 4.)"

# shellcheck disable=SC2086
json=$("$k" plan $model --instance g5.xlarge $serving --json)
w=$(printf '%s\n' "$json" | sed -n 's/^  "weights_bytes_per_gpu": \(.*\),$/\1/p')
t=$(printf '%s\n' "$json" | sed -n 's/^  "gpu_total_bytes": \(.*\),$/\1/p')
gib() { echo "$1" | awk '{ printf "%.2f", $1 / 1073741824 }'; }

section "Diagnosis"
cat <<EOF
Scout with AWQ 4-bit needs $(gib "$w") GiB of weights per GPU; one A10G has
$(gib "$t") GiB.  No max-model-len, utilization or eager setting can make
that fit, and no weight format vLLM serves is smaller than AWQ 4-bit.  Of
the article's fixes only a bigger machine works: g5.12xlarge with
--tensor-parallel-size 4 and the AWQ checkpoint (not FP16, as the article
has it), or one of the cheaper machines of section 4.
EOF
exit 0
