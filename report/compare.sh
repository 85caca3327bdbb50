#!/usr/bin/env bash
# report/compare.sh RESULTS_A RESULTS_B
#
# Two runs of ./run report, side by side: does the second reproduce the first?
#   counts   every count cell (GCs, faults, carriers, words copied, ...: columns named so) of
#            every CSV the two runs share (results/*.csv, results/derived/*.csv), rows matched
#            by their configuration columns (shape, payload_len, era, test, ...). The model's counts must be identical (minor faults within
#            2 or 0.5 %, as experiments/counts.sh); the VM's (a column or file named vm) are
#            listed when they differ, not failed: the VM's GCs and faults are one process's on
#            a live system.
#   ratios   every headline ratio (results/derived/answer.csv: the canonical run's lookup /
#            round trip per shape and length, the model's and the VM's): each run's median must
#            lie inside the other run's 95 % interval (its _lo and _hi columns).
# Copy a run's results/ aside (cp -a results results-A) before the next ./run report.
# Prints what it compared and every difference; exit 1 when a model count differs or a
# headline ratio lies outside the other run's interval, else 0.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: report/compare.sh RESULTS_A RESULTS_B" >&2; exit 2; }
a=$1 b=$2
for d in "$a" "$b"; do [ -d "$d" ] || { echo "compare: $d is not a directory" >&2; exit 2; }; done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
lib="$(cat "$here/csv.awk") BEGIN { csv_who = \"compare\" }"
status=0

