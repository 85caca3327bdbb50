#!/usr/bin/env bash
# The process dictionary's golden data against the installed VM (skipped, exit 77, without
# erl and erlc): tests/vmpdict.erl measures the array after N puts for every otp25 row of
# tests/data/pdict-array.tsv, and each must be the committed bytes (check_heaps_pdict holds
# the model to the same rows). $2: the tests' data directory.
set -u
here=$(cd "$(dirname "$0")" && pwd)
data=${2:-$here/data}
tsv="$data/pdict-array.tsv"
command -v erl >/dev/null 2>&1 && command -v erlc >/dev/null 2>&1 || { echo "cli_pdict: no erl/erlc, skipped"; exit 77; }
[ -r "$tsv" ] || { echo "cli_pdict: no $tsv"; exit 1; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
erlc -o "$work" "$here/vmpdict.erl" || { echo "FAIL: erlc vmpdict.erl"; exit 1; }
awk -F'\t' '$1 == "otp25" { print $2 "\t" $3 }' "$tsv" >"$work/want.tsv"
[ -s "$work/want.tsv" ] || { echo "FAIL: no otp25 rows in $tsv"; exit 1; }
# shellcheck disable=SC2046 # one argument per key
erl -noshell -pa "$work" -run vmpdict main $(cut -f1 "$work/want.tsv") >"$work/got.tsv" 2>"$work/err" ||
    { cat "$work/err" "$work/got.tsv"; echo "FAIL: vmpdict on the installed VM"; exit 1; }
if diff "$work/want.tsv" "$work/got.tsv" >"$work/diff"; then
    echo "cli_pdict: the installed VM's dictionary arrays are the committed ones ($(wc -l <"$work/want.tsv") sizes)"
else
    echo "FAIL: the installed VM's dictionary arrays differ from $tsv (< committed, > measured):"
    cat "$work/diff"
    exit 1
fi
