#!/bin/sh
# Install into a DESTDIR tree, then build consumers against it with
# pkg-config and with CMake's find_package, and run them.
set -eu
build=$1
tree=$2
src=$3
rm -rf "$tree"
DESTDIR="$tree" cmake --install "$build" >/dev/null
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
root="$tree$prefix"
pc=$(find "$root" -name kvbudget.pc | head -n 1)
[ -n "$pc" ] || { echo "kvbudget.pc was not installed"; exit 1; }
libdir=$(dirname "$(dirname "$pc")")
for f in "$root/include/kvbudget.h" "$libdir/libkvbudget.a" \
         "$libdir/cmake/kvbudget/kvbudgetConfig.cmake"; do
    [ -f "$f" ] || { echo "missing after install: $f"; exit 1; }
done
soname=$(objdump -p "$libdir/libkvbudget.so" | awk '/SONAME/ {print $2}')
[ "$soname" = "libkvbudget.so.0" ] || { echo "SONAME is '$soname'"; exit 1; }

# 1. pkg-config
export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$tree"
cc ${CFLAGS:-} -o "$tree/consumer_pc" "$src/consumer.c" $(pkg-config --cflags --libs kvbudget)
LD_LIBRARY_PATH="$libdir" "$tree/consumer_pc"
cc ${CFLAGS:-} -o "$tree/consumer_pc_static" "$src/consumer.c" \
    $(pkg-config --cflags kvbudget) "$libdir/libkvbudget.a" \
    $(pkg-config --static --libs-only-l kvbudget | sed 's/-lkvbudget//')
"$tree/consumer_pc_static"

# 2. find_package
cmake -S "$src" -B "$tree/consumer-build" -DCMAKE_PREFIX_PATH="$root" \
    -DCMAKE_C_FLAGS="${CFLAGS:-}" >/dev/null
cmake --build "$tree/consumer-build" >/dev/null
LD_LIBRARY_PATH="$libdir" "$tree/consumer-build/consumer_shared"
"$tree/consumer-build/consumer_static"
echo "install: header, libraries, kvbudget.pc and the CMake package work"
