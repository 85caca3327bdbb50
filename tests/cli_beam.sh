#!/usr/bin/env bash
# experiments/beam on the real VM: run.sh --tiny writes every CSV with its header and rows of
# the right width, and eptest prints the seed's line. No erl: a note and exit 77 (skipped).
# fidelity.sh alternates the model's eptest ($1/experiments/eptest) with the VM's, at the points
# given, and with --vm-variants records the VM's hot-key and lookup_element passes.
# $1: build directory root; $2: tests/data (unused).
set -u
here=$(cd "$(dirname "$0")" && pwd)
run="$here/../experiments/beam/run.sh"
lib=$(cat "$here/../report/csv.awk") # columns by name
if ! command -v erl >/dev/null 2>&1; then
    echo "erl not found: skipping the real-VM runs; apt-get install erlang-nox"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }

out=$(timeout 300 bash "$run" --tiny --build "$tmp/build" "$tmp/results" 2>"$tmp/stderr")
rc=$?
check "run.sh --tiny: rc $rc ($(tail -n 3 "$tmp/stderr" | tr '\n' ' '))" $rc

# csv FILE HEADER MIN_ROWS: metadata first, then the header, then rows as wide as the header.
csv() {
    local f="$1" header="$2" min="$3"
    [ -s "$f" ]; ok=$?; check "$(basename "$f") exists" "$ok" || return
    # one run's flags, or (eptest_all.csv) each merged source's
    grep -qE '^# (emulator_flags|source: [^:]*): -noshell \+S ' "$f"; ok=$?; check "$(basename "$f"): emulator flags recorded" "$ok"
    [ "$(grep -v '^#' "$f" | head -n 1)" = "$header" ]; ok=$?; check "$(basename "$f"): header" "$ok"
    local rows width bad
    width=$(echo "$header" | awk -F, '{print NF}')
    rows=$(grep -v '^#' "$f" | tail -n +2 | wc -l)
    [ "$rows" -ge "$min" ]; ok=$?; check "$(basename "$f"): $rows rows, at least $min" "$ok"
    bad=$(grep -v '^#' "$f" | tail -n +2 | awk -F, -v w="$width" 'NF != w' | wc -l)
    [ "$bad" -eq 0 ]; ok=$?; check "$(basename "$f"): $bad rows not $width columns wide" "$ok"
    awk 'f && /^#/ {bad = 1} !/^#/ {f = 1} END {exit bad}' "$f"; ok=$?; check "$(basename "$f"): metadata only before the header" "$ok"
}

ep="test,shape,payload_len,iterations,era,median_us,iqr_us,faults,gcs,gc_words_copied,words_copied,fragments,carriers_mapped,switches,io_polls"
for f in "$tmp"/results/eptest_*.csv; do
    case "$f" in
    *_all.csv) csv "$f" "$ep" 40 ;;
    *_min_heap.csv|*_off_heap.csv|*_s1.csv|*_sbct2048.csv) csv "$f" "$ep" 7 ;;
    *) csv "$f" "$ep" 9 ;;
    esac
done
n=$(find "$tmp/results" -name 'eptest_*.csv' | wc -l)
[ "$n" -ge 10 ]; check "$n eptest CSVs, expected at least 10" $?
csv "$tmp/results/crossover.csv" "shape,payload_len,iterations,era,proc_us,lookup_us,ratio" 18
csv "$tmp/results/crossover_points.csv" "shape,era,first_crossover_len,stable_crossover_len" 6
csv "$tmp/results/crossover_counts.csv" "shape,payload_len,iterations,era,proc_faults,proc_carriers_mapped,proc_gcs,lookup_faults,lookup_carriers_mapped,lookup_gcs" 18
csv "$tmp/results/etsbench.csv" "lock_mode,threads,op,ops_per_s,ns_per_op,lock_ns,faults" 32
# each run in a VM of its own (--fresh): every insert phase writes fresh pages, at least the
# heap pages its {I, hello} tuples fill (3 words each, the machine's page size) but the two
# at the ends, which the spawn may have written; in one VM the later modes' inserts find their
# heap in the mseg cache, written already, and fault a handful
grep -q '^# vms: --fresh' "$tmp/results/etsbench.csv"; check "etsbench.csv: says each run had a VM of its own" $?
n=$(sed -n 's/^# objects: N = \([0-9]*\) .*/\1/p' "$tmp/results/etsbench.csv")
wpp=$(($(getconf PAGESIZE) / 8))
awk "$lib"'!csv_row() { next } csv_get("op") == "insert" { n++; if (csv_get("faults") + 0 < 3 * N / W - 2) bad = 1 }
    END { exit bad || n < 7 }' N="${n:-0}" W="$wpp" "$tmp/results/etsbench.csv"
