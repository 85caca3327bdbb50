#!/usr/bin/env bash
# experiments/beam/sweep.sh and bands.sh from the outside, without running the grid: the
# summary of a hand-made sweep CSV (each criterion met by a known set of rows; with several VM
# runs per point, the VM against itself and the model inside the runs), bad arguments
# (one line, exit 2), bands.sh on a sweep with no band edge (the table's header alone; it
# needs erl, else it says so and exits 0), and bands.sh --model-only (the model's edge bisected,
# the VM's read from a bands CSV; no erl). $1: build directory root; $2: tests/data.
set -u
here=$(cd "$(dirname "$0")" && pwd)
beam="$here/../experiments/beam"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }

header="shape,payload_len,model_lookup_gcs,vm_lookup_gcs,model_rt_gcs,vm_rt_gcs,model_lookup_faults,vm_lookup_faults,model_rt_faults,vm_rt_faults,model_lookup_carriers,vm_lookup_carriers,model_rt_carriers,vm_rt_carriers,model_ratio,vm_ratio"
# 1: all within; 2: lookup GCs 4 % off, faults 23 % and 300 off, carriers 3 off, ratio on
# the other side; 3: faults 300 off but within 15 %, VM ratio 1.05 (not clearly on a side);
# 4: round-trip GCs 3 % off exactly (within), faults off by 150 (within 200), same side.
{
    echo "# experiment: hand-made"
    echo "$header"
    echo "ints,1000,100,100,250,250,10,12,0,0,0,0,0,0,0.8,0.7"
    echo "ints,2000,104,100,250,250,1000,1300,0,0,5,2,0,0,1.2,0.8"
    echo "ints,3000,100,100,250,250,10000,10300,0,0,0,0,0,0,0.5,1.05"
    echo "ints,4000,100,100,206,200,150,0,0,0,0,0,0,0,1.3,1.2"
} >"$tmp/sweep.csv"
"$beam/sweep.sh" --summary "$tmp/sweep.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ]; ok=$?; check "summary: exit $rc, $(cat "$tmp/err")" $ok
grep -q '^sweep summary (4 points):$' "$tmp/out"; check "summary: the points" $?
grep -q 'GCs within 3%.* 3 of 4$' "$tmp/out"; ok=$?; check "summary: GCs, $(grep GCs "$tmp/out")" $ok
grep -q 'faults within 15% or 200.* 3 of 4$' "$tmp/out"; ok=$?; check "summary: faults, $(grep faults "$tmp/out")" $ok
grep -q 'carriers mapped within 2.* 3 of 4$' "$tmp/out"; ok=$?; check "summary: carriers, $(grep carriers "$tmp/out")" $ok
grep -q "side of the round trip.*: 2 of 3 (the model's ratio by its C code's time)$" "$tmp/out"; ok=$?; check "summary: side, $(grep side "$tmp/out")" $ok
# With the model's priced ratio (sweep.sh --prices) the side is that ratio's: row 2's priced
# ratio 0.75 is on the VM's side where its C time (1.2) is not; row 4's 0.9 is not.
{
    echo "# experiment: hand-made, priced"
    echo "$header,model_priced_ratio"
    echo "ints,1000,100,100,250,250,10,12,0,0,0,0,0,0,0.8,0.7,0.6"
    echo "ints,2000,104,100,250,250,1000,1300,0,0,5,2,0,0,1.2,0.8,0.75"
    echo "ints,3000,100,100,250,250,10000,10300,0,0,0,0,0,0,0.5,1.05,0.5"
    echo "ints,4000,100,100,206,200,150,0,0,0,0,0,0,0,1.3,1.2,0.9"
} >"$tmp/priced.csv"
"$beam/sweep.sh" --summary "$tmp/priced.csv" >"$tmp/out" 2>"$tmp/err"
grep -q "side of the round trip.*: 2 of 3 (the model's ratio priced at the VM's prices)$" "$tmp/out"
ok=$?; check "summary: the side of the priced ratio, $(grep side "$tmp/out")" $ok

