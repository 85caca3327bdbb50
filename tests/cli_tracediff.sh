#!/usr/bin/env bash
# tracediff, gctrace and experiments/beam/tracediff.sh from the outside: hand-made traces in
# tests/data/tracediff (identical -> exit 0; one field changed -> exit 1 naming the op, the
# field and both values; a missing column -> exit 2 with one line), the model's gctrace CSV
# (the VM's columns, one row per GC: as many as heaptrace's GC total for the same L and N),
# and, when erl is installed, tracediff.sh at L = 1000 with 60 lookups (exit 0 or 1 and a
# summary; identity is not asserted). $1: build directory root; $2: tests/data.
set -u
exp="$1/experiments"
data="$2/tracediff"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }
td="$exp/tracediff"

"$td" --vm "$data/vm.csv" --model "$data/same.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && grep -q '^identical: 5 GCs' "$tmp/out" && grep -q '^summary' "$tmp/out" && [ ! -s "$tmp/err" ]
ok=$?; check "identical traces: exit $rc, $(head -c 200 "$tmp/out")" "$ok"

"$td" --vm "$data/vm.csv" --model "$data/changed.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q '^first divergence: op 9 (model GC 3, VM GC 3): old_heap_block_size_e: model 17000, VM 17731$' "$tmp/out"
ok=$?; check "one field changed: exit $rc, $(head -n 1 "$tmp/out")" "$ok"
grep -q '^  model GC 2 op 4 minor' "$tmp/out" && grep -q '^  VM    GC 2 op 4 minor' "$tmp/out"
check "the GCs before the divergence on both sides" $?

"$td" --vm "$data/vm.csv" --model "$data/nocolumn.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "no column 'mbuf_size_s'" "$tmp/err" && [ ! -s "$tmp/out" ]
ok=$?; check "missing column: exit $rc, $(cat "$tmp/err")" "$ok"
"$td" --vm "$data/vm.csv" --model "$tmp/none.csv" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; check "unreadable file: exit $rc" $?
"$td" --vm "$data/vm.csv" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; check "--model missing: exit $rc" $?
"$td" --help | grep -q -- '--model FILE'; check "--help" $?
"$td" --version | grep -q '^tracediff (termcopy) '; check "--version" $?

# The model's rows: the VM's columns, one per GC, as many as heaptrace counts.
header=$(grep -v '^#' "$data/vm.csv" | head -n 1)
for run in "1000 60" "3000 40" "10000 30"; do
    set -- $run
    "$exp/gctrace" --len "$1" --iterations "$2" --csv "$tmp/m.csv" >/dev/null
    rc=$?
    [ "$rc" -eq 0 ] && [ "$(grep -v '^#' "$tmp/m.csv" | head -n 1)" = "$header" ]
    check "gctrace L $1: exit $rc, the VM's header" $?
    rows=$(grep -v '^#' "$tmp/m.csv" | tail -n +2 | wc -l)
    total=$("$exp/heaptrace" --len "$1" --iterations "$2" | awk '/^  totals of the/ { print $6 + $9 }')
    [ "$rows" -eq "$total" ] && grep -q "^# loop_gcs: $rows\$" "$tmp/m.csv"
    check "gctrace L $1 N $2: $rows rows, heaptrace counts $total GCs" $?
    "$td" --vm "$tmp/m.csv" --model "$tmp/m.csv" >/dev/null; check "gctrace L $1 against itself: identical" $?
done

if command -v erl >/dev/null 2>&1 && command -v erlc >/dev/null 2>&1; then
    "$here/../experiments/beam/tracediff.sh" --bin "$exp" 1000 60 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    { [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; } && grep -q '^summary (L 1000, 60 lookups), model / VM:' "$tmp/out"
    ok=$?; check "tracediff.sh 1000 60: exit $rc, $(head -c 300 "$tmp/out" "$tmp/err")" "$ok"
else
    echo "cli_tracediff: erl not found: tracediff.sh not run"
fi

echo "cli_tracediff: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
