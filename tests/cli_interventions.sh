#!/usr/bin/env bash
# experiments/beam/interventions without building the VM: the committed
# report/data/vm-interventions.csv has its metadata, the columns the report reads and a row
# per source, variant and length; every patch starts with a header naming the erts file, the
# function and the change, and then is a unified diff of one file; build.sh --help and
# --list work for each source (and need neither root nor the source); build.sh and run.sh
# reject bad arguments before they build or run anything.
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
newer=debian-27.3.4.1
nlist=$(bash "$iv/build.sh" --source "$newer" --list 2>&1); check "build.sh --source $newer --list: rc $?" $?
[ "$(echo "$nlist" | tr '\n' ' ')" = "rebuilt emu word_gc_test " ]; check "build.sh --source $newer --list: rebuilt emu word_gc_test ($nlist)" $?
echo "$list" | grep -q '@'; [ $? -ne 0 ]; check "build.sh --list: no ported patch among the installed source's variants" $?
for bad in "--source" "--source 27.3.4.1" "--source debian-" "--source debian-27.x" "--source debian-27.3.4.1 no_such_variant"; do
    # shellcheck disable=SC2086 # the words are the arguments
    bash "$iv/build.sh" $bad >/dev/null 2>&1; rc=$?
    case "$bad" in *no_such_variant) [ $rc -ne 0 ] ;; *) [ $rc -eq 2 ] ;; esac
    check "build.sh $bad: refused (rc $rc)" $?
done
for bad in "--rounds" "--rounds 0" "--repeats x" "--lens 10,20" "--variants no_such_variant" \
           "--variants $newer:no_such_variant" "--variants debian-x:rebuilt" "--variants rebuilt,emu" \
           "--variants" "--edges /no/such/file" "--no-such-option"; do
    # shellcheck disable=SC2086
    out=$(bash "$iv/run.sh" $bad 2>&1); rc=$?
    [ $rc -eq 2 ] && echo "$out" | grep -q '^run.sh: '; check "run.sh $bad: a usage error before anything runs (rc $rc)" $?
done

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
    name=$(basename "$p" .patch)
    case "$name" in
    *@*) bash "$iv/build.sh" --source "${name#*@}" --list 2>/dev/null | grep -qx "${name%@*}"
         check "$b: a variant of build.sh --source ${name#*@} --list" $? ;;
    *) echo "$list" | grep -qx "$name"; check "$b: a variant of build.sh --list" $? ;;
    esac
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
         model_lookup_faults model_carriers vm_lookup_us vm_proc_us vm_ratio_min vm_ratio_max vm_lookup_us_min \
         vm_lookup_us_max vm_repro_gcs vm_min_mbuf_per_free lens_set source; do
    echo ",$header," | grep -q ",$c,"; check "vm-interventions.csv: column $c" $?
done
width=$(echo "$header" | awk -F, '{print NF}')
bad=$(grep -v '^#' "$csv" | tail -n +2 | awk -F, -v w="$width" 'NF != w' | wc -l)
[ "$bad" -eq 0 ]; check "vm-interventions.csv: $bad rows not $width wide" $?
# rows SOURCE VARIANT LEN [LENS_SET]: how many rows the CSV has of them.
rows() {
    grep -v '^#' "$csv" | awk -F, -v s="$1" -v v="$2" -v l="$3" -v k="${4:-}" '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["source"] == s && $c["variant"] == v && $c["payload_len"] == l && (k == "" || $c["lens_set"] == k) { n++ }
        END { print n + 0 }'
}
col() { grep -v '^#' "$csv" | awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }'; }
lens=$(col payload_len | sort -un | tr '\n' ' ')
installed=$(col source | head -n 1)
[[ "$installed" =~ ^debian-[0-9.]+$ ]]; check "vm-interventions.csv: the first row's source is debian-UPSTREAM ($installed)" $?
bad=$(col source | grep -cvE '^debian-[0-9]+(\.[0-9]+)*$'); check "vm-interventions.csv: $bad rows whose source is not debian-UPSTREAM" "$bad"
bad=$(col lens_set | grep -cvxE 'interventions|band_edges'); check "vm-interventions.csv: $bad rows whose lens_set is neither" "$bad"
for v in shipped rebuilt emu $(echo "$list" | grep -v -x -e rebuilt -e emu); do
    for l in 1000 3000 10000 30000; do
        [ "$(rows "$installed" "$v" "$l" interventions)" -eq 1 ]
        check "vm-interventions.csv: one row for $v ($installed) at L = $l (lengths: $lens)" $?
    done
