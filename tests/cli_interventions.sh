#!/usr/bin/env bash
# experiments/beam/interventions without building the VM: the committed
# report/data/vm-interventions.csv has its metadata, the columns the report reads and a row
# per variant and length; every patch starts with a header naming the erts file, the
# function and the change, and then is a unified diff of one file; build.sh --help and
# --list work (and need neither root nor the source).
# $1: build directory root (unused); $2: tests/data (unused).
set -u
here=$(cd "$(dirname "$0")" && pwd)
iv="$here/../experiments/beam/interventions"
csv="$here/../report/data/vm-interventions.csv"
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }

out=$(bash "$iv/build.sh" --help 2>&1); rc=$?
check "build.sh --help: rc $rc" $rc
echo "$out" | grep -q '^usage: experiments/beam/interventions/build.sh'; check "build.sh --help prints the usage" $?
list=$(bash "$iv/build.sh" --list 2>&1); check "build.sh --list: rc $?" $?
bash "$iv/run.sh" --help >/dev/null 2>&1; check "run.sh --help" $?
bash "$iv/build.sh" --no-such-option >/dev/null 2>&1; [ $? -eq 2 ]; check "build.sh: an unknown option is a usage error" $?

# The patches: a header (free text before the diff) with File:, Function:, Change:, then a
# unified diff of exactly one file with a few changed lines.
n=0
for p in "$iv"/patches/*.patch; do
    [ -f "$p" ] || continue
    n=$((n + 1)); b=$(basename "$p")
    head_text=$(awk '/^(diff |--- )/ { exit } { print }' "$p")
    [ -n "$(echo "$head_text" | tr -d '[:space:]')" ]; check "$b: has a header comment" $?
    for key in File Function Change; do
        echo "$head_text" | grep -q "^$key: "; check "$b: header names the $key" $?
    done
    file=$(echo "$head_text" | sed -n 's/^File: *//p' | head -n 1)
    [ "$(grep -c '^--- a/' "$p")" -eq 1 ] && [ "$(grep -c '^+++ b/' "$p")" -eq 1 ]; check "$b: one file" $?
    grep -q "^+++ b/$file\$" "$p"; check "$b: the diff is of $file" $?
    changed=$(grep -c '^[-+][^-+]' "$p")
    [ "$changed" -ge 1 ] && [ "$changed" -le 10 ]; check "$b: $changed changed lines (1..10)" $?
    echo "$list" | grep -qx "$(basename "$p" .patch)"; check "$b: a variant of build.sh --list" $?
done
[ $n -ge 3 ]; check "at least 3 patches ($n)" $?

# The committed CSV.
[ -s "$csv" ]; check "vm-interventions.csv exists" $?
for key in source_package patch configure date machine cpu load; do
    grep -q "^# $key: " "$csv"; check "vm-interventions.csv: '# $key:' line" $?
done
for p in "$iv"/patches/*.patch; do
    grep -q "^# patch: $(basename "$p") sha256 $(sha256sum "$p" | cut -d' ' -f1)\$" "$csv"
    ok=$?; check "vm-interventions.csv: the sha256 of $(basename "$p") is the committed patch's" "$ok"
done
header=$(grep -v '^#' "$csv" | head -n 1)
for c in variant payload_len vm_ratio vm_lookup_gcs vm_lookup_faults vm_carriers model_ratio model_lookup_gcs \
         model_lookup_faults model_carriers; do
    echo ",$header," | grep -q ",$c,"; check "vm-interventions.csv: column $c" $?
done
width=$(echo "$header" | awk -F, '{print NF}')
bad=$(grep -v '^#' "$csv" | tail -n +2 | awk -F, -v w="$width" 'NF != w' | wc -l)
[ "$bad" -eq 0 ]; check "vm-interventions.csv: $bad rows not $width wide" $?
lens=$(grep -v '^#' "$csv" | awk -F, 'NR > 1 { print $2 }' | sort -un | tr '\n' ' ')
for v in shipped rebuilt emu $(echo "$list" | grep -v -x -e rebuilt -e emu); do
    for l in 1000 3000 10000 30000; do
        [ "$(grep -v '^#' "$csv" | awk -F, -v v="$v" -v l="$l" '$1 == v && $2 == l' | wc -l)" -eq 1 ]
        check "vm-interventions.csv: one row for $v at L = $l (lengths: $lens)" $?
    done
done

# The rebuild check: the rebuilt VM collects exactly as often as the shipped one, and its
# faults are within 15 % (or 20 per 1000) of the shipped VM's, at every length.
while IFS=, read -r l sg sf rg rf; do
    [ "$sg" = "$rg" ]; check "rebuilt GCs = shipped GCs at L = $l ($rg, $sg)" $?
    awk -v a="$sf" -v b="$rf" 'BEGIN { d = b - a; if (d < 0) d = -d; exit !(d <= 20 || d <= 0.15 * a) }'
    check "rebuilt faults within 15 % of shipped at L = $l ($rf, $sf)" $?
done < <(grep -v '^#' "$csv" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $1 == "shipped" { s[$2] = $c["vm_lookup_gcs"] "," $c["vm_lookup_faults"]; o[++n] = $2 }
    $1 == "rebuilt" { r[$2] = $c["vm_lookup_gcs"] "," $c["vm_lookup_faults"] }
    END { for (i = 1; i <= n; i++) if (o[i] in r) { split(s[o[i]], a, ","); split(r[o[i]], b, ","); print o[i] "," a[1] "," a[2] "," b[1] "," b[2] } }')
rounds="${csv%.csv}-rounds.csv"
[ "$(grep -v '^#' "$rounds" 2>/dev/null | head -n 1)" = "side,round,variant,payload_len,proc_us,lookup_us,ratio,lookup_gcs,lookup_faults,carriers" ]
check "vm-interventions-rounds.csv: header" $?

echo "cli_interventions: $pass passed, $fails failed"
[ $fails -eq 0 ]