check "etsbench: every insert phase faulted at least 3N/$wpp - 2 pages (N = ${n:-?})" $?
# the table-size runs take inserts and lookups only (etsbench.erl --lookup-only)
awk "$lib"'!csv_row() { next } { ops[csv_get("op")] = 1 } END { for (o in ops) if (o !~ /^(insert|lookup|put|get)$/) exit 1; exit !("lookup" in ops && "get" in ops) }' \
    "$tmp/results/etsbench_sizes.csv"
check "etsbench_sizes.csv: insert, lookup, put and get only" $?
for op in insert lookup update update_counter; do
    grep -q "^compressed,1,$op," "$tmp/results/etsbench.csv"; check "etsbench: the compressed table's $op" $?
done

# Test names and era as the model's eptest writes them, the 7.5 variants under their own names.
all="$tmp/results/eptest_all.csv"
for t in proc1 proc2 proc3 ets_insert ets_overwrite ets_lookup ets_lookup_hot_key ets_lookup_element empty \
         ets_lookup_min_heap ets_lookup_sbct2048 proc1_s1 proc1_off_heap; do
    grep -q "^$t,ints,[0-9]*,50,vm-otp25," "$all"; check "eptest row $t" $?
done
awk "$lib"'!csv_row() { next } csv_get("median_us") !~ /^[0-9.]+$/ || csv_get("faults") !~ /^[0-9]+$/ { bad = 1 } END { exit bad }' "$all"
check "median_us and faults are numbers" $?

line='^[a-z0-9_]+ +\[\{proc,\{[0-9]+,[0-9]+,[0-9]+\}\},\{ets,\{[0-9]+,[0-9]+,[0-9]+\}\},\{empty,[0-9]+\}\]$'
lines=$(echo "$out" | grep -cE "$line")
[ "$lines" -ge 8 ]; check "$lines seed lines on stdout, expected at least 8" $?

# fidelity.sh: model and VM alternated, one row per round, length and side, ratio = lookup/proc.
fid="$here/../experiments/beam/fidelity.sh"
model="$1/experiments/eptest"
if [ -x "$model" ]; then
    timeout 300 bash "$fid" --rounds 2 --repeats 1 --lens "100 300" --iterations 20 "$model" "$tmp/fid.csv" 2>"$tmp/fid.err"
    ok=$?; check "fidelity.sh runs: rc $ok ($(tail -n 2 "$tmp/fid.err" | tr '\n' ' '))" "$ok"
    fidh="round,shape,payload_len,source,proc_us,lookup_us,ratio,lookup_gcs,lookup_faults,lookup_carriers,proc_gcs,proc_faults,hot_key_gcs,hot_key_faults,hot_key_us,element_us"
    csv "$tmp/fid.csv" "$fidh" 8
    for side in model vm; do
        [ "$(grep -cE "^[12],ints,(100|300),$side," "$tmp/fid.csv")" -eq 4 ]; check "fidelity.csv: 2 rounds x 2 lengths of $side" $?
    done
    grep -q '^# load: the 1-minute load average at each point: min [0-9.]*, median [0-9.]*, max [0-9.]* (4 points)' "$tmp/fid.csv"
    check "fidelity.csv: the load at each point, summarised" $?
    # the points in the order given, shapes mixed; the VM's two lookup variants in its rows only
    timeout 300 bash "$fid" --rounds 1 --iterations 20 --vm-variants --points "tuple:100 ints:100" "$model" "$tmp/fidp.csv" 2>"$tmp/fid.err"
    ok=$?; check "fidelity.sh --points --vm-variants runs: rc $ok ($(tail -n 2 "$tmp/fid.err" | tr '\n' ' '))" "$ok"
    csv "$tmp/fidp.csv" "$fidh" 4
    [ "$(grep -v '^#' "$tmp/fidp.csv" | tail -n +2 | cut -d, -f2,4 | tr '\n' ' ')" = "tuple,model tuple,vm ints,model ints,vm " ]
    check "fidelity.sh --points: tuple then ints, model then VM at each" $?
    awk "$lib"'!csv_row() { next } { v = csv_get("source") == "vm"; h = csv_get("hot_key_us"); e = csv_get("element_us")
        if (v != (h ~ /^[0-9.]+$/ && e ~ /^[0-9.]+$/ && csv_get("hot_key_gcs") ~ /^[0-9]+$/)) bad = 1
        if (!v && (h != "" || e != "")) bad = 1 } END { exit bad }' "$tmp/fidp.csv"
    check "fidelity.sh --vm-variants: the VM rows have the hot key's and lookup_element's times, the model rows none" $?
    awk "$lib"'!csv_row() { next } { d = csv_get("lookup_us") / csv_get("proc_us") - csv_get("ratio"); if (d > 0.001 || d < -0.001) bad = 1 }
        END { exit bad }' "$tmp/fid.csv"
    check "fidelity.csv: ratio is lookup_us / proc_us" $?
    for bad in "--rounds 0" "--repeats x" "--bogus"; do
        # shellcheck disable=SC2086 # the flag and its value are two words
        bash "$fid" $bad "$model" "$tmp/x.csv" >/dev/null 2>&1; [ $? -eq 2 ]; check "fidelity.sh $bad exits 2" $?
    done
    bash "$fid" --lens "100 x" "$model" "$tmp/x.csv" >/dev/null 2>&1; [ $? -eq 2 ]; check "fidelity.sh --lens '100 x' exits 2" $?
    bash "$fid" --points "ints" "$model" "$tmp/x.csv" >/dev/null 2>&1; [ $? -eq 2 ]; check "fidelity.sh --points ints (no length) exits 2" $?
    bash "$fid" --points "cube:100" "$model" "$tmp/x.csv" >/dev/null 2>&1; [ $? -eq 2 ]; check "fidelity.sh --points cube:100 exits 2" $?
    bash "$fid" /nonexistent "$tmp/x.csv" >/dev/null 2>&1; [ $? -eq 2 ]; check "fidelity.sh with no model binary exits 2" $?
    [ ! -e "$tmp/x.csv" ]; check "fidelity.sh wrote nothing on bad input" $?
