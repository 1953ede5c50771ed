#!/bin/sh
# Install the way users do, then use what was installed:
#  1. `cmake --install --prefix P`: pkg-config (the .pc is relocatable, so
#     no sysroot tricks), find_package, and P/bin/kvbudget run with a clean
#     environment (no LD_LIBRARY_PATH: its RUNPATH finds the library);
#  2. a DESTDIR staging tree, moved: the same three still work.
set -eu
build=$1
tree=$2
src=$3
rm -rf "$tree"
mkdir -p "$tree"

fail() { echo "install: $*"; exit 1; }

# check_prefix ROOT: everything an installed kvbudget gives its users.
check_prefix() {
    root=$1
    pc=$(find "$root" -name kvbudget.pc | head -n 1)
    [ -n "$pc" ] || fail "kvbudget.pc was not installed under $root"
    libdir=$(dirname "$(dirname "$pc")")
    for f in "$root/include/kvbudget.h" "$libdir/libkvbudget.a" \
             "$libdir/cmake/kvbudget/kvbudgetConfig.cmake" \
             "$root/bin/kvbudget"; do
        [ -f "$f" ] || fail "missing after install: $f"
    done
    soname=$(objdump -p "$libdir/libkvbudget.so" | awk '/SONAME/ {print $2}')
    [ "$soname" = "libkvbudget.so.0" ] || fail "SONAME is '$soname'"

    # pkg-config: the include directory it names is the installed one
    cflags=$(env -u PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH="$(dirname "$pc")" \
             pkg-config --cflags kvbudget)
    # shellcheck disable=SC2086
    set -- $cflags
    inc=${1#-I}
    [ -f "$inc/kvbudget.h" ] || fail "pkg-config --cflags says '$cflags'"
    libs=$(env -u PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH="$(dirname "$pc")" \
           pkg-config --libs kvbudget)
    out=$root/consumer_pc
    # shellcheck disable=SC2086
    cc ${CFLAGS:-} -o "$out" "$src/consumer.c" $cflags $libs
    LD_LIBRARY_PATH="$libdir" "$out"
    # shellcheck disable=SC2086
    cc ${CFLAGS:-} -o "$out-static" "$src/consumer.c" $cflags \
        "$libdir/libkvbudget.a" \
        $(PKG_CONFIG_PATH="$(dirname "$pc")" \
          pkg-config --static --libs-only-l kvbudget | sed 's/-lkvbudget//')
    "$out-static"

    # find_package
    cmake -S "$src" -B "$root/consumer-build" -DCMAKE_PREFIX_PATH="$root" \
        -DCMAKE_C_FLAGS="${CFLAGS:-}" >/dev/null
    cmake --build "$root/consumer-build" >/dev/null
    LD_LIBRARY_PATH="$libdir" "$root/consumer-build/consumer_shared"
    "$root/consumer-build/consumer_static"

    # the command, with nothing in its environment but PATH (ASan builds
    # need their runtime's own variables, which env -i would drop too)
    if [ -z "${CFLAGS:-}" ]; then
        v=$(env -i PATH=/usr/bin:/bin "$root/bin/kvbudget" --version) ||
            fail "$root/bin/kvbudget does not start with a clean environment"
        echo "installed command: $v"
        env -i PATH=/usr/bin:/bin "$root/bin/kvbudget" plan \
            --model Llama-3.1-8B --gpu L4 --max-model-len 8192 >/dev/null ||
            fail "$root/bin/kvbudget plan failed"
    fi
    readelf -d "$root/bin/kvbudget" | grep -q 'R.*PATH.*\$ORIGIN' ||
        fail "$root/bin/kvbudget has no \$ORIGIN RUNPATH"
}

# 1. --prefix
cmake --install "$build" --prefix "$tree/prefix" >/dev/null
check_prefix "$tree/prefix"

# 2. DESTDIR, then moved elsewhere (relocatable)
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
DESTDIR="$tree/stage" cmake --install "$build" >/dev/null
mv "$tree/stage$prefix" "$tree/moved"
check_prefix "$tree/moved"
echo "install: header, libraries, kvbudget.pc, the CMake package and the command work"
