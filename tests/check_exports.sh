#!/bin/sh
# The exported symbols of libkvbudget.so, the KVB_API prototypes of the
# header and lib/kvbudget.symbols must be the same list (jansson's
# check-exports, curl's test1119).
set -eu
lib=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBR]$/ {sub(/@.*/, "", $3); print $3}' |
    sort >"$tmp/exported"
# The line after each "KVB_API ..." line holds "<type> name(".
awk '/^KVB_API/ {getline; if (match($0, /[a-z_0-9]+\(/)) print substr($0, RSTART, RLENGTH - 1)}' \
    "$src/include/kvbudget.h" | sort >"$tmp/header"
grep -v '^#' "$src/lib/kvbudget.symbols" | sed '/^$/d' | sort >"$tmp/listed"

status=0
if ! diff -u "$tmp/listed" "$tmp/exported" >"$tmp/d1"; then
    echo "exported symbols differ from lib/kvbudget.symbols:"; cat "$tmp/d1"
    status=1
fi
if ! diff -u "$tmp/listed" "$tmp/header" >"$tmp/d2"; then
    echo "KVB_API prototypes in the header differ from lib/kvbudget.symbols:"
    cat "$tmp/d2"
    status=1
fi
bad=$(grep -v '^kvb_' "$tmp/exported" || true)
if [ -n "$bad" ]; then
    echo "symbols outside the kvb_ prefix are exported: $bad"
    status=1
fi
[ $status -eq 0 ] && echo "exports: $(wc -l <"$tmp/exported") kvb_ symbols, all documented"
exit $status
