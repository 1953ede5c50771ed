#!/bin/sh
# Build the reader fuzz targets with clang's libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer in their own build directory, then fuzz each
# for N seconds from the seed corpus (tests/fuzz/corpus/<target>, plus the
# real configs of tests/data/configs for the config reader).
#
#   tests/fuzz/run.sh [seconds-per-target] [target...]
#
# Targets: config safetensors st_index gguf log files (default: all), 60 s each by
# default.  KVB_FUZZ_BUILD sets the build directory (default build-fuzz),
# CC_FUZZ the compiler (default clang).  New inputs go to
# <build>/fuzz-corpus/<target>, never into the source tree; a crash leaves
# its input in <build> and makes the script fail.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-config safetensors st_index gguf log files}
build=${KVB_FUZZ_BUILD:-$root/build-fuzz}
jobs=$(nproc 2>/dev/null || echo 2)

cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER="${CC_FUZZ:-clang}" \
    -DKVB_BUILD_FUZZ=ON -DKVB_SANITIZE=ON -DKVB_WERROR=OFF \
    -DKVB_BUILD_BENCH=OFF -DKVB_WITH_CUDA=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
for t in $targets; do
    cmake --build "$build" --target "fuzz_$t" -j "$jobs" >/dev/null
done

status=0
for t in $targets; do
    work="$build/fuzz-corpus/$t"
    log="$build/fuzz-$t.log"
    mkdir -p "$work"
    set -- "$work" "$here/corpus/$t"
    dict=
    [ -f "$here/$t.dict" ] && dict="-dict=$here/$t.dict"
    [ "$t" = config ] && set -- "$@" "$root/tests/data/configs"
    if (cd "$build" && "$build/tests/fuzz/fuzz_$t" $dict \
            -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
            -print_final_stats=1 "$@") >"$log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        echo "fuzz_$t: ${runs:-?} executions in ${secs} s, no failure"
    else
        echo "fuzz_$t: FAILED (log: $log)"
        tail -40 "$log"
        status=1
    fi
done
exit $status