done
# The newer source: as built and the ported word test, at the same lengths, named in the
# metadata with where its source came from.
for v in rebuilt word_gc_test; do
    for l in 1000 3000 10000 30000; do
        [ "$(rows "$newer" "$v" "$l" interventions)" -eq 1 ]; check "vm-interventions.csv: one row for $v ($newer) at L = $l" $?
    done
done
grep -q "^# source: $newer: erlang 1:27\.3\.4\.1" "$csv"; check "vm-interventions.csv: a '# source: $newer:' line naming its package" $?
# The band edges: each edge_vm of fidelity-bands.csv and the length before it, for every variant.
for e in $(awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next } $c["edge_vm"] ~ /^[0-9]+$/ { print $c["edge_vm"] }' \
           "$here/../report/data/fidelity-bands.csv"); do
    for l in $((e - 1)) "$e"; do
        [ "$(rows "$installed" word_gc_test "$l" band_edges)" -eq 1 ] && [ "$(rows "$newer" word_gc_test "$l" band_edges)" -eq 1 ]
        check "vm-interventions.csv: word_gc_test of both sources at the band edge L = $l" $?
    done
done
# The reproducer's GCs and its fragments / free heap at a GC's start: the x86-64 JIT as built
# waits for over 7.5 times the free heap at every GC, the word test does not.
while IFS=, read -r s v l m; do
    case "$v" in
    rebuilt) awk -v m="$m" 'BEGIN { exit !(m > 7.5) }' ;;
    word_gc_test|emu) awk -v m="$m" 'BEGIN { exit !(m >= 1 && m < 7.5) }' ;;
    *) continue ;;
    esac
    check "vm-interventions.csv: min_mbuf_per_free of $v ($s) at L = $l: $m" $?
done < <(grep -v '^#' "$csv" | awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["lens_set"] == "interventions" { print $c["source"], $c["variant"], $c["payload_len"], $c["vm_min_mbuf_per_free"] }')

# The rebuild check: the rebuilt VM collects exactly as often as the shipped one at every
# length, and its minor faults (a count of the whole OS process, which varies by round) are
# within 15 % (or 20 per 1000) of the shipped VM's, or the two VMs' rounds overlap (at L = 30000
# five rounds of each spread over hundreds of faults per 1000 lookups: the one's median need not
# lie within the other's rounds, but two builds whose rounds did not meet would differ).
rounds="${csv%.csv}-rounds.csv"
[ "$(grep -v '^#' "$rounds" 2>/dev/null | head -n 1)" = "side,round,variant,payload_len,proc_us,lookup_us,ratio,lookup_gcs,lookup_faults,carriers,source" ]
check "vm-interventions-rounds.csv: header" $?
while IFS=, read -r l sg sf rg rf slo shi rlo rhi; do
    [ "$sg" = "$rg" ]; check "rebuilt GCs = shipped GCs at L = $l ($rg, $sg)" $?
    awk -v a="$sf" -v b="$rf" -v slo="$slo" -v shi="$shi" -v rlo="$rlo" -v rhi="$rhi" 'BEGIN { d = b - a; if (d < 0) d = -d
        exit !(d <= 20 || d <= 0.15 * a || (rlo <= shi && slo <= rhi)) }'
    check "rebuilt faults as shipped at L = $l (medians $rf, $sf; rounds $rlo-$rhi, $slo-$shi)" $?
