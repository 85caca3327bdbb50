#!/usr/bin/env bash
# The model's counts (no times) of every eptest test over the fidelity grid, for every era the
# model has: one CSV row per era, shape, length and test.
#
#   counts.sh BIN_DIR [--quick] > COUNTS.csv   BIN_DIR holds eptest (build/release/experiments);
#                                              --quick: 3 lengths per shape instead of the grid
#   counts.sh --compare A.csv B.csv            exit 0 when the two agree, else each difference
#
# Every count the model makes is deterministic except minor faults, which getrusage counts for
# real (the first pass's vary by a page or two between runs of the same binary: libc's and the
# kernel's own first touches). So --compare wants every other column byte for byte and faults
# within 2 or 0.5 %. Use it to show that a change alters no behaviour, and to check that a
# committed CSV's model columns still come out of the current code.
set -euo pipefail
usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; }
case "${1:-}" in
-h | --help) usage; exit 0 ;;
--compare)
    [ $# -eq 3 ] || { echo "counts.sh: --compare takes two CSV files" >&2; exit 2; }
    awk -F, 'FNR == 1 { if (NR == 1) hdr = $0; else if ($0 != hdr) { print "header differs"; bad = 1 }; next }
        NR == FNR { a[$1 FS $2 FS $3 FS $4] = $0; next }
        {
            k = $1 FS $2 FS $3 FS $4
            if (!(k in a)) { print "only in the second: " $0; bad = 1; next }
            split(a[k], x, FS); delete a[k]
            for (i = 5; i <= NF; i++) {
                d = x[i] - $i; if (d < 0) d = -d
                tol = (i == 5) ? (x[i] * 0.005 > 2 ? x[i] * 0.005 : 2) : 0
                if ((i == 5 && d > tol) || (i != 5 && x[i] != $i)) { print k ": column " i ": " x[i] " / " $i; bad = 1 }
            }
        }
        END { for (k in a) { print "only in the first: " a[k]; bad = 1 }; exit bad }' "$2" "$3"
    exit ;;
esac
bin="${1:?usage: counts.sh BIN_DIR [--quick] (see --help)}"
quick=0
[ "${2:-}" = --quick ] && quick=1
[ -x "$bin/eptest" ] || { echo "counts.sh: no eptest in $bin" >&2; exit 2; }
# the eras eptest --help lists ("... follows: r10b or otp25 (default ...")
eras=$("$bin/eptest" --help | sed -n 's/^ *--era E .*follows: \(.*\) (default.*/\1/p' | sed 's/,/ /g; s/ or / /')
[ -n "$eras" ] || { echo "counts.sh: eptest --help names no era" >&2; exit 2; }
if [ $quick -eq 1 ]; then
    grid() { echo 1000 3000 10000; }
else
    grid() { case "$1" in ints) seq 250 250 30000 ;; *) seq 1000 1000 30000 ;; esac; }
fi
cols="faults gcs gc_words_copied words_copied fragments carriers_mapped switches io_polls"
echo "era,shape,payload_len,test,${cols// /,}"
for era in $eras; do
    for shape in ints floats tuple strings map; do
        for len in $(grid "$shape"); do
            "$bin/eptest" --era "$era" --shape "$shape" --len "$len" --repeats 1 --csv - 2>/dev/null |
                awk -F, -v era="$era" -v cols="$cols" '
                    /^#/ { next }
                    !n { n = split(cols, want, " "); for (i = 1; i <= NF; i++) at[$i] = i; next }
                    { printf "%s,%s,%s,%s", era, $at["shape"], $at["payload_len"], $at["test"]
                      for (i = 1; i <= n; i++) printf ",%s", $at[want[i]]
                      printf "\n" }'
        done
    done
done
