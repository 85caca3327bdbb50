#!/usr/bin/env bash
# report/compare.sh RESULTS_A RESULTS_B
#
# Two runs of ./run report, side by side: does the second reproduce the first?
#   counts   every count cell (GCs, faults, carriers, words copied, ...: columns named so) of
#            every CSV the two runs share (results/*.csv, results/derived/*.csv), rows matched
#            by their other columns. The model's counts must be identical (minor faults within
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
# A count column: its name ends in one of these words (or is one); a time or a ratio never is.
counts_re='(^|_)(gcs|faults|carriers|carriers_mapped|gc_words|gc_words_copied|words_copied|fragments|switches|io_polls|heap_words|new_heap_words|cache_hits|tester_gcs|edge_model|edge_vm|matched|total|atom_indexed|same_side|decided|points|lookups|faults_cum|faults_cum_nocache|heap_words_nocache|steady_heap_words|max_new_heap_words|faults_per_1000)$'
# Columns that are neither key nor count: times, ratios, shares, spreads, and the text the
# report shows (a cell that joins several numbers).
measure_re='(_us|_ns|_ms|_s|_pct|ns_per_op|ns_per_word|ops_per_s|ratio|share|samples|_lo|_hi|range|shown|iqr|median|min|max|over_vm|cover|verdict|agree|what|worst|lengths|note|value)($|_)'
files=$( (cd "$a" && ls ./*.csv derived/*.csv 2>/dev/null || true) | sed 's|^\./||' | sort)
ncmp=0 nfiles=0
for f in $files; do
    [ -f "$b/$f" ] || continue
    case "$f" in timings.csv | derived/claims.csv) continue ;; esac
    out=$(awk -v counts_re="$counts_re" -v measure_re="$measure_re" -v name="$f" -v vmfile="$(case "$f" in vm-* | derived/vm-* | derived/eras* | eras.csv) echo 1 ;; *) echo 0 ;; esac)" "$lib"'
        function key(    i, k) { k = ""; for (i = 1; i <= nh; i++) if (!(i in cnt) && !(i in meas)) k = k "|" h[i] "=" csv_f[i]; return k }
        !csv_row() { next }
        csv_rows[FILENAME] == 1 {
            split("", cnt); split("", meas)
            nh = csv_names(FILENAME, h)
            for (i = 1; i <= nh; i++) if (h[i] ~ counts_re) cnt[i] = 1; else if (h[i] ~ measure_re) meas[i] = 1
        }
        csv_file == 1 { k = key(); for (i in cnt) A[k, i] = csv_f[i]; seen[k]++; next }
        { k = key(); if (!(k in seen)) { printf "%s: row %s only in the second run\n", name, k; next }
          for (i in cnt) { x = A[k, i]; y = csv_f[i]; cmp++
              if (x == y) continue
              d = x - y; if (d < 0) d = -d
              vm = vmfile || h[i] ~ /^vm_/ || k ~ /source=vm|side=vm/
              fault = h[i] ~ /fault/
              tol = fault ? (x * 0.005 > 2 ? x * 0.005 : 2) : 0
              if ((x ~ /^-?[0-9.]+$/) && (y ~ /^-?[0-9.]+$/) && d <= tol) continue
              printf "%s %s: %s%s: %s -> %s\n", vm ? "VM" : "MODEL", name, h[i], k, x, y } }
        END { printf "compared %d\n", cmp }' "$a/$f" "$b/$f" 2>&1) || { echo "compare: $f: $out" >&2; status=1; continue; }
    nfiles=$((nfiles + 1))
    ncmp=$((ncmp + $(printf '%s\n' "$out" | sed -n 's/^compared //p')))
    printf '%s\n' "$out" | grep -v '^compared ' >>"${TMPDIR:-/tmp}/compare.$$" || true
done
model_diff=$(grep -c '^MODEL ' "${TMPDIR:-/tmp}/compare.$$" 2>/dev/null || true)
vm_diff=$(grep -c '^VM ' "${TMPDIR:-/tmp}/compare.$$" 2>/dev/null || true)
echo "counts: $ncmp count cells in $nfiles CSVs compared; model: ${model_diff:-0} differ; VM: ${vm_diff:-0} differ"
if [ -s "${TMPDIR:-/tmp}/compare.$$" ]; then sed 's/^/  /' "${TMPDIR:-/tmp}/compare.$$"; fi
[ "${model_diff:-0}" -eq 0 ] || status=1
rm -f "${TMPDIR:-/tmp}/compare.$$"

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
        printf 'load (%s): %s\n' "$d" "$(sed -n 's/^# loadavg: //p' "$d/fidelity.csv" 2>/dev/null | head -n 1)"
    done
else
    echo "ratios: no canonical run in both ($ans)"
fi
exit $status
