#!/bin/sh
# tests/web/run.sh SRC BUILD CLI [GGUF_WRITER] -- the browser tests (ctest
# web.browser): build the page with web/build.sh into BUILD/web, then
# drive it in headless Chromium (tests/web/browser.mjs) against the
# kvbudget command CLI.  Exits 77 (ctest: skipped) with a SKIPPED line
# when emcc, chromium or node is absent.  KVB_WEB_SHOTS=DIR puts the
# screenshots there (make web-screenshot: docs/).
set -eu
src=$1 build=$2 cli=$3 gguf_writer=${4:-}

missing=""
command -v emcc >/dev/null 2>&1 || missing="$missing emcc (emscripten)"
[ -x "${KVB_CHROMIUM:-/usr/bin/chromium}" ] || missing="$missing chromium"
command -v node >/dev/null 2>&1 || missing="$missing node"
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -n "$missing" ]; then
    echo "web: SKIPPED: not installed:$missing" \
         "(apt-get install emscripten chromium; .ci/run installs them)"
    exit 77
fi

# puppeteer-core from the checked-in lock file, once.
if [ ! -d "$src/tests/web/node_modules/puppeteer-core" ]; then
    echo "web: installing puppeteer-core into tests/web (npm ci)"
    npm ci --prefix "$src/tests/web" --no-audit --no-fund --ignore-scripts \
        >/dev/null
fi

mkdir -p "$build/web"
dist=$build/web/dist
sh "$src/web/build.sh" "$build/web" "$dist"

# A GGUF of Llama-3.1-70B Q4_K_M whose 2 GB of tensor data is a sparse
# hole (bench_gguf writes it): the page must read its header only.
gguf=$src/tests/fuzz/corpus/gguf/llama_q4km
if [ -n "$gguf_writer" ] && [ -x "$gguf_writer" ]; then
    "$gguf_writer" --tiny --dir "$build/web/gguf" >/dev/null
    gguf=$(ls "$build/web/gguf"/*.gguf | head -n 1)
fi

size=$(du -sk "$dist" | cut -f 1)
echo "web: dist $size KiB"
if [ "$size" -ge 3072 ]; then
    echo "FAIL web/dist is $size KiB, over 3 MiB"
    exit 1
fi

cd "$src"
exec node tests/web/browser.mjs --dist "$dist" --cli "$cli" \
    --gguf "$gguf" --config tests/data/configs/llama-3.1-8b-instruct.json \
    --out "${KVB_WEB_SHOTS:-$build/web}" \
    --bench-native "$(dirname "${gguf_writer:-/nonexistent/x}")/bench_plan"
