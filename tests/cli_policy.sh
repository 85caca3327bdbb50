#!/usr/bin/env bash
# The policy table from the outside (heaps/policy.h): --list-policy in every binary that takes
# an era and in termcopy explain prints the same table, and with --csv - the same CSV, one row
# per field in the columns name,type,values,r10b,r13b,otp25,erts,what; --set takes every value
# the table allows and refuses any other in one line naming what it takes; the old spellings
# (--no-shrink, --min-heap, ...) set the same fields; the CSV metadata says what was set; and
# ablate's variants each name a field of the table or a switch of the workload.
# $1: build directory root (binaries in experiments/, termcopy at the top); $2: tests/data (unused).
set -u
dir="$1/experiments" tool="$1/termcopy"
lib=$(cat "$(dirname "$0")/../report/csv.awk")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }

"$dir/eptest" --list-policy --csv "$tmp/policy.csv" >"$tmp/out" 2>"$tmp/err"
ok=$?; check "eptest --list-policy --csv FILE exits 0 (got $ok: $(head -c 100 "$tmp/err"))" $ok
[ "$(grep -v '^#' "$tmp/policy.csv" | head -n 1)" = "name,type,values,r10b,r13b,otp25,erts,what" ]
check "the CSV's header is name,type,values,r10b,r13b,otp25,erts,what" $?
[ "$(awk "$lib"'!csv_row() { next } END { print csv_meta("native") }' "$tmp/policy.csv")" = otp25 ]
check "the CSV's '# native:' line names the era of the VM installed here" $?
nfields=$(awk "$lib"'!csv_row() { next } { n++ } END { print n + 0 }' "$tmp/policy.csv")
[ "$nfields" -ge 30 ]; check "the CSV has a row per field ($nfields)" $?
# every row complete: a name, a type, values, erts and what; a value per preset era
awk "$lib"'!csv_row() { next }
    { if (csv_get("name") !~ /^[a-z0-9_]+$/ || csv_get("type") !~ /^(bool|enum|uint)$/ || csv_get("values") == "" ||
          csv_get("r10b") == "" || csv_get("otp25") == "" || length(csv_get("erts")) < 10 || length(csv_get("what")) < 10)
          { print "  incomplete: " csv_get("name"); bad = 1 } }
    END { exit bad }' "$tmp/policy.csv"
check "every field has its name, type, values, each preset's value, erts and what" $?

for b in eptest ablate crossover breakdown heaptrace gctrace; do
    "$dir/$b" --list-policy --csv - >"$tmp/$b.csv" 2>"$tmp/err"
    [ $? -eq 0 ] && cmp -s "$tmp/$b.csv" "$tmp/policy.csv"; check "$b --list-policy --csv - is the table" $?
    "$dir/$b" --list-policy >"$tmp/$b.txt" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && grep -q '^NAME .*r10b .*r13b .*otp25' "$tmp/$b.txt"
    check "$b --list-policy prints the table (rc $rc)" $?
done
"$tool" explain --list-policy --csv - >"$tmp/explain.csv" 2>"$tmp/err"
[ $? -eq 0 ] && cmp -s "$tmp/explain.csv" "$tmp/policy.csv"; check "termcopy explain --list-policy --csv - is the table" $?
"$tool" explain --list-policy >"$tmp/explain.txt" 2>"$tmp/err"
[ $? -eq 0 ] && cmp -s "$tmp/explain.txt" "$tmp/eptest.txt"; check "termcopy explain --list-policy is eptest's text" $?
"$tool" explain --list-policy '[1]' >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; check "explain --list-policy with a TERM: exit 2, one line" $?
awk "$lib"'!csv_row() { next } { print csv_get("name") }' "$tmp/policy.csv" >"$tmp/names"
while read -r n; do grep -q "^$n " "$tmp/eptest.txt" || echo "$n"; done <"$tmp/names" >"$tmp/missing"
[ ! -s "$tmp/missing" ]; ok=$?; check "the text lists every field ($(tr '\n' ' ' <"$tmp/missing"))" $ok

# Every allowed value: each name of an enum, on and off, and a range's ends; parsed and kept
# (--list-policy exits once the command line is read, so no run is made at 2^40 bytes).
awk "$lib"'!csv_row() { next }
    { n = csv_get("name"); v = csv_get("values")
      if (v ~ /^[0-9]+\.\.[0-9]+$/) { split(v, r, /\.\./); print n, r[1]; print n, r[2]; next }
      k = split(v, a, "|"); for (i = 1; i <= k; i++) { sub(/ \(PROPOSAL\)$/, "", a[i]); print n, a[i] } }' \
    "$tmp/policy.csv" >"$tmp/allowed"
bad=0
while read -r n v; do
    "$dir/eptest" --set "$n=$v" --list-policy >/dev/null 2>"$tmp/err" || { echo "  refused: $n=$v: $(cat "$tmp/err")"; bad=1; }
