#!/usr/bin/env bash
# check.sh - compile and run every corpus program (except corpus/apps/)
# at its default sizes, with warnings enabled.  Reports compiler
# warnings/errors, non-zero exit codes and programs without a checksum
# line.  Exit status is 0 only if everything passed cleanly.
#
# usage: corpus/check.sh [CC]        (default CC: gcc)
set -u
CC=${1:-${CC:-gcc}}
CFLAGS="-O2 -std=c99 -Wall -Wextra -Wno-unknown-pragmas"  # #pragma scop markers (corpus/suite)
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pass=0
fail=0
failed=()
while IFS= read -r src; do
    rel=${src#"$here"/}
    exe="$tmp/prog"
    if ! "$CC" $CFLAGS -o "$exe" "$src" -lm 2>"$tmp/cc.log"; then
        echo "FAIL (compile) $rel"; sed 's/^/    /' "$tmp/cc.log"
        fail=$((fail + 1)); failed+=("$rel"); continue
    fi
    if [ -s "$tmp/cc.log" ]; then
        echo "FAIL (warnings) $rel"; sed 's/^/    /' "$tmp/cc.log"
        fail=$((fail + 1)); failed+=("$rel"); continue
    fi
    if ! timeout 20 "$exe" >"$tmp/out.log" 2>&1; then
        echo "FAIL (run, exit $?) $rel"; sed 's/^/    /' "$tmp/out.log"
        fail=$((fail + 1)); failed+=("$rel"); continue
    fi
    if ! grep -Eq '^[A-Za-z0-9_]+: ' "$tmp/out.log"; then
        echo "FAIL (no checksum line) $rel"
        fail=$((fail + 1)); failed+=("$rel"); continue
    fi
    if grep -Eqi ': *[-+]?(nan|inf)' "$tmp/out.log"; then
        echo "FAIL (nan/inf in output) $rel"; sed 's/^/    /' "$tmp/out.log"
        fail=$((fail + 1)); failed+=("$rel"); continue
    fi
    echo "ok   $rel"
    pass=$((pass + 1))
done < <(find "$here" -path "$here/apps" -prune -o -name '*.c' -print | sort)

echo "passed: $pass  failed: $fail"
[ "$fail" -eq 0 ]
