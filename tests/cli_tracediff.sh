#!/usr/bin/env bash
# tracediff, gctrace and experiments/beam/tracediff.sh from the outside: hand-made traces in
# tests/data/tracediff (identical -> exit 0; one field changed -> exit 1 naming the op, the
# field and both values; a missing column -> exit 2 with one line), the model's gctrace CSV
# (the VM's columns, one row per GC: as many as heaptrace's GC total for the same L and N),
# and, when erl is installed, tracediff.sh at L = 1000 with 60 lookups (exit 0 or 1 and a
# summary; identity is not asserted). Whole lives (gctrace --tester): hand-made tester and
# server rows (identical; a server field changed -> exit 1 naming the process, phase and op;
# an unknown phase -> exit 2), the model's rows per pass as many as eptest counts GCs in it,
# and tracediff.sh --tester when erl is installed (with the gcnif tracer where it was built:
# each pass's rows are the node's GCs in it; --tracer nif without it exits 2 with one line).
# $1: build directory root; $2: tests/data.
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

# Whole lives: the VM's rows carry a time_us column the model's lack.
"$td" --vm "$data/life-vm.csv" --model "$data/life-same.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && grep -q '^tester: identical: 4 GCs' "$tmp/out" && grep -q '^server: identical: 2 GCs' "$tmp/out" &&
    grep -q '^  server GCs per phase (model / VM): proc1 1 / 1 proc2 1 / 1$' "$tmp/out"
ok=$?; check "identical lives: exit $rc, $(head -c 300 "$tmp/out" "$tmp/err")" "$ok"
"$td" --vm "$data/life-vm.csv" --model "$data/life-changed.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q '^tester: identical: 4 GCs' "$tmp/out" &&
    grep -q '^server: first divergence: proc2 op 6 (model GC 2, VM GC 2): heap_size_s: model 371, VM 370$' "$tmp/out"
ok=$?; check "a server field changed: exit $rc, $(head -n 3 "$tmp/out")" "$ok"
"$td" --vm "$data/life-vm.csv" --model "$data/life-badphase.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'line 7: unknown proc or phase' "$tmp/err"
ok=$?; check "unknown phase: exit $rc, $(cat "$tmp/err")" "$ok"
# A whole life beside a loop trace of the same length is refused.
sed 's/^# loop_len: 100$/# loop_len: 1000/; s/^# loop_lookups: 10$/# loop_lookups: 60/' "$data/life-same.csv" >"$tmp/life.csv"
grep -q '^# loop_lookups' "$data/vm.csv" && sed -i "s/^# loop_lookups: 60\$/$(grep '^# loop_lookups' "$data/vm.csv")/" "$tmp/life.csv"
"$td" --vm "$data/vm.csv" --model "$tmp/life.csv" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; ok=$?; check "a life beside a loop: exit $rc, $(cat "$tmp/err")" $ok

