#!/usr/bin/env bash
# The report pipeline's CSV reader and round trip from the outside: report/csv.awk finds a
# column by its header name in a CSV with '#' lines (among the rows too) and quoted fields; a
# missing column, an empty CSV, a header with no rows or a ragged row fails, naming the file
# and the column, before the program's own END runs; report/csv.sh does the same from the
# shell; report/stats.awk's round_trip is the median of the proc1..3 rows whatever their order,
# and a missing pass fails; median_ci is the order-statistic 95 % interval of a median.
# $1: build directory root (unused); $2: tests/data.
set -u
data=$(cd "$2" && pwd)
top=$(cd "$data/../.." && pwd)
csv="$top/report/csv.sh"
lib="$(cat "$top/report/csv.awk")"
stats="$lib
$(cat "$top/report/stats.awk")"
fix="$data/report/pipeline.csv"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }

# ---- a column by name ---------------------------------------------------------------------
out=$(awk "$lib"'!csv_row() { next } csv_get("payload_len") == 1000 { printf "%s ", csv_get("median_us") } END { print NR }' "$fix")
[ "$out" = "50.0 20.0 30.0 10.0 12" ]; check "csv.awk: median_us by name, past the '#' lines ('$out')" $?
out=$(awk "$lib"'!csv_row() { next } { n++ } END { print n, csv_rows[FILENAME], csv_ncols[FILENAME] }' "$fix")
[ "$out" = "8 8 8" ]; check "csv.awk: 8 rows of 8 columns, the header and '#' lines not rows ('$out')" $?
out=$(awk "$lib"'!csv_row() { next } csv_get("test") == "proc1" && csv_file == 1 { print csv_get("note"); exit }' csv_inputs=0 "$fix")
[ "$out" = 'a "quoted" word' ]; check "csv.awk: a quoted field ('$out')" $?
out=$("$csv" column "$fix" note | head -n 1)
[ "$out" = "lookup, a note with a comma" ]; check "csv.sh column: a quoted field with a comma ('$out')" $?
out=$("$csv" column "$fix" faults | tr '\n' ' ')
[ "$out" = "7 4 9 1 0 0 0 0 " ]; check "csv.sh column: faults by name ('$out')" $?
out=$("$csv" meta "$fix" policy)
[ "$out" = "otp25 trigger=after-bif sbct=524288" ]; check "csv.sh meta: the '# policy:' text ('$out')" $?
"$csv" check "$fix" test median_us note; check "csv.sh check: the columns are there" $?

# ---- a missing column, an empty CSV: a non-zero exit, a message with the file and the name --
# fails WHAT PATTERN CMD...: CMD exits 1, prints nothing on stdout, and says PATTERN on stderr.
fails_with() {
    local what="$1" pattern="$2" rc
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] && [ ! -s "$tmp/out" ] && grep -qF -- "$pattern" "$tmp/err"
    ok=$?; check "$what: exit $rc, stdout '$(head -c 80 "$tmp/out")', stderr '$(cat "$tmp/err")'" "$ok"
}
fails_with "csv.awk: a missing column" "derive: $fix has no column \"nosuch\"" \
    awk -v csv_who=derive "$lib"'!csv_row() { next } { x = csv_get("nosuch") } END { print "END ran" }' "$fix"
fails_with "csv.awk: a missing column in END" "$fix has no column \"median\"" \
    awk "$lib"'!csv_row() { next } END { print csv_f[csv_col_of(FILENAME, "median")] }' "$fix"
fails_with "csv.sh column: a missing column" "$fix has no column \"median\"" "$csv" column "$fix" median
fails_with "csv.sh check: a missing column" "has no column \"nosuch\"" "$csv" check "$fix" test nosuch
fails_with "csv.sh meta: a missing key" "has no \"# nokey:\" line" "$csv" meta "$fix" nokey
: >"$tmp/empty.csv"
fails_with "csv.awk: an empty CSV" "$tmp/empty.csv is empty: no header row" \
    awk "$lib"'!csv_row() { next } { n++ } END { print n + 0 }' "$tmp/empty.csv"
fails_with "csv.awk: one of two CSVs empty" "$tmp/empty.csv is empty" \
    awk "$lib"'!csv_row() { next } { n++ } END { print n + 0 }' "$fix" "$tmp/empty.csv"
fails_with "csv.awk: a header and no rows" "header-only.csv has a header but no rows" \
    awk "$lib"'!csv_row() { next } { n++ } END { print n + 0 }' "$data/report/header-only.csv"
