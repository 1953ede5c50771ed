#!/bin/sh
# libkvbudget.so must load without CUDA: no NEEDED entry for libcuda or
# libcudart (the probe dlopens the driver at run time; lib/device/probe.c).
set -eu
lib=$1
if command -v readelf >/dev/null 2>&1; then
    needed=$(readelf -d "$lib" | awk '/\(NEEDED\)/ {print $NF}')
else
    needed=$(objdump -p "$lib" | awk '$1 == "NEEDED" {print "[" $2 "]"}')
fi
[ -n "$needed" ] || { echo "no NEEDED entries read from $lib"; exit 1; }
echo "NEEDED: $needed"
if echo "$needed" | grep -Eq 'libcuda|libcudart|libnvidia'; then
    echo "FAIL: $lib links a CUDA library directly"
    exit 1
fi
echo "ok: no CUDA library among the NEEDED entries"
