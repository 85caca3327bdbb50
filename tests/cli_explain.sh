#!/usr/bin/env bash
# termcopy explain from the outside: --tsv gives eight tab-separated fields (vm_* '-' without
# --vm), a positive ratio and a verdict that agrees with it, the C code's own ratio last; --ext of 'termcopy encode's hex
# gives the text form's lookup GC count; bad input is one line and exit 2; with erl installed
# one --vm run gives numeric vm_* fields (skipped with a note without erl).
# $1: build directory root (termcopy in it); $2: tests/data.
set -u
tool="$(cd "$1" && pwd)/termcopy"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }

list() { echo "[$(seq -s, 1 "$1")]"; }
number='^[0-9]+(\.[0-9]+)?$'

# One --tsv line: 8 fields, the model's ratio positive, vm_* '-', verdict as the ratio says.
tsv_ok() { # tsv_ok NAME FILE VM(0|1)
    local name=$1 file=$2 vm=$3 fields ratio verdict
    [ "$(wc -l <"$file")" -eq 1 ]; check "$name: one line" $?
    fields=$(awk -F'\t' '{print NF}' "$file")
    [ "$fields" = 8 ]; check "$name: 8 tab-separated fields (got $fields)" $?
    IFS=$'\t' read -r mr vr mg vg mf vf verdict mx <"$file"
    for f in "$mr" "$mg" "$mf" "$mx"; do [[ $f =~ $number ]]; check "$name: model field '$f' numeric" $?; done
    awk -v r="$mr" 'BEGIN { exit !(r > 0) }'; check "$name: ratio $mr positive" $?
    if [ "$vm" = 0 ]; then
        [ "$vr$vg$vf" = "---" ]; check "$name: vm_* are '-' without --vm (got '$vr' '$vg' '$vf')" $?
        ratio=$mr
    else
        for f in "$vr" "$vg" "$vf"; do [[ $f =~ $number ]]; check "$name: vm field '$f' numeric" $?; done
        ratio=$vr
    fi
    want=$(awk -v r="$ratio" 'BEGIN { print (r > 1 ? "slower" : "faster") }')
    [ "$verdict" = "$want" ]; check "$name: verdict '$verdict' for ratio $ratio" $?
}

"$tool" explain --tsv --iterations 50 --repeats 1 '[1,2,3]' >"$tmp/small" 2>"$tmp/err"
rc=$?; check "explain --tsv small list (exit $rc: $(head -c 200 "$tmp/err"))" $rc
tsv_ok "small list" "$tmp/small" 0

list 3000 >"$tmp/big.txt"
"$tool" explain --tsv --iterations 50 --repeats 1 - <"$tmp/big.txt" >"$tmp/big" 2>"$tmp/err"
rc=$?; check "explain --tsv large list from stdin (exit $rc: $(head -c 200 "$tmp/err"))" $rc
tsv_ok "large list" "$tmp/big" 0

# --ext: the same term as hex, as an argument and as raw bytes on stdin.
term='{[1,2,3],<<"abc">>,1.5,atom,{nested,[4,5]}}'
hex=$("$tool" encode "$term")
"$tool" explain --tsv --iterations 50 --repeats 1 "$term" >"$tmp/text"
"$tool" explain --tsv --iterations 50 --repeats 1 --ext "$hex" >"$tmp/ext"
check "explain --ext HEX runs" $?
[ "$(cut -f3 "$tmp/text")" = "$(cut -f3 "$tmp/ext")" ]
ok=$?; check "--ext gives the text form's lookup GCs ($(cut -f3 "$tmp/text") vs $(cut -f3 "$tmp/ext"))" "$ok"
echo "$hex" | xxd -r -p | "$tool" explain --tsv --iterations 50 --repeats 1 --ext - >"$tmp/raw"
check "explain --ext - with raw bytes runs" $?
[ "$(cut -f3 "$tmp/text")" = "$(cut -f3 "$tmp/raw")" ]; check "--ext raw bytes: the same lookup GCs" $?

# The text output: a verdict in words, the mechanism table and the remedies.
"$tool" explain --iterations 50 --repeats 2 "$(list 100)" >"$tmp/out" 2>/dev/null
check "explain text output runs" $?
grep -Eq '^verdict \(model, its C code.s time\): ets:lookup is [0-9.]+x (slower|faster) than a round trip' "$tmp/out"
check "the verdict in words" $?
grep -Eq '^  with min_heap_size [0-9]+: ratio [0-9.]+ \(GCs [0-9.]+; lookup [0-9.]+ us, OTP 25 [0-9.]+\)' "$tmp/out"; check "the min_heap_size remedy" $?
grep -Eq '^  with sbct 2097152 \(\+MHsbct 2048\): ratio [0-9.]+ \(GCs [0-9.]+; lookup [0-9.]+ us, OTP 25 [0-9.]+\)' "$tmp/out"; check "the +MHsbct remedy" $?
grep -Eq '^  with ets_compressed on: ratio [0-9.]+ \(GCs [0-9.]+; lookup [0-9.]+ us, OTP 25 [0-9.]+\)' "$tmp/out"; check "the compressed remedy" $?
# [1..100] as {I, TERM}: 207 words plain (4 + 203), 21 compressed (2 + (16 + 8 * 4 + 103) / 8 up),
# as OTP 25's ets:info(T, memory) counts them; its lookup writes the same 205 words from either
grep -Eq 'stored in 21 words against 207, each lookup decoding into its one allocation: 205 words written per lookup against 205' "$tmp/out"
check "the compressed remedy's words per object and per lookup" $?
grep -Eq '^  with persistent_term:get instead of ets:lookup: [0-9.]+ us per get against a lookup.s [0-9.]+ \([0-9.]+x\)$' "$tmp/out"
check "the persistent_term remedy, the model's get beside its lookup" $?
"$tool" explain --help | grep -q '^usage: termcopy explain'; check "explain --help" $?

