#!/usr/bin/env bash
# eptest from the outside: the seed's line, the CSV's shape, both eras, bad flags -> exit 2.
# $1: build directory root (eptest is in experiments/); $2: tests/data (unused).
set -u
bin="$1/experiments/eptest"
lib=$(cat "$(dirname "$0")/../report/csv.awk")
# field FILE TEST COLUMN: COLUMN of FILE's row for TEST, by the column's name (report/csv.awk).
field() { awk -v t="$2" -v c="$3" "$lib"'!csv_row() { next } csv_get("test") == t { print csv_get(c) }' "$1"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }
line='^\[\{proc,\{[0-9]+,[0-9]+,[0-9]+\}\},\{ets,\{[0-9]+,[0-9]+,[0-9]+\}\},\{empty,[0-9]+\}\]$'

for era in r10b otp25; do
    for shape in ints floats tuple nested strings binary map; do
        out=$("$bin" --era "$era" --shape "$shape" --len 300 --iterations 40 --repeats 1 --verify --csv "$tmp/$era-$shape.csv")
        rc=$?
        [ $rc -eq 0 ] && [[ "$out" =~ $line ]]; check "$era $shape: rc $rc, line '$out'" $?
        rows=$(grep -vc '^#' "$tmp/$era-$shape.csv")
        [ "$rows" -eq 9 ]; check "$era $shape: csv has $rows lines (header + 8 tests, pt_get the last)" $?
        head -n 14 "$tmp/$era-$shape.csv" | grep -q "^# era: $era (heap_table="; check "$era $shape: era metadata" $?
        # The lookup moved exactly iterations x (flat size + 2) words: one copy per lookup.
        grep -q "^ets_lookup,$shape,300,40,$era," "$tmp/$era-$shape.csv"; check "$era $shape: lookup row" $?
    done
done
# OTP 25's pass also holds two marks' 3-word messages (eptest.erl's meter reads the counters)
words=$(field "$tmp/otp25-ints.csv" ets_lookup words_copied)
[ "$words" = $((40 * (603 + 2) + 6)) ]; check "otp25 ints lookups wrote $words words, expected 40 x ({I, Data} 603 + the list cell 2) + the marks' 6" $?
# tester_gcs is the tester's own share of gcs: all of it outside the round trips (no other
# process runs), and at L = 1000 under R10B rules the server collects too (its heap grows to
# hold Data, then stays), so the proc passes' gcs are larger than the tester's.
"$bin" --era r10b --len 1000 --iterations 100 --repeats 1 --csv "$tmp/tg.csv" >/dev/null
awk "$lib"'!csv_row() { next } { t = csv_get("test"); g = csv_get("gcs") + 0; m = csv_get("tester_gcs") + 0
    if (m > g || (t !~ /^proc/ && m != g)) bad = 1; if (t ~ /^proc/) { pg += g; pm += m } }
    END { exit (bad || pm >= pg || pm == 0) }' "$tmp/tg.csv"
check "tester_gcs: the tester's share of gcs (the server's GCs only in the proc passes)" $?
words=$(field "$tmp/r10b-ints.csv" proc1 words_copied)
[ "$words" = $((40 * (600 + 3 + 3))) ]; check "r10b round trips wrote $words words, expected 40 x (3 + 603)" $?

"$bin" --bogus >/dev/null 2>&1; [ $? -eq 2 ]; check "unknown flag exits 2" $?
"$bin" --len 0 >/dev/null 2>&1; [ $? -eq 2 ]; check "--len 0 exits 2" $?
"$bin" --era r9 >/dev/null 2>&1; [ $? -eq 2 ]; check "unknown era exits 2" $?
"$bin" --shape cube >/dev/null 2>&1; [ $? -eq 2 ]; check "unknown shape exits 2" $?
"$bin" --len 10 --iterations 5 --repeats 1 --csv /nonexistent/dir/x.csv >/dev/null 2>&1; [ $? -eq 2 ]; check "unwritable csv exits 2" $?
"$bin" --help | grep -q -- '--set NAME=VALUE'; check "--help lists --set" $?
"$bin" --copy-out deep >/dev/null 2>&1; [ $? -eq 2 ]; check "unknown --copy-out exits 2" $?
"$bin" --set copy_out=deep >/dev/null 2>&1; [ $? -eq 2 ]; check "unknown --set copy_out exits 2" $?

