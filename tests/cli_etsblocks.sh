#!/usr/bin/env bash
# The ETS objects' golden block bytes against the installed VM (skipped, exit 77, without erl
# and erlc): tests/vmetsblocks.erl measures ets_alloc's block bytes after N inserts for the
# otp25 rows of tests/data/ets-blocks.tsv, and what the objects between two rows take must be
# the committed difference per object (a constant the table itself allocates may move with the
# scheduler count; check_stores_ets holds the model to the same differences). $2: the tests' data directory.
set -u
here=$(cd "$(dirname "$0")" && pwd)
data=${2:-$here/data}
tsv="$data/ets-blocks.tsv"
command -v erl >/dev/null 2>&1 && command -v erlc >/dev/null 2>&1 || { echo "cli_etsblocks: no erl/erlc, skipped"; exit 77; }
[ -r "$tsv" ] || { echo "cli_etsblocks: no $tsv"; exit 1; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
erlc -o "$work" "$here/vmetsblocks.erl" || { echo "FAIL: erlc vmetsblocks.erl"; exit 1; }
awk -F'\t' '$1 == "otp25" { print $2 "\t" $3 }' "$tsv" >"$work/want.tsv"
[ "$(wc -l <"$work/want.tsv")" -ge 2 ] || { echo "FAIL: fewer than two otp25 rows in $tsv"; exit 1; }
# shellcheck disable=SC2046 # one argument per count
erl -noshell -pa "$work" -run vmetsblocks main $(cut -f1 "$work/want.tsv") >"$work/got.tsv" 2>"$work/err" ||
    { cat "$work/err" "$work/got.tsv"; echo "FAIL: vmetsblocks on the installed VM"; exit 1; }
# each row's objects over the first row's, and the bytes each of them took, to the nearest
# 8 (an alloc_util block is whole words): ets_alloc is the whole VM's, and between the two
# readings of a table the VM's own ETS work can take or free a block of a few words (16 to 56
# bytes seen here, about a byte per object over 50 of them); an object one word larger moves
# the figure by 8
diffs() { awk -F'\t' 'NR == 1 { n = $1; b = $2; next } { printf "%d\t%d\n", $1 - n, 8 * int(($2 - b) / ($1 - n) / 8 + 0.5) }' "$1"; }
if [ "$(diffs "$work/want.tsv")" = "$(diffs "$work/got.tsv")" ]; then
    echo "cli_etsblocks: the installed VM's object blocks take the committed bytes ($(diffs "$work/got.tsv" | tr '\t\n' '  '))"
else
    echo "FAIL: the installed VM's object blocks differ from $tsv: committed $(diffs "$work/want.tsv" | tr '\t\n' '  '), measured $(diffs "$work/got.tsv" | tr '\t\n' '  ')"
    exit 1
fi