fi

# The tester's spawn: eptest.erl's main hands tester/2 literal lists, as gctrace.erl and the
# model's twin do; spawn copies a list built at run time onto the tester's heap, and the 12 words
# the passes' list added moved strings at L = 3000 from the model's lookup collections (143 per
# 1000) to 125 on the VM. One scheduler: no other normal scheduler can take the tester.
erl -noshell +S 1:1 -pa "$tmp/build" -s eptest main -extra --shape strings --len 3000 --repeats 1 \
    --csv "$tmp/s3000-vm.csv" >/dev/null 2>"$tmp/s3000.err"
rc=$?
"$1/experiments/eptest" --era otp25 --shape strings --len 3000 --iterations 1000 --repeats 1 --csv "$tmp/s3000-model.csv" >/dev/null
rc2=$?
vm=$(awk "$lib"'!csv_row() { next } csv_get("test") == "ets_lookup" { print csv_get("gcs") }' "$tmp/s3000-vm.csv")
mo=$(awk "$lib"'!csv_row() { next } csv_get("test") == "ets_lookup" { print csv_get("gcs") }' "$tmp/s3000-model.csv")
[ "$rc" -eq 0 ] && [ "$rc2" -eq 0 ] && [ -n "$vm" ] && [ "$vm" = "$mo" ]
ok=$?; check "strings L 3000, +S 1:1: the VM's lookup GCs ($vm) are the model's ($mo) (rc $rc, $rc2; $(head -c 200 "$tmp/s3000.err"))" $ok
grep -q '^# tester: spawn_opt(Fun, \[monitor\])' "$tmp/s3000-vm.csv"; check "eptest.erl's metadata names the tester's spawn" $?

# Usage errors exit 2; the build stayed out of the source tree.
erl -noshell -pa "$tmp/build" -s eptest main -extra --shape cube >/dev/null 2>&1; [ $? -eq 2 ]
check "eptest --shape cube exits 2" $?
for bad in "--modes hash" "--modes ,"; do
    # shellcheck disable=SC2086 # the flag and its value
    erl -noshell -pa "$tmp/build" -s etsbench main -extra $bad >/dev/null 2>"$tmp/modes.err"; [ $? -eq 2 ] &&
        grep -q -- '--modes' "$tmp/modes.err"
    check "etsbench $bad exits 2 naming --modes" $?
done
bash "$run" --bogus >/dev/null 2>&1; [ $? -eq 2 ]; check "run.sh --bogus exits 2" $?
bash "$run" --ets-repeats 0 >/dev/null 2>&1; [ $? -eq 2 ]; check "run.sh --ets-repeats 0 exits 2" $?
[ -z "$(ls "$here"/../experiments/beam/*.beam 2>/dev/null)" ]; check "no .beam in the source tree" $?

echo "cli_beam: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