# The model's whole life: every GC eptest counts in a pass is a row of that pass. The counters
# are read when a mark reaches the meter, the phase changes when the tester receives its
# answer (as gctrace.erl places the VM's GCs), so a pass's rows may hold one GC more: the
# tester's own at the closing mark, after the meter's read.
for run in "ints 1000 50" "strings 300 40" "tuple 2000 30"; do
    set -- $run
    "$exp/gctrace" --tester --shape "$1" --len "$2" --iterations "$3" --csv "$tmp/life.csv" >/dev/null
    rc=$?
    bad=$(awk -F, '/^# pass_[a-z0-9_]*_gcs: / { split($0, a, ": "); k = substr(a[1], 8); sub(/_gcs$/, "", k); want[k] = a[2] }
                   !/^#/ && $1 != "proc" { got[$2]++ }
                   END { for (k in want) if (got[k] + 0 < want[k] || got[k] + 0 > want[k] + 1) print k, want[k], got[k] + 0 }' "$tmp/life.csv")
    [ "$rc" -eq 0 ] && [ -z "$bad" ] && grep -q '^tester,spawn,0,1,' "$tmp/life.csv"
    check "gctrace --tester $1 L $2: exit $rc, passes whose rows are not eptest's GCs: ${bad:-none}" $?
    "$td" --vm "$tmp/life.csv" --model "$tmp/life.csv" >/dev/null; check "gctrace --tester $1 against itself" $?
done
"$exp/gctrace" --shape floats --len 100 --iterations 5 >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; check "gctrace --shape without --tester: exit $rc" $?

if command -v erl >/dev/null 2>&1 && command -v erlc >/dev/null 2>&1; then
    "$here/../experiments/beam/tracediff.sh" --bin "$exp" --tester ints --schedulers 1 300 40 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    { [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; } && grep -q "^tracediff.sh: eptest's tester, ints L 300, N 40, +S 1:1" "$tmp/out" &&
        grep -q '^  tester GCs per phase (model / VM): spawn ' "$tmp/out"
    ok=$?; check "tracediff.sh --tester ints 300 40: exit $rc, $(head -c 300 "$tmp/out" "$tmp/err")" "$ok"
    # The gcnif tracer (the default where it was built): every GC of the tester and the server
    # is a row, and with no tracer process nothing else of this run collects, so the passes'
    # rows are the GCs the meter counted on the whole node in their windows (the VM's own
    # processes may add a few there: up to 2 in all are allowed, no row may be missing).
    if [ -f "$exp/gcnif.so" ]; then
        "$here/../experiments/beam/tracediff.sh" --bin "$exp" --tester ints --schedulers 1 --keep "$tmp/nif" 300 40 >"$tmp/out" 2>"$tmp/err"
        rc=$?
        { [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; } && grep -q "^tracediff.sh: eptest's tester, ints L 300, N 40, +S 1:1, tracer nif" "$tmp/out" &&
            grep -q '^# tracer: the gcnif tracer module' "$tmp/nif/vm-300.csv"
        ok=$?; check "tracediff.sh --tester with the gcnif tracer: exit $rc, $(head -c 300 "$tmp/out" "$tmp/err")" "$ok"
        # (a GC at a pass's closing mark is its row, and the next window's count)
        bad=$(awk -F, '/^# pass_[a-z0-9_]*_gcs: / { split($0, a, ": "); k = substr(a[1], 8); sub(/_gcs$/, "", k); want[k] = a[2]; tw += a[2] }
                       !/^#/ && $1 != "proc" { got[$2]++ }
                       END { for (k in want) { tg += got[k]; d = got[k] - want[k]; if (d > 1 || d < -1) print k, want[k], got[k] + 0 }
                             if (tg > tw || tw - tg > 2) print "all", tw, tg }' "$tmp/nif/vm-300.csv")
        [ -z "$bad" ]; check "gcnif: the passes' rows are the node's GCs in them (differing: ${bad:-none})" $?
    else
        echo "cli_tracediff: no gcnif.so in $exp: the gcnif tracer not run"
    fi
    mkdir -p "$tmp/nonif" && cp "$exp/gctrace" "$exp/tracediff" "$tmp/nonif/"
    "$here/../experiments/beam/tracediff.sh" --bin "$tmp/nonif" --tester ints --tracer nif 300 40 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'gcnif.so not built' "$tmp/err" && [ ! -s "$tmp/out" ]
    ok=$?; check "--tracer nif without the module: exit $rc, $(cat "$tmp/err")" "$ok"
    "$here/../experiments/beam/tracediff.sh" --bin "$exp" --tester cubes 300 >/dev/null 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; check "tracediff.sh bad shape: exit $rc" $?
    "$here/../experiments/beam/tracediff.sh" --bin "$exp" 1000 60 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    { [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; } && grep -q '^summary (L 1000, 60 lookups), model / VM:' "$tmp/out"
    ok=$?; check "tracediff.sh 1000 60: exit $rc, $(head -c 300 "$tmp/out" "$tmp/err")" "$ok"
else
    echo "cli_tracediff: erl not found: tracediff.sh not run"
fi

echo "cli_tracediff: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
