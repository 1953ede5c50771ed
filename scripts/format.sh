#!/bin/sh
# clang-format every C file of the project with the checked-in .clang-format,
# or with --check report the files that are not formatted (a ctest).
# include/kvbudget.h is laid out by hand: it is the manual, and its
# "KVB_API KVB_NODISCARD" line above each prototype is what the export
# check and the API reference generator read.
set -eu
cd "$(dirname "$0")/.."
files=$(git ls-files '*.c' '*.h' 2>/dev/null | grep -v '^include/kvbudget.h$' ||
        find lib bindings tests bench -name '*.[ch]')
if [ "${1:-}" = "--check" ]; then
    clang-format --dry-run -Werror $files
    echo "format: $(echo "$files" | wc -l) files match .clang-format"
else
    clang-format -i $files
fi
