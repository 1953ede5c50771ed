#!/bin/sh
# web/build.sh [BUILD_DIR [DIST_DIR]] -- `make web`: the library and the
# kvbudget command compiled to WebAssembly with Debian's emscripten, and
# the static page, into web/dist/ (index.html, kvbudget.js, kvbudget.wasm,
# ...); the browser tests build into their own DIST_DIR.
#
# jansson, which the readers and the command use, is built for
# WebAssembly from Debian's own source package, fetched here with
# `apt-get source` through a private apt configuration under BUILD_DIR
# (the system's sources.list is not touched, root is not needed), then
# built with its own CMake files under emcmake.  docs/web.md says why.
set -eu
cd "$(dirname "$0")/.."
B=${1:-build-web}
# Debian's emscripten needs node-acorn, which a nodesource node does not
# look for in Debian's module folder.
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"
DIST=${2:-web/dist}
CC=${EMCC:-emcc}

if ! command -v "$CC" >/dev/null 2>&1; then
    echo "web: emcc not found; as root: apt-get install emscripten" >&2
    exit 1
fi
mkdir -p "$B"
B=$(cd "$B" && pwd)

# ---- jansson from Debian's source package, once per build directory ----
jansson() {
    J=$B/jansson
    [ -f "$J/lib/libjansson.a" ] && return 0
    mirror=${KVB_DEBIAN_MIRROR:-http://deb.debian.org/debian}
    suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
    apt=$B/apt
    rm -rf "$apt" "$B/jansson-src"
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" \
        "$B/jansson-src"
    echo "deb-src $mirror $suite main" >"$apt/sources.list"
    set -- -o "Dir::Etc::SourceList=$apt/sources.list" \
        -o "Dir::Etc::SourceParts=$apt/none" \
        -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" \
        -o Debug::NoLocking=1 -o APT::Sandbox::User=root -qq
    echo "web: fetching jansson's Debian source package ($suite)" >&2
    apt-get "$@" update
    (cd "$B/jansson-src" && apt-get "$@" source jansson >/dev/null)
    src=$(find "$B/jansson-src" -mindepth 1 -maxdepth 1 -type d | head -n 1)
    echo "web: building $(basename "$src") for WebAssembly" >&2
    emcmake cmake -S "$src" -B "$J" -DCMAKE_BUILD_TYPE=Release \
        -DJANSSON_EXAMPLES=OFF -DJANSSON_BUILD_DOCS=OFF \
        -DJANSSON_WITHOUT_TESTS=ON -DJANSSON_INSTALL=OFF \
        -DUSE_URANDOM=OFF >"$B/jansson-configure.log" 2>&1 ||
        { cat "$B/jansson-configure.log" >&2; exit 1; }
    cmake --build "$J" -j 2 >"$B/jansson-build.log" 2>&1 ||
        { cat "$B/jansson-build.log" >&2; exit 1; }
}
jansson

# ---- the library and the command, one object per source file ----
# Every lib/**/*.c and bindings/cli/*.c, as CMake globs them, so files
# added to either are picked up, and the preset tables that
# scripts/gen_presets.py generates from data/ as lib/CMakeLists.txt does
# (a table whose text is unchanged keeps its file, so its object is
# kept); main() becomes kvb_cli_main, which web/src/kvb_web.c calls.
CFLAGS="-O2 -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes \
-Wmissing-prototypes -Wformat=2 -Werror -DNDEBUG \
-Iinclude -Ilib -Ibindings/cli -I$B/jansson/include"
OBJ=$B/obj
GEN=$B/generated
mkdir -p "$OBJ"
"${PYTHON:-python3}" scripts/gen_presets.py --out "$GEN" --keep-unchanged
newest_header=$(ls -t $(find include lib bindings/cli -name '*.h') |
    head -n 1)
# The object of a source file: a library object's name starts with lib_.
obj() {
    case $1 in
    "$GEN"/*) echo "$OBJ/lib_generated_${1##*/}.o" ;;
    *) echo "$OBJ/$(echo "$1" | tr / _).o" ;;
    esac
}
objs=""
compile_list=""
for src in $(find lib -name '*.c' | sort) "$GEN"/presets_*.c \
    bindings/cli/*.c web/src/kvb_web.c; do
    o=$(obj "$src")
    objs="$objs $o"
    if [ ! -f "$o" ] || [ "$src" -nt "$o" ] || [ "$newest_header" -nt "$o" ]
    then
        compile_list="$compile_list $src $o"
    fi
done
if [ -n "$compile_list" ]; then
    echo "web: compiling$(echo $compile_list | wc -w |
        awk '{ print " " $1 / 2 }') files" >&2
    # shellcheck disable=SC2086
    printf '%s\n' $compile_list | xargs -P "${JOBS:-2}" -n 2 sh -c '
        src=$1 o=$2
        extra="-DKVB_STATIC"
        case $o in
        */obj/lib_*) extra="-DKVB_BUILDING" ;;
        esac
        case $src in
        bindings/cli/main.c)
            extra="$extra -Dmain=kvb_cli_main -Wno-missing-prototypes" ;;
        esac
        exec '"$CC"' '"$CFLAGS"' $extra -c "$src" -o "$o"' sh