# A sweep with several VM runs per point (vm_*_lo, vm_*_hi): the VM against its own median and
# the model inside the runs' range. 1: every run alike, the model on them; 2: the VM's round
# trip GCs 250 or 500 from run to run and its ratio on either side of 1, the model at 500 and
# 1.2 (off the median, inside the runs); 3: the VM's lookup carriers 0 to 10, the model at 5;
# 4: every run alike at 100 lookup GCs, the model at 120 (off the median and off the runs).
runs="vm_rounds,vm_lookup_gcs_lo,vm_lookup_gcs_hi,vm_rt_gcs_lo,vm_rt_gcs_hi,vm_lookup_faults_lo,vm_lookup_faults_hi,vm_rt_faults_lo,vm_rt_faults_hi,vm_lookup_carriers_lo,vm_lookup_carriers_hi,vm_rt_carriers_lo,vm_rt_carriers_hi,vm_ratio_lo,vm_ratio_hi"
{
    echo "$header,$runs"
    echo "ints,1000,100,100,250,250,10,12,0,0,0,0,0,0,0.8,0.7,3,100,100,250,250,12,12,0,0,0,0,0,0,0.7,0.7"
    echo "ints,2000,100,100,500,250,10,12,0,0,0,0,0,0,1.2,0.7,3,100,100,250,500,12,12,0,0,0,0,0,0,0.6,1.3"
    echo "ints,3000,100,100,250,250,10,12,0,0,5,0,0,0,0.8,0.7,3,100,100,250,250,12,12,0,0,0,10,0,0,0.7,0.7"
    echo "ints,4000,120,100,250,250,10,12,0,0,0,0,0,0,0.8,0.7,3,100,100,250,250,12,12,0,0,0,0,0,0,0.7,0.7"
} >"$tmp/runs.csv"
"$beam/sweep.sh" --summary "$tmp/runs.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && grep -q 'GCs within 3%.* 2 of 4$' "$tmp/out" && grep -q "side of the round trip.*: 3 of 4 (the model.s ratio by its C code.s time)$" "$tmp/out"
ok=$?; check "summary of runs: against the median (exit $rc): $(cat "$tmp/out" "$tmp/err")" $ok
grep -A1 '^the VM against itself' "$tmp/out" | grep -q '^  GCs 3, faults 4, carriers 3 of 4; same side 3 of 4$'
ok=$?; check "summary of runs: the VM against itself: $(grep -A1 '^the VM against itself' "$tmp/out")" $ok
grep -A1 '^the model inside the range' "$tmp/out" | grep -q '^  GCs 3, faults 4, carriers 4 of 4$'
ok=$?; check "summary of runs: the model inside the runs: $(grep -A1 '^the model inside' "$tmp/out")" $ok
! grep -q 'against itself' <("$beam/sweep.sh" --summary "$tmp/sweep.csv"); check "summary of one run: no line on runs" $?

"$beam/sweep.sh" --bogus >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; check "sweep.sh unknown option: exit $rc" $?
"$beam/sweep.sh" --iterations 0 >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; check "sweep.sh --iterations 0: exit $rc" $?
"$beam/sweep.sh" --rounds x >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; check "sweep.sh --rounds x: exit $rc" $?
"$beam/sweep.sh" --summary "$tmp/none.csv" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; check "sweep.sh --summary of a missing file: exit $rc" $?
"$beam/sweep.sh" --help | grep -q -- '--summary FILE'; check "sweep.sh --help" $?

"$beam/bands.sh" --from x >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; check "bands.sh --from x: exit $rc" $?
"$beam/bands.sh" --sweep "$tmp/none.csv" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; check "bands.sh without a sweep: exit $rc" $?
"$beam/bands.sh" --help | grep -q -- 'edge_vm'; check "bands.sh --help" $?
if command -v erl >/dev/null 2>&1 && [ -x "$1/experiments/eptest" ]; then
    "$beam/bands.sh" --sweep "$tmp/sweep.csv" --bin "$1/experiments" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] && grep -q '^interval *edge_vm *edge_model *difference_pct' "$tmp/out"
    ok=$?; check "bands.sh with no edge: exit $rc, $(cat "$tmp/out" "$tmp/err")" "$ok"