# Bad input: one line on stderr, exit 2, nothing on stdout.
bad() { # bad NAME ARGS...
    local name=$1 rc
    shift
    "$tool" explain "$@" >"$tmp/bad.out" 2>"$tmp/bad.err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/bad.err")" -eq 1 ] && [ ! -s "$tmp/bad.out" ]
    ok=$?; check "$name: exit 2 (got $rc), one line ($(head -c 120 "$tmp/bad.err"))" "$ok"
}
bad "bad term" '[1,2'
bad "bad flag" --frobnicate '[1]'
bad "missing term" --tsv
bad "bad hex" --ext 83ZZ
bad "bad external term" --ext 8399
bad "bad --iterations" --iterations 0 '[1]'
bad "bad --repeats" --repeats 65 '[1]'

# The VM, when it is installed: lists:seq(1, 1000) on both.
if command -v erl >/dev/null 2>&1 && command -v erlc >/dev/null 2>&1; then
    mkdir "$tmp/t"
    TMPDIR="$tmp/t" "$tool" explain --vm --tsv --iterations 200 --repeats 1 "$(list 1000)" >"$tmp/vm" 2>"$tmp/err"
    rc=$?; check "explain --vm --tsv (exit $rc: $(head -c 200 "$tmp/err"))" $rc
    [ -z "$(ls -A "$tmp/t")" ]; check "explain --vm leaves no temporary directory" $?
    tsv_ok "--vm lists:seq(1, 1000)" "$tmp/vm" 1
    # the full output's account: one point a round, its prices and counts the rounds' medians
    "$tool" explain --vm --iterations 100 --repeats 2 "$(list 100)" >"$tmp/vmfull" 2>"$tmp/err"
    rc=$?; check "explain --vm, two rounds (exit $rc: $(head -c 200 "$tmp/err"))" $rc
    grep -q "^time account (us of CPU time for 100 operations; the VM's prices for TERM, the medians of 2 rounds;" "$tmp/vmfull"
    ok=$?; check "explain --vm: the account is the medians of the rounds ($(grep '^time account' "$tmp/vmfull"))" $ok
else
    echo "note: erl/erlc not on PATH: the --vm part is skipped"
fi
# Without erl on PATH, --vm says so in one line and exits 2 (the model needs no erl).
PATH=/nonexistent "$tool" explain --vm '[1]' >"$tmp/noerl.out" 2>"$tmp/noerl.err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/noerl.err")" -eq 1 ] && grep -q 'erl' "$tmp/noerl.err"
ok=$?; check "--vm without erl: one line, exit 2 (got $rc: $(cat "$tmp/noerl.err"))" "$ok"
grep -q 'refc binaries' "$tmp/out"; [ $? -ne 0 ]; check "a list has no refc-binaries line" $?

# A 100 KiB refc binary: 12800 words of binary virtual heap per copy; past 46422 the lookup loop
# collects at the 4th lookup and then every 3rd (heaps/gc.h), so 30 lookups collect 9 times.
"$tool" explain --iterations 30 --repeats 1 '<<0:819200>>' >"$tmp/bin" 2>/dev/null
check "explain of a refc binary runs" $?
grep -q 'each result adds 12800 words to the binary virtual heap, which starts at 46422 words' "$tmp/bin"
check "the refc-binaries line gives 12800 and 46422 words" $?
"$tool" explain --tsv --iterations 30 --repeats 1 '<<0:819200>>' >"$tmp/bin.tsv" 2>/dev/null
gcs=$(cut -f3 "$tmp/bin.tsv")
[ "$gcs" = "300.0" ]; check "30 lookups of <<0:819200>>: 9 GCs (300.0 per 1000), got $gcs" $?
PATH=/nonexistent "$tool" explain --tsv --iterations 20 --repeats 1 '[1]' >/dev/null 2>&1
check "without --vm no erl is needed" $?

# Below the counts that give a stable verdict it says so (on stderr: --tsv's row is unchanged).
"$tool" explain --iterations 1 --repeats 1 a 2>&1 >/dev/null | grep -q 'caution: 1 operation a loop and 1 run'
check "explain --iterations 1 --repeats 1 warns the verdict is not stable" $?
[ "$("$tool" explain --tsv --iterations 1 --repeats 1 a 2>/dev/null | awk -F'\t' '{print NF}')" = 8 ]
check "the warning leaves --tsv's row as it is" $?
"$tool" explain --tsv --iterations 1000 --repeats 3 a 2>&1 >/dev/null | grep -q caution
[ $? -ne 0 ]; check "no caution at 1000 operations and 3 runs" $?

echo "cli_explain: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