fi

# ---- link: an ES5 factory (kvbCoreCreate) and the .wasm ----
mkdir -p "$DIST"
# shellcheck disable=SC2086
"$CC" -O2 $objs "$B/jansson/lib/libjansson.a" -o "$B/kvbudget.js" \
    -sMODULARIZE=1 -sEXPORT_NAME=kvbCoreCreate -sENVIRONMENT=web \
    -sALLOW_MEMORY_GROWTH=1 -sFORCE_FILESYSTEM=1 \
    -sEXPORTED_FUNCTIONS=_kvb_web_run \
    -sEXPORTED_RUNTIME_METHODS=FS,ccall

# ---- bench/bench_plan.c for the browser, beside the native figure (not
# part of the page; tests/web/browser.mjs runs it) ----
lib_objs=$(for o in $objs; do case $o in */obj/lib_*) echo "$o" ;; esac; done)
bench_o=$OBJ/bench_bench_plan.c.o
if [ ! -f "$bench_o" ] || [ bench/bench_plan.c -nt "$bench_o" ] ||
   [ "$newest_header" -nt "$bench_o" ]; then
    # shellcheck disable=SC2086
    "$CC" $CFLAGS -DKVB_STATIC -c bench/bench_plan.c -o "$bench_o"
fi
# shellcheck disable=SC2086
"$CC" -O2 $lib_objs "$bench_o" -o "$B/bench_plan.js" \
    -sMODULARIZE=1 -sEXPORT_NAME=kvbBenchCreate -sENVIRONMENT=web \
    -sALLOW_MEMORY_GROWTH=1 -sINVOKE_RUN=0 -sEXIT_RUNTIME=0 \
    -sEXPORTED_RUNTIME_METHODS=callMain

# ---- the page: one script (the runtime + the API), the .wasm, and the
# .wasm again as base64 for a page opened from file:// (where browsers
# refuse fetch()) ----
cat "$B/kvbudget.js" web/src/api.js >"$DIST/kvbudget.js"
cp "$B/kvbudget.wasm" "$DIST/kvbudget.wasm"
{
    printf 'globalThis.KVB_WASM_BASE64 = "'
    base64 -w 0 "$B/kvbudget.wasm"
    printf '";\n'
} >"$DIST/kvbudget.wasm.js"
cp web/src/index.html web/src/app.js web/src/style.css "$DIST/"
# The service worker's cache is named after the content, so a new build
# replaces the old copy.
version=$(cat "$DIST"/* | sha256sum | cut -c 1-12)
sed "s/@VERSION@/$version/" web/src/sw.js >"$DIST/sw.js"
echo "web: $DIST/ $(du -sk "$DIST" | cut -f 1) KiB ($(ls "$DIST" | tr '\n' ' '))" >&2