else
    echo "cli_sweep: erl or eptest missing: bands.sh not run"
fi

# --model-only: the model's side bisected anew (no erl), the VM's edges read from a bands CSV.
# The model's lookup loop changes band between L = 2000 and 2250 (142 -> 101 GCs per 1000
# lookups, the faults of fresh carriers appear): its edge, found by eptest at the midpoints.
if [ -x "$1/experiments/eptest" ]; then
    {
        echo "$header"
        echo "ints,2000,142,145,205,202,166,9,0,0,1,1,0,0,0.6,1.1"
        echo "ints,2250,101,100,253,253,2856,2895,0,10,99,99,0,0,2.0,1.2"
    } >"$tmp/edge.csv"
    printf '# date: 2026-01-01T00:00:00Z\ninterval,edge_vm,edge_model,difference_pct\n2000..2250,2209,1,-99.95\n' >"$tmp/bands.csv"
    "$beam/bands.sh" --model-only "$tmp/bands.csv" --sweep "$tmp/edge.csv" --bin "$1/experiments" --csv "$tmp/now.csv" >/dev/null 2>"$tmp/err"
    rc=$?
    model=$(awk -F, '$1 == "2000..2250" { print $2 "," $3 }' "$tmp/now.csv")
    [ "$rc" -eq 0 ] && [ "${model%%,*}" = 2209 ] && [ "${model#*,}" -gt 2000 ] && [ "${model#*,}" -le 2250 ] &&
        grep -q '^# edge_vm: as measured in' "$tmp/now.csv"
    ok=$?; check "bands.sh --model-only: the VM's edge kept, the model's bisected in its interval (exit $rc, $model, $(tail -n 2 "$tmp/err"))" $ok
fi

