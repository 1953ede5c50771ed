#!/bin/sh
# The README's C example compiles against the library and runs.
set -eu
src=$1
lib=$2
cc=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed -n '/<!-- example:begin -->/,/<!-- example:end -->/p' "$src/README.md" |
    sed '1,2d;$d' | sed '$d' >"$tmp/example.c"
[ -s "$tmp/example.c" ] || { echo "no example in README.md"; exit 1; }
"$cc" ${CFLAGS:-} -std=c11 -Wall -Wextra -Werror -I"$src/include" -o "$tmp/example" \
    "$tmp/example.c" "$lib" $(pkg-config --libs jansson) -lm -ldl
out=$("$tmp/example")
echo "$out"
case "$out" in
fits:*) exit 0 ;;
*) echo "unexpected output"; exit 1 ;;
esac
