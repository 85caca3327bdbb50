#!/usr/bin/env bash
# report/generate.sh from the outside: on a fixture CSV it writes exactly the expected
# Markdown (metadata, single values with formats, a filtered table with quoted fields,
# ifexists/else); a marker it cannot expand, or a CSV with no rows, is an error that names the
# template line and leaves the previous output untouched.
# $1: build directory root (unused); $2: tests/data.
set -u
data=$(cd "$2" && pwd)
gen="$data/../../report/generate.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }

sh "$gen" "$data/report/template.md.in" "$data/report" "$tmp/out.md"
check "generate runs (exit $?)" $?
diff "$data/report/expected.md" "$tmp/out.md" >"$tmp/diff"; ok=$?; check "expected Markdown ($(cat "$tmp/diff"))" "$ok"

# bad TEMPLATE-LINE MESSAGE-PATTERN: the line fails, names itself, and keeps out.md as it was.
bad() {
    printf 'first line\n%s\n' "$1" >"$tmp/bad.md.in"
    cp "$tmp/out.md" "$tmp/keep.md"
    sh "$gen" "$tmp/bad.md.in" "$data/report" "$tmp/out.md" 2>"$tmp/err"
    local rc=$?
    [ $rc -eq 1 ] && grep -q "bad.md.in:2: $2" "$tmp/err" && cmp -s "$tmp/out.md" "$tmp/keep.md"
    ok=$?; check "'$1' fails with '$2' (exit $rc: $(cat "$tmp/err"))" "$ok"
}
bad '{{value sample.csv median_us test=proc1}}' '2 rows of sample.csv match'
bad '{{value sample.csv median_us test=nothing}}' '0 rows of sample.csv match'
bad '{{value sample.csv nosuch era=r10b test=proc1}}' 'sample.csv has no column "nosuch"'
bad '{{value absent.csv x}}' 'cannot read'
bad '{{value header-only.csv median_us}}' '.*header-only.csv has no rows'
bad '{{meta header-only.csv a}}' '.*header-only.csv has no rows'
bad '{{meta sample.csv nokey}}' 'sample.csv has no "# nokey:" line'
bad '{{table sample.csv era test=none}}' 'no rows of sample.csv match'
bad '{{frobnicate sample.csv}}' 'unknown marker'
printf '{{ifexists sample.csv}}\nx\n' >"$tmp/open.md.in"
sh "$gen" "$tmp/open.md.in" "$data/report" "$tmp/o2.md" 2>"$tmp/err"; [ $? -eq 1 ] && grep -q 'without {{endif}}' "$tmp/err"
check "an unclosed ifexists is an error" $?
printf '{{ifexists sample.csv}}\na\n{{else}}\nb\n{{else}}\nc\n{{endif}}\n' >"$tmp/else2.md.in"
sh "$gen" "$tmp/else2.md.in" "$data/report" "$tmp/o4.md" 2>"$tmp/err"; [ $? -eq 1 ] && grep -q 'a second {{else}}' "$tmp/err"
check "a second else in one ifexists is an error" $?
sh "$gen" "$tmp/missing.md.in" "$data/report" "$tmp/o3.md" 2>/dev/null; [ $? -eq 2 ]; check "missing template exits 2" $?

# ---- comparative words: {{cmp}} and {{agree}}, the claims they record, report/claims.sh ------
claims="$data/../../report/claims.sh"
cat >"$tmp/cmp.md.in" <<'TPL'
a {{cmp ci.csv:ratio:case=wins 1 wins loses is_even}} b {{cmp ci.csv:ratio:case=loses 1 wins loses is_even}} c {{cmp ci.csv:ratio:case=even 1 wins loses is_even}}
d {{cmp ci.csv:ratio:case=wins ci.csv:ratio:case=even lower higher within_the_noise_of}} e {{cmp ci.csv:count:case=wins ci.csv:count:case=loses~5% fewer more as_many}}
f {{cmp ci.csv:count:case=wins ci.csv:count:case=loses fewer more as_many}} g {{agree 1 2 3 4 as_predicted not_as_predicted}} h {{agree 1 2 4 3 as_predicted not_as_predicted}}
TPL
sh "$gen" --claims "$tmp/claims.csv" "$tmp/cmp.md.in" "$data/report" "$tmp/cmp.md"
check "generate with cmp and agree runs (exit $?)" $?
printf 'a wins b loses c is even\nd lower e as many\nf fewer g as predicted h not as predicted\n' >"$tmp/cmp.expected"
diff "$tmp/cmp.expected" "$tmp/cmp.md" >"$tmp/diff"; ok=$?; check "cmp: an interval excluding 1 wins or loses, one containing it is even; ~5% widens a count ($(cat "$tmp/diff"))" "$ok"
[ "$(grep -c . "$tmp/claims.csv")" -eq 9 ]; check "8 claims recorded under a header" $?
sh "$claims" "$tmp/claims.csv" 2>"$tmp/err"; ok=$?; check "claims.sh: every claim holds ($(cat "$tmp/err"))" $ok
# a marker whose words are in the wrong slots says "loses" where the numbers say it wins
sed 's/^\(.*case=wins 1 wins loses is_even}}",\)"wins"/\1"loses"/; s/^\([^,]*,cmp,\)"wins"/\1"loses"/' "$tmp/claims.csv" >"$tmp/swapped.csv"
! sh "$claims" "$tmp/swapped.csv" >"$tmp/out" 2>&1 && grep -q '"loses" (above) where 0.8 is below' "$tmp/out"
ok=$?; check "claims.sh: a word its numbers contradict fails ($(head -c 300 "$tmp/out"))" $ok
sed 's/,"as many",/,"as quick",/' "$tmp/claims.csv" >"$tmp/unknown.csv"
! sh "$claims" "$tmp/unknown.csv" >"$tmp/out" 2>&1 && grep -q 'not a word of the vocabulary' "$tmp/out"
check "claims.sh: a word outside the vocabulary fails" $?
printf 'The lookup took {{value sample.csv median_us era=r10b test=ets_lookup}} µs, faster than before.\n\nA mechanism is faster in general.\n' >"$tmp/typed.md.in"
! sh "$claims" "$tmp/claims.csv" "$tmp/typed.md.in" >"$tmp/out" 2>&1 && grep -q 'typed.md.in:1: "faster" typed' "$tmp/out" &&
    [ "$(grep -c 'typed in a sentence' "$tmp/out")" -eq 1 ]
ok=$?; check "claims.sh: a claim word typed beside a number fails, one in a sentence without numbers does not ($(cat "$tmp/out"))" $ok
bad '{{cmp sample.csv:era:test=proc1,era=r10b 1 a b c}}' 'sample.csv era is "r10b", not a number'
bad '{{cmp 1 2 a b}}' 'cmp takes A B LOW HIGH SAME'

echo "cli_report: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