# --remodel: the VM's columns kept, the model's run again with a policy field changed (its
# columns then those of eptest --set at the same point), and a '# remodel:' line.
if [ -x "$1/experiments/eptest" ]; then
    { echo "# experiment: hand-made"; echo "# model_sources: 0123456789abcdef (a stamp the remodelled file must not keep)"; echo "$header"
      echo "ints,300,1,2,3,4,5,6,7,8,9,10,11,12,0.5,0.6"
      echo "tuple,1000,1,2,3,4,5,6,7,8,9,10,11,12,0.5,0.6"; } >"$tmp/re.csv"
    "$beam/sweep.sh" --remodel "$tmp/re.csv" --set gc_trigger=schedule --bin "$1/experiments" --out "$tmp/re-out.csv" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    "$1/experiments/eptest" --era otp25 --shape tuple --len 1000 --iterations 1000 --repeats 1 --set gc_trigger=schedule --csv "$tmp/ep.csv" >/dev/null
    want=$(awk -F, '$1 == "ets_lookup" { printf "%.1f", $9 }' "$tmp/ep.csv")
    got=$(awk -F, '$1 == "tuple" { print $3 "," $4 "," $6 "," $8 "," $16 }' "$tmp/re-out.csv")
    [ "$rc" -eq 0 ] && [ "$got" = "$want,2,4,6,0.6" ] && grep -q '^# remodel: .*--set gc_trigger=schedule' "$tmp/re-out.csv" && ! grep -q '^# model_sources:' "$tmp/re-out.csv" &&
        grep -q '^sweep summary (2 points):$' "$tmp/out" && [ "$(grep -vc '^#' "$tmp/re-out.csv")" -eq 3 ]
    ok=$?; check "sweep.sh --remodel: model columns from eptest --set ($got; eptest: $want), the VM's kept (exit $rc, $(tail -n 1 "$tmp/err"))" $ok
    # --remodel --prices: the priced ratio added as a column (eptest --prices's, lookup over the
    # median of proc1..3) with a '# prices:' line; a later remodel keeps the file's prices. No
    # fault price: the model's page faults move a little from run to run, its other counts not.
    hdr="shape,payload_len,loop,fixed_ns,word_ns,gc_minor_ns,gc_major_ns,gc_word_ns,gc_move_word_ns,gc_dirty_ns,gc_long_ns,gc_long_gcs,fault_ns,carrier_ns,carrier_dirty_ns,sleep_ns,fixed_sleeps,dirty_sleeps"
    { echo "# date: hand-made"; echo "$hdr"
      echo "ints,300,rt,900,1,500,900,2,1,0,0,0,0,0,0,0,0,0"
      echo "ints,300,lookup,50,1,500,900,2,2,0,0,0,0,0,0,0,0,0"
      echo "tuple,1000,rt,1000,1,500,900,2,1,0,0,0,0,0,0,0,0,0"
      echo "tuple,1000,lookup,60,1,500,900,2,2,0,0,0,0,0,0,0,0,0"; } >"$tmp/prices.csv"
    "$beam/sweep.sh" --remodel "$tmp/re.csv" --prices "$tmp/prices.csv" --bin "$1/experiments" --out "$tmp/pr-out.csv" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    "$1/experiments/eptest" --era otp25 --shape tuple --len 1000 --iterations 1000 --repeats 1 --prices "$tmp/prices.csv" --csv "$tmp/ep.csv" >/dev/null
    want=$(awk -F, '$1 ~ /^proc/ { p[++n] = $17 } $1 == "ets_lookup" { l = $17 }
                    END { if (p[1] > p[2]) { t = p[1]; p[1] = p[2]; p[2] = t } if (p[2] > p[3]) { t = p[2]; p[2] = p[3]; p[3] = t }
                          if (p[1] > p[2]) { t = p[1]; p[1] = p[2]; p[2] = t } printf "%.3f", l / p[2] }' "$tmp/ep.csv")
    got=$(awk "$(cat "$here/../report/csv.awk")"'!csv_row() { next } csv_get("shape") == "tuple" { print csv_get("model_priced_ratio") }' "$tmp/pr-out.csv")
    [ "$rc" -eq 0 ] && [ -n "$got" ] && [ "$got" = "$want" ] && grep -q "^# prices: $tmp/prices.csv (measured hand-made" "$tmp/pr-out.csv" &&
        grep -q "priced at the VM's prices" "$tmp/out"
    ok=$?; check "sweep.sh --remodel --prices: model_priced_ratio $got (eptest --prices: $want), exit $rc, $(tail -n 1 "$tmp/err")" $ok
    "$beam/sweep.sh" --remodel "$tmp/pr-out.csv" --set gc_trigger=schedule --bin "$1/experiments" --out "$tmp/pr2.csv" >/dev/null 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 0 ] && [ "$(grep -c '^# prices:' "$tmp/pr2.csv")" -eq 1 ] && [ "$(grep -v '^#' "$tmp/pr2.csv" | head -n 1 | tr , '\n' | grep -c '^model_priced_ratio$')" -eq 1 ]
    ok=$?; check "sweep.sh --remodel of a priced sweep keeps its prices, one column (exit $rc, $(tail -n 1 "$tmp/err"))" $ok
    "$beam/sweep.sh" --remodel "$tmp/re.csv" --prices "$tmp/none.csv" --bin "$1/experiments" --out "$tmp/x.csv" >/dev/null 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; check "sweep.sh --prices of no file: exit $rc, one line" $?
    for bad in "--remodel $tmp/re.csv --out $tmp/x.csv" "--remodel $tmp/re.csv --set gc_trigger=schedule" \
        "--remodel $tmp/re.csv --set nosuchfield=1 --out $tmp/x.csv" "--set bogus" "--remodel $tmp/none.csv --set gc_trigger=schedule --out $tmp/x.csv"; do
        # shellcheck disable=SC2086 # the options are words
        "$beam/sweep.sh" --bin "$1/experiments" $bad >/dev/null 2>"$tmp/err"
        rc=$?
        [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -e "$tmp/x.csv" ]
        ok=$?; check "sweep.sh $bad: exit $rc, $(cat "$tmp/err")" $ok
    done
fi

echo "cli_sweep: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
