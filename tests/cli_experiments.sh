#!/usr/bin/env bash
# ablate and crossover from the outside: their tables and CSVs have the promised shape, and
# bad input exits 2. (Their numbers are figures, not test results: nothing here times them.)
# $1: build directory root (binaries in experiments/); $2: tests/data (unused).
set -u
dir="$1/experiments"
lib=$(cat "$(dirname "$0")/../report/csv.awk") # columns by name
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }

"$dir/ablate" --quick --len 300 --iterations 30 --csv "$tmp/ablate.csv" > "$tmp/ablate.txt"
check "ablate --quick runs (exit $?)" $?
rows=$(grep -vc '^#' "$tmp/ablate.csv")
# every preset of the policy table (its '# era_' lines, less the columns not yet filled)
eras=$("$dir/eptest" --list-policy --csv - | grep '^# era_' | grep -vc 'not a preset')
[ "$eras" -ge 2 ]; check "the policy table lists the presets ($eras)" $?
[ "$rows" -eq $((1 + 13 * eras)) ]; check "ablate csv: header + 13 variants x $eras eras, got $rows lines" $?
head -1 "$tmp/ablate.txt" | grep -q 'ratio'; check "ablate prints a table" $?
for a in baseline gc_trigger no_shrink fresh_pages sbct_2mib min_heap_200k keep_result hot_key send_path \
    word_gc_test no_long_gc_delay proposal_shallow_fast; do
    [ "$(grep -c ",$a,ints,300,30," "$tmp/ablate.csv")" -eq "$eras" ]; check "ablate csv has $a for every era" $?
done
awk "$lib"'!csv_row() { next } { if (csv_get("ratio") <= 0 || csv_get("proc_us") <= 0 || csv_get("lookup_us") <= 0) bad = 1 }
    END { exit bad }' "$tmp/ablate.csv"
check "ablate ratios and times are positive" $?
# --prices: each era at its own length's prices (r10b at 1000, otp25 at 10000): with a fixed
# price alone, a pass of N calls is priced N x fixed
{ echo "# date: hand-made"
  echo "shape,payload_len,loop,fixed_ns,word_ns,gc_minor_ns,gc_major_ns,gc_word_ns,gc_move_word_ns,gc_dirty_ns,gc_long_ns,gc_long_gcs,fault_ns,carrier_ns,carrier_dirty_ns,sleep_ns,fixed_sleeps,dirty_sleeps"
  echo "ints,1000,rt,1000,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
  echo "ints,1000,lookup,100,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
  echo "ints,10000,rt,2000,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
  echo "ints,10000,lookup,300,0,0,0,0,0,0,0,0,0,0,0,0,0,0"; } >"$tmp/prices.csv"
"$dir/ablate" --quick --iterations 10 --prices "$tmp/prices.csv" --csv "$tmp/abp.csv" >/dev/null 2>"$tmp/abp.err"
ok=$?; check "ablate --prices runs ($(head -c 200 "$tmp/abp.err"))" $ok
got=$(awk "$lib"'!csv_row() { next } csv_get("ablation") == "baseline" { printf "%s:%s:%s:%s ", csv_get("era"), csv_get("payload_len"), csv_get("priced_proc_us"), csv_get("priced_lookup_us") }' "$tmp/abp.csv")
[ "$got" = "r10b:1000:10.0:1.0 r13b:1000:10.0:1.0 otp25:10000:20.0:3.0 " ]; check "ablate --prices: each era at its own length's prices (got '$got')" $?
grep -q '^# prices: .*each era at its nearest priced payload_len (r10b 1000, r13b 1000, otp25 10000;' "$tmp/abp.csv"
check "ablate --prices: the metadata names each era's priced length" $?

"$dir/crossover" --quick --shape ints --era otp25 --csv "$tmp/cross.csv" --summary "$tmp/sum.csv" > /dev/null
check "crossover --quick runs (exit $?)" $?
grep -q '^shape,payload_len,iterations,era,proc_us,lookup_us,ratio,model_exec_ratio,prices_len,priced_proc_us,priced_lookup_us$' "$tmp/cross.csv"; check "crossover csv header" $?
[ "$(grep -c '^ints,[0-9]*,[0-9]*,otp25,' "$tmp/cross.csv")" -eq 6 ]; check "crossover: 6 grid points in --quick" $?
grep -Eq '^ints,otp25,([0-9]+|none),' "$tmp/sum.csv"; check "crossover summary row" $?
# Calls per point follow experiments/beam/crossover.erl: min(cap, max(20, 2,000,000 words /
# flat size of {I, Data})); --quick caps at 200. Floats take 4 words per element.
grep -q '^ints,1000,200,' "$tmp/cross.csv"; check "crossover: ints L=1000 runs the cap (200 calls)" $?
grep -q '^ints,10000,99,' "$tmp/cross.csv"; check "crossover: ints L=10000 runs 2,000,000 / 20,003 = 99 calls" $?
grep -q '^ints,30000,33,' "$tmp/cross.csv"; check "crossover: ints L=30000 runs 33 calls" $?
"$dir/crossover" --quick --shape floats --era otp25 --csv "$tmp/cross-f.csv" > /dev/null
check "crossover --quick --shape floats runs (exit $?)" $?
grep -q '^floats,3000,166,' "$tmp/cross-f.csv"; check "crossover: floats L=3000 runs 2,000,000 / 12,003 = 166 calls" $?
grep -q '^floats,30000,20,' "$tmp/cross-f.csv"; check "crossover: floats L=30000 runs the floor (20 calls)" $?

"$dir/breakdown" --quick --era otp25 --len 300 --iterations 30 --csv "$tmp/bd.csv" > "$tmp/bd.txt"
check "breakdown --quick runs (exit $?)" $?
[ "$(grep -c '^otp25,' "$tmp/bd.csv")" -eq 72 ]; check "breakdown: 8 tests x 9 phases (vm_overhead 0 without --vm-overhead)" $?
awk "$lib"'!csv_row() { next } csv_get("era") == "otp25" { s[csv_get("test")] += csv_get("counter_share") }
    END { for (t in s) if (s[t] < 0.99 || s[t] > 1.01) bad = 1; exit bad }' "$tmp/bd.csv"
check "breakdown: counter shares of each test sum to 1" $?
grep -q '^# unit_costs: otp25: size' "$tmp/bd.csv"; check "breakdown: unit costs in the metadata" $?

for bin in ablate crossover breakdown; do
    "$dir/$bin" --bogus >/dev/null 2>&1; [ $? -eq 2 ]; check "$bin: unknown flag exits 2" $?
    "$dir/$bin" --era r9 >/dev/null 2>&1; [ $? -eq 2 ]; check "$bin: bad era exits 2" $?
    "$dir/$bin" --quick --csv /nonexistent/x.csv >/dev/null 2>&1; [ $? -eq 2 ]; check "$bin: unwritable csv exits 2" $?
    "$dir/$bin" --help | grep -q usage; check "$bin --help" $?
done

echo "cli_experiments: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