# The proposal copy_shallow_fast moves only time: every model count of every test is the same
# as with copy_shallow (GCs, GC words, words copied, fragments, carriers), shape by shape.
for shape in ints floats nested binary; do
    for c in shallow shallow_fast; do
        "$bin" --era otp25 --shape "$shape" --len 3000 --iterations 60 --repeats 1 --verify --copy-out "$c" \
            --csv "$tmp/co-$c.csv" >/dev/null 2>"$tmp/co-$c.err"
        rc=$?
        check "--copy-out $c $shape: rc $rc" "$rc"
    done
    grep -q "PROPOSAL, not the VM" "$tmp/co-shallow_fast.err"; check "--copy-out shallow_fast says it is a proposal" $?
    grep -q "^# era: .*copy_out=shallow_fast: a PROPOSAL, not the VM" "$tmp/co-shallow_fast.csv"
    check "--copy-out shallow_fast: the era metadata says it is a proposal" $?
    for t in ets_lookup proc1 ets_insert; do
        for col in gcs gc_words_copied words_copied fragments carriers_mapped; do
            a=$(field "$tmp/co-shallow.csv" "$t" "$col") b=$(field "$tmp/co-shallow_fast.csv" "$t" "$col")
            [ -n "$a" ] && [ "$a" = "$b" ]; check "$shape $t $col: shallow $a, shallow_fast $b" $?
        done
    done
done

# --prices: each proc pass and the lookup priced at the VM's prices of the shape's nearest length
# (scenarios/account.h), the other passes n/a. Prices with a fixed cost, a word price and a
# fault price alone make the priced time N x (fixed + words x word) + faults x fault.
hdr="shape,payload_len,loop,fixed_ns,word_ns,gc_minor_ns,gc_major_ns,gc_word_ns,gc_move_word_ns,gc_dirty_ns,gc_long_ns,gc_long_gcs,fault_ns,carrier_ns,carrier_dirty_ns,sleep_ns,fixed_sleeps,dirty_sleeps"
{
    echo "# date: hand-made"
    echo "$hdr"
    echo "ints,100,rt,1000,1,0,0,0,0,0,0,0,1000,0,0,0,0,0"
    echo "ints,100,lookup,50,2,0,0,0,0,0,0,0,3000,0,0,0,0,0"
    echo "ints,30000,rt,9999,9,9,9,9,9,9,9,0,9,9,9,9,0,0"
    echo "ints,30000,lookup,9999,9,9,9,9,9,9,9,0,9,9,9,9,0,0"
} >"$tmp/prices.csv"
out=$("$bin" --shape ints --len 120 --iterations 100 --repeats 1 --prices "$tmp/prices.csv" --csv "$tmp/priced.csv" 2>"$tmp/priced.err")
ok=$?; check "--prices: runs ($(cat "$tmp/priced.err"))" $ok
grep -q "^# prices: $tmp/prices.csv at payload_len 100 " "$tmp/priced.csv"; check "--prices: the metadata names the file and the length used (100, the nearest to 120)" $?
for t in proc1 proc2 proc3 ets_lookup; do
    f=$(field "$tmp/priced.csv" "$t" faults) got=$(field "$tmp/priced.csv" "$t" priced_us)
    if [ "$t" = ets_lookup ]; then want=$(awk -v f="$f" 'BEGIN { printf "%.1f", (100 * (50 + 240 * 2) + f * 3000) / 1000 }')
    else want=$(awk -v f="$f" 'BEGIN { printf "%.1f", (100 * (1000 + 240 * 1) + f * 1000) / 1000 }'); fi
    [ -n "$got" ] && [ "$got" = "$want" ]; check "--prices: $t priced $got us, expected $want (faults $f)" $?
done
for t in ets_insert ets_overwrite empty; do
    [ "$(field "$tmp/priced.csv" "$t" priced_us)" = n/a ]; check "--prices: $t is not priced" $?
done
grep -q "^priced at the VM's prices ($tmp/prices.csv, payload_len 100): proc {" <<<"$out"; check "--prices: the priced line on stdout" $?
"$bin" --shape ints --len 100 --iterations 10 --repeats 1 --csv "$tmp/unpriced.csv" >/dev/null 2>&1
[ "$(field "$tmp/unpriced.csv" proc1 priced_us)" = n/a ] && grep -q '^# prices: none' "$tmp/unpriced.csv"
check "without --prices: priced_us n/a and the metadata says so" $?
for bad in "/nonexistent/prices.csv" "$tmp/priced.csv"; do
    "$bin" --shape ints --len 100 --iterations 10 --repeats 1 --prices "$bad" >/dev/null 2>"$tmp/bad.err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/bad.err")" -eq 1 ] && grep -q "not a prices CSV" "$tmp/bad.err"
    ok=$?; check "--prices $bad: exit 2 ($rc), one line: $(head -c 200 "$tmp/bad.err")" $ok
done
"$bin" --shape tuple --len 100 --iterations 10 --repeats 1 --prices "$tmp/prices.csv" >/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc -eq 2 ] && grep -q "no prices for this shape" "$tmp/bad.err"; ok=$?; check "--prices without the shape's rows: exit 2 ($rc): $(cat "$tmp/bad.err")" $ok

echo "cli_eptest: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