fails_with "csv.sh check: a header and no rows" "has a header but no rows" "$csv" check "$data/report/header-only.csv"
fails_with "csv.sh: a file that is not there" "cannot read $tmp/absent.csv" "$csv" check "$tmp/absent.csv"
printf 'a,b\n1,2\n1,2,3\n' >"$tmp/ragged.csv"
fails_with "csv.awk: a row wider than the header" "$tmp/ragged.csv:3: 3 fields where the header has 2" \
    awk "$lib"'!csv_row() { next } END { print "END ran" }' "$tmp/ragged.csv"
printf 'a,a\n1,2\n' >"$tmp/twice.csv"
fails_with "csv.awk: a column named twice" "has the column \"a\" twice" "$csv" check "$tmp/twice.csv"

# ---- the round trip: the median of the three proc passes ----------------------------------
rt='!csv_row() { next } { us[csv_get("payload_len"), csv_get("test")] = csv_get("median_us"); fl[csv_get("payload_len"), csv_get("test")] = csv_get("faults") }'
out=$(awk "$stats$rt"' END { print round_trip(us, 1000), rt_ratio(us, 1000, "ets_lookup"), round_trip(fl, 1000) }' "$fix")
[ "$out" = "20.0 2.5 4" ]; check "round_trip: proc1..3 = 30, 10, 20 in the order proc3, proc1, proc2 -> 20, ratio 2.5, faults 9, 1, 4 -> 4 ('$out')" $?
out=$(awk "$stats$rt"' END { print round_trip(us, 10), rt_ratio(us, 10, "ets_lookup") }' "$fix")
[ "$out" = "4.0 0.5" ]; check "round_trip: proc1..3 = 3, 5, 4 -> 4, ratio 0.5 ('$out')" $?
grep -v '^proc2,ints,1000,' "$fix" >"$tmp/noproc2.csv"
fails_with "round_trip: a missing proc pass" "no proc2 pass for 1000" \
    awk "$stats$rt"' END { print round_trip(us, 1000) }' "$tmp/noproc2.csv"
grep -v '^ets_lookup,ints,10,' "$fix" >"$tmp/nolookup.csv"
fails_with "rt_ratio: a missing lookup row" "no ets_lookup row for 10" \
    awk "$stats$rt"' END { print rt_ratio(us, 10, "ets_lookup") }' "$tmp/nolookup.csv"
out=$(awk "$stats"'BEGIN { a[1] = 10; a[2] = 9; a[3] = 100; a[4] = 2; print median(a, 3), median(a, 4) }' </dev/null)
[ "$out" = "10 9.5" ]; check "median: numeric order, odd and even counts ('$out')" $?

# ---- the 95 % interval of a median: the order statistics that bracket it ------------------
ci() { awk -v n="$1" "$stats"'BEGIN { for (i = 1; i <= n; i++) a[i] = n + 1 - i; m = median_ci(a, n); printf "%s %s %s %.4f", m, ci_lo, ci_hi, ci_cover }' </dev/null; }
out=$(ci 6); [ "$out" = "3.5 1 6 0.9688" ]; check "median_ci: 6 values -> the smallest and largest, 96.9 % ('$out')" $?
out=$(ci 9); [ "$out" = "5 2 8 0.9609" ]; check "median_ci: 9 values -> the 2nd and 8th, 96.1 % ('$out')" $?
out=$(ci 20); [ "$out" = "10.5 6 15 0.9586" ]; check "median_ci: 20 values -> the 6th and 15th, 95.9 % ('$out')" $?
out=$(ci 5); [ "$out" = "3 1 5 0.9375" ]; check "median_ci: 5 values have no 95 % interval: the range, 93.8 % ('$out')" $?

# ---- the scripts take the reader and the round trip from these files only ------------------
for f in report/derive.sh report/generate.sh report/pipeline.sh experiments/beam/fidelity.sh; do
    ! grep -nE '(^|[^a-zA-Z_])awk +-F *,' "$top/$f"; check "$f: no awk -F, (columns by position)" $?
done
! grep -nE "function +(median|round_trip|csv_split|header) *\(" "$top/report/derive.sh" "$top/report/generate.sh" \
    "$top/experiments/beam/fidelity.sh"; check "no second definition of the median, the round trip or the CSV reader" $?
# check "... $(cmd) ..." $? passes cmd's status, not the test's: such a check cannot fail
awk '{ t = ""; s = $0; while ((i = index(s, "check \"")) > 0) { t = substr(s, i); s = substr(s, i + 1) } }
    t ~ /[$][(]/ && t ~ /[$][?][[:space:]]*$/ { print FILENAME ":" FNR ": " $0; bad = 1 } END { exit bad }' \
    "$top"/tests/*.sh; check "tests: no check whose message runs a command before \$? is read" $?
! grep -hE 'using' "$top"/plots/fig*.gp | grep -E 'using +[0-9]|:[0-9]|xtic\([0-9]|\$[0-9]|strcol\([0-9]|column\([0-9]'
check "plots: no column by number" $?

echo "cli_pipeline: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
