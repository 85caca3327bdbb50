#!/usr/bin/env bash
# The command line every experiment binary shares (experiments/harness.h tc_bench_cli): for each
# binary, --help and --version exit 0 on stdout; an unknown flag, a missing value and a stray
# argument exit 2 with exactly one line on stderr; every number --help gives a range for is
# refused one past either end, in the words of that range; and with --csv - standard output is
# pure CSV ('#' metadata lines, then the header and rows with the header's number of fields).
# Runs are the smallest each binary has, so this takes seconds (copysweep --quick the most).
# $1: build directory root (binaries in experiments/); $2: tests/data (unused).
set -u
dir="$1/experiments"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }

# The smallest real run of each binary, for --csv -.
declare -A tiny=(
    [eptest]="--len 10 --iterations 5 --repeats 1"
    [ablate]="--quick --era otp25 --len 10 --iterations 2 --repeats 1"
    [crossover]="--quick --shape ints --era otp25 --iterations 5"
    [breakdown]="--quick --era otp25 --len 10 --iterations 2"
    [copysweep]="--quick"
    [heaptrace]="--quick --len 100 --iterations 5"
    [gctrace]="--quick --len 100 --iterations 5"
    [etsbench]="--quick --iterations 1000 --repeats 1"
    [codecpeer]="--quick"
)

# usage_error BIN DESC ARGS...: exit 2, nothing on stdout, one line on stderr naming BIN.
usage_error() {
    local b="$1" desc="$2" rc n
    shift 2
    "$dir/$b" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    n=$(wc -l <"$tmp/err")
    [ "$rc" -eq 2 ] && [ "$n" -eq 1 ] && [ ! -s "$tmp/out" ] && grep -q "^$b: " "$tmp/err"
    ok=$?; check "$b $desc: exit $rc, $n lines on stderr: $(head -c 120 "$tmp/err")" "$ok"
}

# codecpeer is built only where erl_interface's libei is (experiments/CMakeLists.txt).
peer=()
[ -x "$dir/codecpeer" ] && peer=(codecpeer) || echo "cli_options: codecpeer not built (no libei): its checks skipped"
for b in eptest ablate crossover breakdown copysweep heaptrace gctrace etsbench ${peer[@]+"${peer[@]}"}; do
    [ -x "$dir/$b" ] || { check "$b is built" 1; continue; }

    "$dir/$b" --help >"$tmp/help" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 0 ] && head -n 1 "$tmp/help" | grep -q "^usage: $b " && [ ! -s "$tmp/err" ]
    check "$b --help: exit $rc, usage on stdout, nothing on stderr" $?
    "$dir/$b" -h | cmp -s - "$tmp/help"; check "$b -h is --help" $?
    out=$("$dir/$b" --version 2>&1)
    rc=$?
    [ "$rc" -eq 0 ] && [[ "$out" =~ ^$b\ \(termcopy\)\ [0-9]+\.[0-9]+\.[0-9]+ ]] && [ "$(wc -l <<<"$out")" -eq 1 ]
    check "$b --version: exit $rc, '$out'" $?

    usage_error "$b" "unknown flag" --bogus
    usage_error "$b" "unknown short flag" -x
    usage_error "$b" "--csv without a value" --csv
    usage_error "$b" "stray argument" stray
    usage_error "$b" "out-of-range --len" --len 999999999

    # Every "(LO..HI" of --help, refused one past each end with that range in the message. A
    # help entry may continue on lines indented past the option column.
    awk '/^  -/ { if (e != "") print e; e = $0; next } /^                        / { sub(/^ +/, " "); e = e $0; next }
         { if (e != "") print e; e = "" } END { if (e != "") print e }' "$tmp/help" |
        sed -nE 's/^  (--[a-z-]+) [^ ]+ .*\(([0-9]+)\.\.([0-9]+)[;)].*/\1 \2 \3/p' >"$tmp/ranges"
    [ -s "$tmp/ranges" ] || [ "$b" = copysweep ] || [ "$b" = codecpeer ]; check "$b --help states ranges" $?
    while read -r opt lo hi; do
        for v in $((lo - 1)) $((hi + 1)); do
            usage_error "$b" "$opt $v (help: $lo..$hi)" "$opt" "$v"
            grep -q -- "$opt: expected an integer in $lo\.\.$hi, got '$v'" "$tmp/err"
            check "$b $opt $v: the message states $lo..$hi" $?
        done
    done <"$tmp/ranges"

    # shellcheck disable=SC2086 # the tiny run's options are words
    "$dir/$b" ${tiny[$b]} --csv - >"$tmp/csv" 2>"$tmp/err"
    rc=$?
    check "$b ${tiny[$b]} --csv - exits 0 (got $rc: $(tail -n 1 "$tmp/err"))" "$rc"
    awk -F, '/^#/ { next } !h { h = NF; next } { rows++ } NF != h { bad = 1; print "  not CSV: " $0 }
             END { exit bad || !h || !rows }' "$tmp/csv"
    check "$b --csv -: stdout is '#' lines, a header and rows of as many fields" $?
    [ -s "$tmp/err" ]; check "$b --csv -: the human output went to stderr" $?
