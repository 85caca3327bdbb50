#!/usr/bin/env bash
# report/pipeline.sh [--quick] [--check] BUILD_DIR
#
# Runs every experiment binary of BUILD_DIR into results/, the real-VM twins when
# experiments/beam/run.sh and erl are there, derives the tables the figures and the report
# read (results/derived/), draws every figure (plots/*.gp -> report/figures/*.svg, *.png)
# and regenerates report/REPORT.md from report/REPORT.md.in (and report/upstream/README.md from its
# .in, on the committed VM data alone). Called by `./run report`.
# --check: afterwards, verify every CSV has rows, every figure exists and the report is new.
# Any failing step stops the pipeline with its name and exit status. Every CSV is read by its
# columns' names (report/csv.awk; report/csv.sh from the shell and from gnuplot): a missing
# column or an empty CSV stops it with a message naming the file and the column.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
quick=0 check=0
while [ $# -gt 1 ]; do
    case "$1" in
    --quick) quick=1 ;;
    --check) check=1 ;;
    *) echo "pipeline: unknown option '$1'" >&2; exit 2 ;;
    esac
    shift
done
[ $# -eq 1 ] || { echo "usage: report/pipeline.sh [--quick] [--check] BUILD_DIR" >&2; exit 2; }
bin="$1/experiments"
tool="$1/termcopy"
res=results der=results/derived figs=report/figures
mkdir -p "$res" "$der" "$figs"
started=$(date +%s)

say() { printf '==> [%3ss] %s\n' "$(($(date +%s) - started))" "$*" >&2; }
die() { printf 'pipeline: %s\n' "$*" >&2; exit 1; }

# run NAME CMD...: one experiment; its output goes to results/NAME.log, a failure stops all.
run() {
    local name="$1"; shift
    say "$name: $*"
    local rc=0
    "$@" >"$res/$name.log" 2>&1 || rc=$?
    [ $rc -eq 0 ] || { tail -n 20 "$res/$name.log" >&2; die "$name failed (exit $rc; log: $res/$name.log)"; }
}

# Sizes: etsbench stores 100,000 objects on both sides (the seed: 1,000,000; the VM's table
# sizes run add one of 1,000,000 on one scheduler), the VM runs run.sh's --quick set (L = 1000
# and 10000 with the variants); --quick is the smallest of everything (the VM: --tiny).
# The canonical run (fidelity.sh): lists of integers from 10 to 30000 and tuples at the lengths
# where the lists change sides, 3 rounds; --quick: one round of 100 calls per pass.
q=() sizes=(10 1000 10000) cross=() ets=(--iterations 100000 --repeats 3) beam=(--quick) fid=()
fid_ints="10 100 1000 3000 10000 30000" fid_tuple="1000 3000 10000" explain_args=(--iterations 200 --repeats 1)
fid_oh=(--rounds 2) # the short lengths with the vm_overhead phase: two rounds (after fid's own)
acct=(--rounds 1)   # the time account: one round of the fidelity grid
codec_batches=40   # experiments/codec_payload.h's TC_CODEC_BATCHES (--quick: TC_CODEC_QUICK_BATCHES)
if [ $quick -eq 1 ]; then
    codec_batches=10
    q=(--quick) cross=(--shape ints) ets=(--iterations 10000 --repeats 3) beam=(--tiny)
    fid=(--rounds 1 --repeats 1 --iterations 100) fid_ints="100 1000 3000 10000 30000" fid_tuple="1000"
    explain_args=(--iterations 20 --repeats 1) fid_oh=() acct=(--quick --shapes ints --lens "1000 10000")
fi

# ---- experiments -------------------------------------------------------------------------
# The seed's own runs under its era's rules (seed2005.csv's '# era: seed-NAME'); the native era
# and the VM are the canonical run below.
seed_era=$(report/csv.sh meta report/data/seed2005.csv era | sed -n 's/^seed-\([a-z0-9_]*\).*/\1/p')
[ -n "$seed_era" ] || die "report/data/seed2005.csv: its '# era:' line names no seed-ERA"
for len in "${sizes[@]}"; do
    run "eptest-seed-$len" "$bin/eptest" "${q[@]}" --era "$seed_era" --len "$len" --csv "$res/eptest-seed-$len.csv"
done
# Verdicts from priced counts: the VM's unit prices on this machine (experiments/beam/account.sh,
# committed with its date and machine like the sweep) price each variant's and point's counts.
prices=()
[ -f report/data/account-prices.csv ] && prices=(--prices report/data/account-prices.csv)
run ablate "$bin/ablate" "${q[@]}" ${prices[@]+"${prices[@]}"} --csv "$res/ablate.csv"
run crossover "$bin/crossover" "${q[@]}" "${cross[@]}" ${prices[@]+"${prices[@]}"} --csv "$res/crossover.csv" --summary "$res/crossover-summary.csv"
run breakdown "$bin/breakdown" "${q[@]}" --csv "$res/breakdown.csv"
run copysweep "$bin/copysweep" "${q[@]}" --csv "$res/copysweep.csv"
# The external format: termcopy's codec, and erl_interface's ei where codecpeer was built (it
# needs libei: Debian's erlang-dev); the VM's side runs below with the other twins.
run codec "$bin/copysweep" --codec "${q[@]}" --csv "$res/codec.csv"
rm -f "$res/codec-ei.csv" "$res/codec-vm.csv"
if [ -x "$bin/codecpeer" ]; then
    run codecpeer "$bin/codecpeer" "${q[@]}" --csv "$res/codec-ei.csv"
else
    say "codecpeer: skipped (built without erl_interface's libei: apt-get install erlang-dev)"
fi
run heaptrace "$bin/heaptrace" --csv "$res/heaptrace.csv"
run heaptrace-nocache "$bin/heaptrace" --set mseg_cache=0 --csv "$res/heaptrace-nocache.csv"
run etsbench "$bin/etsbench" "${q[@]}" "${ets[@]}" --csv "$res/etsbench.csv"
# The policy table and ablate's variants, as the report's appendix and §3.6 print them.
run policy "$bin/eptest" --list-policy --csv "$res/policy.csv"
run ablations "$bin/ablate" --list-ablations --csv "$res/ablations.csv"

# ---- the real VM -------------------------------------------------------------------------
rm -rf "$res/vm" "$res"/fidelity*.csv "$res"/account*.csv
if [ -x experiments/beam/run.sh ] && command -v erl >/dev/null 2>&1; then
    run beam experiments/beam/run.sh "${beam[@]}" --ets-n "${ets[1]}" "$res/vm"
    run fidelity-ints experiments/beam/fidelity.sh "${fid[@]}" --shapes ints --lens "$fid_ints" "$bin/eptest" "$res/fidelity-ints.csv"
    run fidelity-tuple experiments/beam/fidelity.sh "${fid[@]}" --shapes tuple --lens "$fid_tuple" "$bin/eptest" "$res/fidelity-tuple.csv"
    # The short lengths with the vm_overhead phase charged, against the VM in the same rounds.
    run fidelity-vm-overhead experiments/beam/fidelity.sh "${fid[@]}" ${fid_oh[@]+"${fid_oh[@]}"} --vm-overhead --lens "10 100 1000" \
        "$bin/eptest" "$res/fidelity-vm-overhead.csv"
    # term_to_binary/1 and binary_to_term/1 on copysweep --codec's payloads, as many batches.
    run codec-vm experiments/beam/codec.sh --batches "$codec_batches" "$res/codec.csv" "$res/codec-vm.csv"
    # The time account: the VM's loops, counts and unit prices in one session, the model's counts
    # at those prices (about 40 s: one round of the fidelity grid; --quick two points of 200 calls).
    if [ -f "$bin/cpuclock.so" ]; then
        run account experiments/beam/account.sh "${acct[@]}" --bin "$bin" --out "$res/account.csv" \
            --prices "$res/account-prices.csv"
    else
        say "account: skipped (no cpuclock NIF: apt-get install erlang-dev, then rebuild)"
    fi
    # Every unit cost beside the VM's, alternated point by point (unitcost starts erl itself).
    run unitcost "$bin/unitcost" "${q[@]}" --vm --csv "$res/unitcost.csv"
    # termcopy explain --vm on five terms a user has (the report's last section): the model's
    # verdict and the VM's, alternated, for each term as its text.
    explain_row() { # LABEL TERM
        local out rc=0
        out=$(printf '%s' "$2" | "$tool" explain --vm --tsv "${explain_args[@]}" - 2>"$res/explain-$1.log") || rc=$?
        [ $rc -eq 0 ] || { tail -n 5 "$res/explain-$1.log" >&2; die "termcopy explain of $1 failed (exit $rc; log: $res/explain-$1.log)"; }
        printf '%s\t%s\n' "$1" "$out"
    }
    say "explain: termcopy explain --vm --tsv ${explain_args[*]} on five terms"
    {
        echo "# command: termcopy explain --vm --tsv ${explain_args[*]} TERM"
        echo "# counts: per 1000 lookups; model and VM alternated, round by round"
        echo "term,model_ratio,vm_ratio,model_lookup_gcs,vm_lookup_gcs,model_lookup_faults,vm_lookup_faults,verdict,model_exec_ratio"
        {
            explain_row record "{user, 42, <<\"ann@example.org\">>, <<0:800>>, [admin, dev], 1.5e3, {1999, 12, 31}}"
            explain_row map1000 "#{$(seq 1 1000 | awk '{ printf "%s%d => %d", (NR > 1 ? ", " : ""), $1, $1 }')}"
            explain_row tuples10000 "[$(seq 1 10000 | awk '{ printf "%s{%d, a}", (NR > 1 ? "," : ""), $1 }')]"
            explain_row binary100k "<<0:819200>>"
            explain_row tree12 "$(awk 'function t(d) { if (d == 0) return "leaf"; return "{node, " t(d - 1) ", " t(d - 1) "}" } BEGIN { print t(12) }')"
        } | tr '\t' ','
    } >"$res/explain.csv"
else
    say "real VM: skipped ($(command -v erl >/dev/null 2>&1 && echo "experiments/beam/run.sh not there yet" || echo "erl not installed"))"
    run unitcost "$bin/unitcost" "${q[@]}" --csv "$res/unitcost.csv"
fi

# ---- derived tables ----------------------------------------------------------------------
say "deriving tables, the figures and the report"
# merge OUT FILES...: the first file's metadata and header, then every file's rows; the files
# must have the same header.
merge() {
    local out="$1"; shift
    awk 'FNR == 1 { body = 0 } /^#/ { if (FNR == NR) print; next }
        !body { body = 1; if (FNR == NR) { header = $0; print }
                else if ($0 != header) { printf "pipeline: %s: its header differs from %s'"'"'s\n", FILENAME, ARGV[1] > "/dev/stderr"; exit 1 }
                next }
        { print }' "$@" >"$out" || die "merging $out failed"
}
merge "$res/eptest.csv" "$res"/eptest-seed-*.csv
[ -f "$res/fidelity-ints.csv" ] && merge "$res/fidelity.csv" "$res/fidelity-ints.csv" "$res/fidelity-tuple.csv"
# The VM's CSVs (experiments/beam/run.sh): the plain ints runs (eptest_ints_L.csv) as the VM's
# eptest, its variant runs one file each (eptest_ints_L_VARIANT.csv), the crossover grid and
# etsbench found by their header rows.
rm -f "$res"/vm-*.csv
if [ -d "$res/vm" ]; then
    base=$(ls "$res"/vm/eptest_ints_*.csv 2>/dev/null | grep -E '/eptest_ints_[0-9]+\.csv$' || true)
    [ -n "$base" ] && merge "$res/vm-eptest.csv" $base
    for f in "$res"/vm/*.csv; do
        case "$(basename "$f"):$(grep -v '^#' "$f" | head -n 1)" in
        crossover_ints_fine.csv:*) cp "$f" "$res/vm-crossover-fine.csv" ;;
        *:shape,payload_len,iterations,era,proc_us*) cp "$f" "$res/vm-crossover.csv" ;;
        *:lock_mode,threads,op*) cp "$f" "$res/vm-etsbench.csv" ;;
        *:objects,lock_mode,threads,op*) cp "$f" "$res/vm-etsbench-sizes.csv" ;;
        esac
    done
fi
rm -f "$der"/*.csv "$res/fidelity-sweep.csv"
# The committed fidelity sweep (experiments/beam/sweep.sh: minutes of model and VM runs; its own
# command) is read, not rerun: the figure and §5 take it from results/ like every other CSV.
[ -f report/data/fidelity-sweep.csv ] && cp report/data/fidelity-sweep.csv "$res/fidelity-sweep.csv"
# The seeds' own VMs (experiments/beam/eras/run.sh on old VMs a user built; ./run report --eras):
# committed, read like the sweep.
rm -f "$res/eras.csv"
[ -f report/data/eras.csv ] && cp report/data/eras.csv "$res/eras.csv"
report/derive.sh "$res" "$der" "$quick" || die "deriving the tables failed"

# Every derived table has a header and rows (report/csv.sh says which does not).
for f in "$der"/*.csv; do
    report/csv.sh check "$f" || die "the derived table $f is not a CSV with rows"
done

# ---- figures and report ------------------------------------------------------------------
vm=$([ -f "$res/vm-eptest.csv" ] && echo 1 || echo 0)
for gp in plots/fig*.gp; do
    name=$(basename "$gp" .gp)
    for fmt in svg png; do
        gnuplot -e "res='$res'; der='$der'; vm=$vm; fmt='$fmt'; out='$figs/$name.$fmt'" "$gp" \
            2>"$res/plot-$name.log" || { cat "$res/plot-$name.log" >&2; die "figure $name failed"; }
        # gnuplot only warns of a file or a named column it cannot find when other series plot
        ! grep -E 'Cannot find or open file|no column with header' "$res/plot-$name.log" >&2 ||
            die "figure $name: a file or a column is missing (log: $res/plot-$name.log)"
    done
done
report/generate.sh report/REPORT.md.in "$res" report/REPORT.md || die "generating report/REPORT.md failed"
# The upstream package's README reads only the committed VM data (report/data).
report/generate.sh report/upstream/README.md.in report report/upstream/README.md ||
    die "generating report/upstream/README.md failed"

if [ $check -eq 1 ]; then
    bad=0
    for f in "$res"/*.csv "$der"/*.csv; do
        report/csv.sh check "$f" || { echo "check: $f is not a CSV with rows (above)" >&2; bad=1; }
    done
    for gp in plots/fig*.gp; do
        for fmt in svg png; do
            f="$figs/$(basename "$gp" .gp).$fmt"
            [ -s "$f" ] && [ "$f" -nt "$res/ablate.csv" ] || { echo "check: $f missing or stale" >&2; bad=1; }
        done
    done
    [ report/REPORT.md -nt "$res/ablate.csv" ] || { echo "check: report/REPORT.md was not regenerated" >&2; bad=1; }
    grep -q '{{' report/REPORT.md && { echo "check: unexpanded marker in report/REPORT.md" >&2; bad=1; }
    [ $bad -eq 0 ] || die "check failed"
    say "check: every CSV has rows, every figure exists, the report is regenerated"
fi
say "done"
printf '\nreport:      %s\nfigures:     %s/*.svg, *.png\nresults:     %s/*.csv (derived tables: %s)\n' \
    "$top/report/REPORT.md" "$top/$figs" "$top/$res" "$der"
