#!/usr/bin/env bash
# The golden vectors are the installed VM's: tests/data/vectors.escript over terms.exprs gives
# terms.tsv byte for byte (an edited row, or a row no expression made, fails). No erl: exit 77.
# $1: build directory root (unused); $2: tests/data.
set -u
data="$2"
if ! command -v escript >/dev/null 2>&1; then
    echo "escript not found: skipping the vector regeneration; apt-get install erlang-nox"
    exit 77
fi
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
escript "$data/vectors.escript" "$data/terms.exprs" > "$tmp" || { echo "FAIL: vectors.escript exited $?"; exit 1; }
diff -u "$data/terms.tsv" "$tmp" | head -20
cmp -s "$data/terms.tsv" "$tmp" || { echo "FAIL: terms.tsv is not what the VM gives for terms.exprs (run tests/data/regenerate.sh)"; exit 1; }
rows=$(($(wc -l < "$tmp") - 1))
[ "$rows" -gt 0 ] || { echo "FAIL: no rows"; exit 1; }
echo "ok: $rows rows equal the VM's"