# ---- counts ---------------------------------------------------------------------------------
# A row is matched by its configuration columns (the names below, where the file has them); a
# count column is one whose name says it counts (GCs, faults, carriers, words, ...). Every other
# column is a measurement of time or a verdict drawn from one, and is not compared here.
# (a name that is also a measure in some table, "lookup" or "vm", is a key only where its values
# are names or small integers: a lookup's index, not ns or ops/s)
key_re='^(shape|payload_len|era|ablation|test|variant|iterations|round|source|side|strategy|unit|words|phase|lock_mode|threads|op|lookup|term|mode|criterion|interval|config|label|gc|seq|objects|model_mode|vm_mode|grid|lens_set|vm|benchmark|keys|lookups|model_ablation|flags|file|item|payload_words|dest|src|loop)$'
counts_re='(^|_)(gcs|faults|carriers|carriers_mapped|gc_words|gc_words_copied|words_copied|fragments|io_polls|heap_words|new_heap_words|cache_hits|tester_gcs|edge_model|edge_vm|matched|total|atom_indexed|faults_cum|faults_cum_nocache|heap_words_nocache|steady_heap_words|max_new_heap_words|faults_per_1000|points|heap_before|heap_after|fragments_before|old_heap_after)$'
files=$( (cd "$a" && ls ./*.csv derived/*.csv 2>/dev/null || true) | sed 's|^\./||' | sort)
out_all="${TMPDIR:-/tmp}/compare.$$"
: >"$out_all"
ncmp=0 nfiles=0
for f in $files; do
    [ -f "$b/$f" ] || continue
    # the tables of times and of verdicts drawn from times (no count in them)
    case "$f" in timings.csv | derived/claims.csv | derived/copysweep-* | derived/etsbench-* | derived/crossover-* | \
        derived/ablate-wide.csv | derived/breakdown-wide.csv | derived/levers.csv) continue ;; esac
    out=$(awk -v counts_re="$counts_re" -v key_re="$key_re" -v name="$f" -v vmfile="$(case "$f" in vm-* | derived/vm-* | derived/eras* | eras.csv | derived/answer-variants.csv) echo 1 ;; *) echo 0 ;; esac)" "$lib"'
        function key(    i, k) { k = ""; for (i = 1; i <= nh; i++) if (i in iskey) k = k "|" h[i] "=" csv_f[i]; return k }
        !csv_row() { next }
        csv_rows[FILENAME] == 1 {
            split("", cnt); split("", iskey)
            nh = csv_names(FILENAME, h)
            for (i = 1; i <= nh; i++)
                if (h[i] ~ key_re && !(h[i] ~ /^(lookup|vm)$/ && csv_f[i] ~ /^-?[0-9.]+$/ && !(csv_f[i] ~ /^[0-9]+$/ && csv_f[i] + 0 < 100000))) iskey[i] = 1
                else if (h[i] ~ counts_re) cnt[i] = 1
        }
        csv_file == 1 { k = key(); for (i in cnt) A[k, i] = csv_f[i]; seen[k]++; next }
        { k = key(); if (!(k in seen)) { printf "ROW %s: row %s only in the second run\n", name, k; next }
          for (i in cnt) { x = A[k, i]; y = csv_f[i]; cmp++
              if (x == y) continue
              d = x - y; if (d < 0) d = -d
              vm = vmfile || h[i] ~ /^vm_/ || k ~ /source=vm|side=vm/
              tol = h[i] ~ /fault/ ? (x * 0.005 > 2 ? x * 0.005 : 2) : 0
              if ((x ~ /^-?[0-9.]+$/) && (y ~ /^-?[0-9.]+$/) && d <= tol) continue
              printf "%s %s: %s%s: %s -> %s\n", vm ? "VM" : "MODEL", name, h[i], k, x, y } }
        END { printf "compared %d\n", cmp }' "$a/$f" "$b/$f" 2>&1) || { echo "compare: $f: $out" >&2; status=1; continue; }
    nfiles=$((nfiles + 1))
    ncmp=$((ncmp + $(printf '%s\n' "$out" | sed -n 's/^compared //p')))
    printf '%s\n' "$out" | grep -v '^compared ' >>"$out_all" || true
done
model_diff=$(grep -c '^MODEL ' "$out_all" || true)
vm_diff=$(grep -c '^VM ' "$out_all" || true)
echo "counts: $ncmp count cells in $nfiles CSVs compared; the model's: ${model_diff:-0} differ; the VM's: ${vm_diff:-0} differ"
grep '^MODEL ' "$out_all" | sed 's/^MODEL /  /' || true
rows=$(grep -c '^ROW ' "$out_all" || true)
[ "${rows:-0}" -eq 0 ] || echo "  $rows rows of tables keyed by a verdict drawn from times (answer-wrong, which points disagree) are in one run only"
if [ "${vm_diff:-0}" -gt 0 ]; then
    echo "  the VM's, per file (a VM count is one process's on a live system: listed, not failed):"
    grep '^VM ' "$out_all" | awk '{ f = $2; sub(/:$/, "", f); n[f]++ } END { for (f in n) printf "    %s: %d cells\n", f, n[f] }' | sort
fi
[ "${model_diff:-0}" -eq 0 ] || status=1
rm -f "$out_all"

# ---- headline ratios ------------------------------------------------------------------------
ans=derived/answer.csv
if [ -f "$a/$ans" ] && [ -f "$b/$ans" ]; then
    echo "ratios: lookup / round trip, the canonical run (median [95 % interval]); each inside the other's interval?"
    awk "$lib"'
        !csv_row() { next }
        { k = csv_get("shape") " L=" csv_get("payload_len")
          for (s = 1; s <= 2; s++) { side = s == 1 ? "vm" : "model"
              m[csv_file, k, side] = csv_get(side "_ratio"); lo[csv_file, k, side] = csv_get(side "_ratio_lo"); hi[csv_file, k, side] = csv_get(side "_ratio_hi") }
          if (csv_file == 1) order[++n] = k }
        END {
            printf "  %-16s %-6s %-22s %-22s %s\n", "point", "side", "run A", "run B", "verdict"
            for (i = 1; i <= n; i++) for (s = 1; s <= 2; s++) {
                k = order[i]; side = s == 1 ? "vm" : "model"
                if (!((2, k, side) in m)) { printf "  %-16s %-6s only in run A\n", k, side; continue }
                ab = m[1, k, side] >= lo[2, k, side] && m[1, k, side] <= hi[2, k, side]
                ba = m[2, k, side] >= lo[1, k, side] && m[2, k, side] <= hi[1, k, side]
                v = ab && ba ? "both inside" : ab ? "B outside A" : ba ? "A outside B" : "neither inside"
                if (!(ab && ba)) bad++
                printf "  %-16s %-6s %-22s %-22s %s\n", k, side, sprintf("%.2f [%.2f, %.2f]", m[1, k, side], lo[1, k, side], hi[1, k, side]),
                    sprintf("%.2f [%.2f, %.2f]", m[2, k, side], lo[2, k, side], hi[2, k, side]), v
                total++
            }
            printf "ratios: %d of %d inside each other'"'"'s 95 %% interval\n", total - bad, total
            exit bad ? 1 : 0
        }' "$a/$ans" "$b/$ans" || status=1
    for d in "$a" "$b"; do
        printf 'the canonical run'"'"'s load (%s): %s\n' "$d" "$(sed -n 's/^# load: //p' "$d/fidelity.csv" 2>/dev/null | head -n 1)"
    done
else
    echo "ratios: no canonical run in both ($ans)"
fi
exit $status