done < <(grep -v '^#' "$rounds" | awk -F, -v inst="$installed" '
    FNR == 1 && !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
    $c["side"] == "vm" && $c["source"] == inst { k = $c["variant"] SUBSEP $c["payload_len"]; f = $c["lookup_faults"] + 0
        if (!(k in lo) || f < lo[k]) lo[k] = f; if (!(k in hi) || f > hi[k]) hi[k] = f }
    END { for (k in lo) print k "," lo[k] "," hi[k] }' | tr '\034' , >"${TMPDIR:-/tmp}/cli_interventions_ranges.$$"
    grep -v '^#' "$csv" | awk -F, -v inst="$installed" -v ranges="${TMPDIR:-/tmp}/cli_interventions_ranges.$$" '
    BEGIN { while ((getline line < ranges) > 0) { split(line, p, ","); lo[p[1], p[2]] = p[3]; hi[p[1], p[2]] = p[4] } }
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["source"] != inst || $c["lens_set"] != "interventions" { next }
    $1 == "shipped" { s[$2] = $c["vm_lookup_gcs"] "," $c["vm_lookup_faults"]; o[++n] = $2 }
    $1 == "rebuilt" { r[$2] = $c["vm_lookup_gcs"] "," $c["vm_lookup_faults"] }
    END { for (i = 1; i <= n; i++) if (o[i] in r) { l = o[i]; split(s[l], a, ","); split(r[l], b, ",")
              print l "," a[1] "," a[2] "," b[1] "," b[2] "," lo["shipped", l] "," hi["shipped", l] "," lo["rebuilt", l] "," hi["rebuilt", l] } }')
rm -f "${TMPDIR:-/tmp}/cli_interventions_ranges.$$"

# The upstream package: its README is the committed data's (regenerated, it is unchanged) and
# its reproducer runs with plain erl; on the x86-64 JIT of OTP 25 (the installed VM) it finds
# the byte test.
up="$here/../report/upstream"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cli_interventions.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
sh "$here/../report/generate.sh" "$up/README.md.in" "$here/../report" "$tmp/README.md" >/dev/null 2>&1
check "report/upstream/README.md.in expands on report/data" $?
cmp -s "$tmp/README.md" "$up/README.md"; check "report/upstream/README.md is the committed data's (regenerate it)" $?
if command -v erl >/dev/null && command -v erlc >/dev/null; then
    erlc -o "$tmp" "$up/light_bif_gc.erl"; check "light_bif_gc.erl compiles" $?
    out=$(erl -noshell -pa "$tmp" -s light_bif_gc main -extra 100 1000 2>&1); rc=$?
    check "light_bif_gc runs (rc $rc)" $rc
    echo "$out" | grep -qx 'len,result_words,gcs,min_mbuf_per_free,median_mbuf_per_free,compare'; check "light_bif_gc: its CSV header" $?
    [ "$(echo "$out" | grep -cE '^(100,205|1000,2005),[1-9][0-9]*,[0-9.]+,[0-9.]+,(bytes|words)$')" -eq 2 ]
    check "light_bif_gc: a row per length with its GCs ($out)" $?
    kind=$(erl -noshell -eval 'io:format("~s ~s ~s", [erlang:system_info(otp_release), erlang:system_info(emu_flavor), hd(string:split(erlang:system_info(system_architecture), "-"))]), halt().')
    if [ "$kind" = "25 jit x86_64" ]; then
        [ "$(echo "$out" | grep -c ',bytes$')" -eq 2 ]; check "light_bif_gc: OTP 25's x86-64 JIT compares bytes with words" $?
    fi
fi

echo "cli_interventions: $pass passed, $fails failed"
[ $fails -eq 0 ]
