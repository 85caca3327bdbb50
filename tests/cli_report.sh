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

echo "cli_report: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