done

# copysweep --codec: the codec table, as CSV of its own columns.
"$dir/copysweep" --codec --quick --csv - >"$tmp/csv" 2>"$tmp/err"
check "copysweep --codec --quick --csv - exits 0" $?
awk -F, '/^#/ { next } !h { h = $0; next } { rows++; if (NF != 8) bad = 1 }
         END { exit bad || h != "codec,shape,payload_len,flat_words,ext_bytes,ns_per_byte,iqr,min_ns_per_byte" || rows != 32 }' "$tmp/csv"
check "copysweep --codec --csv -: the codec header and 32 rows (2 codecs x 8 shapes x 2 sizes)" $?
cp "$tmp/csv" "$tmp/model.csv"
# codecpeer: the same columns and payloads (ei's bytes are checked equal to termcopy's inside).
if [ ${#peer[@]} -gt 0 ]; then
    "$dir/codecpeer" --quick --csv - >"$tmp/csv" 2>"$tmp/err"
    ok=$?; check "codecpeer --quick --csv - exits 0 ($(tail -n 1 "$tmp/err"))" $ok
    awk -F, '/^#/ { next } !h { h = $0; next } { rows++; if (NF != 8 || $1 !~ /^ei_(encode|decode|skip)$/) bad = 1 }
             END { exit bad || h != "codec,shape,payload_len,flat_words,ext_bytes,ns_per_byte,iqr,min_ns_per_byte" || rows != 48 }' "$tmp/csv"
    check "codecpeer --csv -: the codec header and 48 rows (ei_encode, ei_decode, ei_skip x 8 shapes x 2 sizes)" $?
    # Every payload of codecpeer's is copysweep's: shape, L, flat size and encoded bytes.
    diff <(awk -F, '!/^#/ && $1 == "encode" { print $2, $3, $4, $5 }' "$tmp/model.csv") \
         <(awk -F, '!/^#/ && $1 == "ei_encode" { print $2, $3, $4, $5 }' "$tmp/csv") >/dev/null
    check "codecpeer times copysweep --codec's payloads (shape, L, words, bytes)" $?
fi
usage_error copysweep "--codec with a value" --codec=yes
usage_error eptest "--copy-out with an unknown copier" --copy-out deep

# Numbers as written: strtol alone would take a leading space, '+' and -0.
usage_error eptest "--len with a leading space" --len " 10"
usage_error eptest "--len +10" --len +10
usage_error eptest "--repeats -0" --repeats -0
usage_error heaptrace "--len with a tab first" --len "	100"

# Two CSVs cannot share standard output.
usage_error crossover "--csv - --summary -" --quick --csv - --summary -

echo "cli_options: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