done <"$tmp/allowed"
check "--set takes every allowed value ($(wc -l <"$tmp/allowed") of them)" $bad
# Anything else: exit 2, one line on stderr, naming the field and what it takes.
refuse() {
    local desc="$1" want="$2"
    shift 2
    "$dir/eptest" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] && grep -qF -- "$want" "$tmp/err"
    ok=$?; check "$desc: rc $rc, '$(head -c 150 "$tmp/err")'" $ok
}
refuse "a bad enum value" "eptest: --set gc_trigger: expected schedule or bif, got 'later'" --set gc_trigger=later
refuse "a bad bool" "eptest: --set shrink: expected on or off, got 'yes'" --set shrink=yes
refuse "a number past its range" "eptest: --set mseg_cache: expected an integer in 0..1000, got '1001'" --set mseg_cache=1001
refuse "a number with a sign" "eptest: --set min_heap_size: expected an integer in 1..4294967296, got '+5'" --set min_heap_size=+5
refuse "an unknown field" "eptest: --set: expected NAME=VALUE with NAME one of heap_table, frag_rule" --set gc_rules=r10b
refuse "no '='" "got 'shrink'" --set shrink
refuse "an old spelling's bad value" "eptest: --send-path: expected direct or heap_or_frag, got 'post'" --send-path post
"$tool" explain --set shrink=yes '[1]' >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -qF "termcopy explain: --set: shrink: expected on or off, got 'yes'" "$tmp/err"
check "explain --set refuses a bad value naming what it takes" $?

# The metadata says what was set, and the old spellings set the same fields as --set.
run() { "$dir/eptest" --len 10 --iterations 5 --repeats 1 "$@" --csv - 2>/dev/null; }
run >"$tmp/base.csv"
grep -qx '# era_set: none' "$tmp/base.csv"; check "a run as shipped: era_set none" $?
grep -q '^# era: otp25 (heap_table=fib_plus1, ' "$tmp/base.csv"; check "a run's era line names every field from the first" $?
run --set shrink=off --set min_heap_size=4096 --set gc_trigger=schedule >"$tmp/set.csv"
grep -qx '# era_set: gc_trigger=schedule, shrink=off, min_heap_size=4096' "$tmp/set.csv"; check "era_set lists the fields set" $?
run --no-shrink --min-heap 4096 --gc-trigger schedule >"$tmp/old.csv"
diff <(grep '^# era' "$tmp/set.csv") <(grep '^# era' "$tmp/old.csv") >/dev/null; check "the old spellings set the same fields" $?
run --set mseg_cache=0 --segment-cache 7 >"$tmp/order.csv"
grep -qx '# era_set: mseg_cache=7' "$tmp/order.csv"; check "applied in order: the last one wins" $?
# A field's value reaches the model: the same run with every GC shrink off differs in no
# count from the aliased one, and r10b set to otp25's heap table is not r10b as shipped.
"$dir/eptest" --era r10b --len 3000 --iterations 50 --repeats 1 --csv "$tmp/r.csv" >/dev/null 2>&1
"$dir/eptest" --era r10b --len 3000 --iterations 50 --repeats 1 --set heap_table=fib_plus1 --csv "$tmp/rt.csv" >/dev/null 2>&1
gcw() { awk "$lib"'!csv_row() { next } { s += csv_get("gc_words_copied") } END { print s + 0 }' "$1"; }
[ "$(gcw "$tmp/r.csv")" != "$(gcw "$tmp/rt.csv")" ]; ok=$?; check "--set heap_table changes what the GCs copy ($(gcw "$tmp/r.csv") vs $(gcw "$tmp/rt.csv"))" $ok

# ablate's variants: each names a policy field (or a workload switch) and a value it takes.
"$dir/ablate" --list-ablations --csv - >"$tmp/ablations.csv" 2>/dev/null
check "ablate --list-ablations --csv - exits 0" $?
[ "$(head -n 1 "$tmp/ablations.csv")" = "ablation,field,value,what" ]; check "the ablations' header" $?
awk "$lib"'!csv_row() { next } { print csv_get("ablation"), csv_get("field"), csv_get("value") }' "$tmp/ablations.csv" |
    while read -r a f v; do
        [ "$f" = - ] && continue
        case "$f" in keep_result | hot_key) [ "$v" = on ] || echo "$a: $f=$v" ; continue ;; esac
        if [ "$v" = flip ]; then
            awk -v f="$f" "$lib"'!csv_row() { next } csv_get("name") == f { ok = csv_get("type") == "bool" ||
                split(csv_get("values"), x, "|") == 2 } END { exit !ok }' "$tmp/policy.csv" || echo "$a: $f flip"
        else
            "$dir/eptest" --set "$f=$v" --list-policy >/dev/null 2>&1 || echo "$a: $f=$v"
        fi
    done >"$tmp/badabl"
[ ! -s "$tmp/badabl" ]; ok=$?; check "every ablation is a field of the table and a value it takes ($(tr '\n' ' ' <"$tmp/badabl"))" $ok
[ "$(grep -vc '^#' "$tmp/ablations.csv")" -eq 14 ]; check "13 ablations and the header" $?

echo "cli_policy: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
