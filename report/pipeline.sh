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
# Every VM session of the run (unitcost, account, explain: scenarios/vmside.h) on one compile of
# experiments/beam's modules, made by the first of them.
export TC_BEAM_CACHE="$top/$res/beam"
rm -rf "$TC_BEAM_CACHE"
started=$(date +%s)

say() { printf '==> [%3ss] %s\n' "$(($(date +%s) - started))" "$*" >&2; }
die() { printf 'pipeline: %s\n' "$*" >&2; exit 1; }

# The phases' cost: wall seconds, CPU seconds of this shell and its children (bash's times),
# and the 1-minute load average at its start and end, one row per phase in results/timings.csv
# (the report's reproducibility table quotes them; the machine is shared, so a wall time means
# little without its load and its CPU time).
# cpu_now: the CPU seconds so far into cpu (times must run in this shell, not in a $(...)).
cpu_now() {
    times >"$res/.times"
    cpu=$(awk '{ for (i = 1; i <= NF; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } } END { printf "%.2f", s }' "$res/.times")
}
load1() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo -; }
phase_name="" phase_wall=0 phase_cpu=0 phase_load=-
echo "phase,wall_s,cpu_s,load_start,load_end" >"$res/timings.csv"
phase_end() {
    [ -n "$phase_name" ] || return 0
    cpu_now
    printf '%s,%d,%.1f,%s,%s\n' "$phase_name" "$(($(date +%s) - phase_wall))" \
        "$(awk -v a="$cpu" -v b="$phase_cpu" 'BEGIN { print a - b }')" "$phase_load" "$(load1)" >>"$res/timings.csv"
    phase_name=""
}
phase() { phase_end; cpu_now; phase_name="$1" phase_wall=$(date +%s) phase_cpu=$cpu phase_load=$(load1); }

# run NAME CMD...: one experiment, a phase of its own; its output goes to results/NAME.log, a
# failure stops all.
run() {
    local name="$1"; shift
    say "$name: $*"
    phase "$name"
    local rc=0
    "$@" >"$res/$name.log" 2>&1 || rc=$?
    [ $rc -eq 0 ] || { tail -n 20 "$res/$name.log" >&2; die "$name failed (exit $rc; log: $res/$name.log)"; }
    phase_end
}

# Sizes: etsbench stores 100,000 objects on both sides, one run each (the seed: 1,000,000 and
# one run; the VM's table sizes run adds one of 1,000,000 on one scheduler), the VM runs
# run.sh's --quick set (L = 1000 and 10000 with the variants, lists only); the crossover grid one
# run per point (it draws the curve's shape: the canonical run below has the intervals at the
# lengths that matter), the breakdown six runs, copysweep and unitcost three sizes (2 Ki, 32 Ki,
# 512 Ki or 1 Mi words: their per-word costs change little between sizes), the codec 20 timed
# batches per operation and side (a median and a minimum of 20; the VM's codec is 1.3x the
# library's or more on every shape); --quick is the smallest of everything (the VM: --tiny,
# lists only as here).
# The canonical run (fidelity.sh): lists of integers from 10 to 30000 and tuples at the lengths
# where the lists change sides, model and VM alternated point by point, 6 rounds of one fresh
# tester each (the fewest rounds with a 95 % interval of the median); --quick: one round of 100
# calls per pass.
q=() sizes=(10 1000 10000) cross=(--repeats 1) brk=(--repeats 6) ets=(--iterations 100000 --repeats 1) beam=(--quick --ints-only)
fid=() units=(--quick) copies=(--quick)
fid_lens="ints:10 ints:100 ints:1000 ints:3000 ints:10000 ints:30000 tuple:1000 tuple:3000 tuple:10000"
explain_args=(--iterations 1000 --repeats 5) ablate_runs=3 trace_args=(10000 200) grid_lens=()
off_lens="50 150 333 750 1234 1500 2500 4000 6000 7000 9000 12000 15000 17500 22000 25000 27500"
mut_lens="9000 17500 22000 27500"
acct=(--rounds 5)   # the time account: five rounds of the fidelity grid, each round's ratio its own
schedraw_runs=6    # which scheduler runs the tester (§5.1): runs of each +scl setting, alternated
codec_batches=20   # experiments/codec_payload.h's TC_CODEC_BATCHES (--quick: TC_CODEC_QUICK_BATCHES)
if [ $quick -eq 1 ]; then
    codec_batches=10
    q=(--quick) cross=(--shape ints) brk=() ets=(--iterations 10000 --repeats 1) beam=(--tiny --ints-only) units=(--shape ints) copies=()
    fid=(--rounds 1 --iterations 100) fid_lens="ints:100 ints:1000 ints:3000 ints:10000 ints:30000 tuple:1000"
    explain_args=(--iterations 20 --repeats 1) ablate_runs=1 trace_args=(3000 50) grid_lens=(--lens "10 100 250 500 1000 2000 3000")
    off_lens="50 150 333 750 1234 1500 2500 9000" mut_lens="9000"
    acct=(--quick --shapes ints --lens "1000 10000") schedraw_runs=1
fi

# ---- experiments -------------------------------------------------------------------------
# The seed's own runs under its era's rules (seed2005.csv's '# era: seed-NAME'); the native era
# and the VM are the canonical run below.
seed_era=$(report/csv.sh meta report/data/seed2005.csv era | sed -n 's/^seed-\([a-z0-9_]*\).*/\1/p')
[ -n "$seed_era" ] || die "report/data/seed2005.csv: its '# era:' line names no seed-ERA"
for len in "${sizes[@]}"; do
    run "eptest-seed-$len" "$bin/eptest" "${q[@]}" --era "$seed_era" --len "$len" --csv "$res/eptest-seed-$len.csv"
done
# Verdicts from priced counts (DESIGN rule 8): the VM's unit prices on this machine price each
# ablation variant's and crossover point's counts. They are this run's: the time account runs
# first (the VM's loops, counts and unit prices in one session, the model's counts at those
# prices; about 2 min: five rounds of the fidelity grid, whose per-round ratios' median the report
# quotes, a burst of load in one round moving it less; --quick two points of 200 calls). Without
# the VM (or its cpuclock NIF) the committed prices (report/data/account-prices.csv, measured
# with the sweep's shapes; its date and machine are in its metadata) price them instead.
rm -f "$res"/account*.csv
prices=()
if [ -x experiments/beam/account.sh ] && command -v erl >/dev/null 2>&1 && [ -f "$bin/cpuclock.so" ]; then
    run account experiments/beam/account.sh "${acct[@]}" --bin "$bin" --out "$res/account.csv" \
        --prices "$res/account-prices.csv"
    prices=(--prices "$res/account-prices.csv")
else
    command -v erl >/dev/null 2>&1 && say "account: skipped (no cpuclock NIF: apt-get install erlang-dev, then rebuild)"
    [ -f report/data/account-prices.csv ] && prices=(--prices report/data/account-prices.csv)
fi
# The ablation: three runs of one repeat, every switch in turn in each (a median and a spread
# for every switch, the switches interleaved); --quick: one.
rm -f "$res"/ablate-r*.csv "$res/ablate.csv"
for r in $(seq 1 "$ablate_runs"); do
    run "ablate-r$r" "$bin/ablate" "${q[@]}" ${prices[@]+"${prices[@]}"} --repeats 1 --csv "$res/ablate-r$r.csv"
done
run crossover "$bin/crossover" "${q[@]}" "${cross[@]}" ${prices[@]+"${prices[@]}"} --csv "$res/crossover.csv" --summary "$res/crossover-summary.csv"
run breakdown "$bin/breakdown" "${q[@]}" ${brk[@]+"${brk[@]}"} --csv "$res/breakdown.csv"
run copysweep "$bin/copysweep" "${q[@]}" ${copies[@]+"${copies[@]}"} --csv "$res/copysweep.csv"
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
# The tester's whole life at one scheduler (§5.2): the VM's GC traces of eptest's tester and
# server at +S 1:1 over tracediff.sh's grid, measured once and committed (report/data/
# tracegrid-s1-vm.tar.xz: each trace keeps its own metadata), against this code's model, event
# by event (no erl needed; --quick: lengths up to 3000). tracediff.sh exits 1 when a point
# differs: the report shows where, and the outcomes of the dirty-GC race under which the model
# follows the VM there (--search-draws; report/data/tracegrid-s1-draws.csv holds the outcomes
# the last search found: one model run confirms each while the model is unchanged, else the
# search runs again, a few minutes).
rm -rf "$res/tracegrid-s1-vm" "$res/tracegrid-s1.csv"
mkdir -p "$res/tracegrid-s1-vm" && tar -xJf report/data/tracegrid-s1-vm.tar.xz -C "$res/tracegrid-s1-vm" ||
    die "cannot unpack report/data/tracegrid-s1-vm.tar.xz (tar with xz)"
grid_run() { experiments/beam/tracediff.sh "$@" || [ $? -eq 1 ]; }
run tracegrid-s1 grid_run --grid --schedulers 1 --replay "$res/tracegrid-s1-vm" --bin "$bin" ${grid_lens[@]+"${grid_lens[@]}"} \
    --search-draws --draws-hint report/data/tracegrid-s1-draws.csv --csv "$res/tracegrid-s1.csv"
# The same at lengths the grid does not hold (report/data/tracegrid-s1-off-vm.tar.xz, traced
# after the model's rules were written; --quick: those up to 2500 and 9000; a search that needs more than
# 20 model runs stops there, the divergence it reached left in the table: map L = 17500).
rm -rf "$res/tracegrid-s1-off-vm" "$res/tracegrid-s1-off.csv"
mkdir -p "$res/tracegrid-s1-off-vm" && tar -xJf report/data/tracegrid-s1-off-vm.tar.xz -C "$res/tracegrid-s1-off-vm" ||
    die "cannot unpack report/data/tracegrid-s1-off-vm.tar.xz (tar with xz)"
run tracegrid-s1-off grid_run --grid --schedulers 1 --replay "$res/tracegrid-s1-off-vm" --bin "$bin" --lens "$off_lens" \
    --search-draws --search-limit 20 --draws-hint report/data/tracegrid-s1-draws.csv --csv "$res/tracegrid-s1-off.csv"
# One allocator instance for every thread (the VM's +Mut false, the model's alloc_instances=1;
# report/data/tracegrid-s1-mut-vm.tar.xz) at four off-grid lengths, among them those where,
# by default, the VM's lookup pass maps more segments than the model: the blocks a dirty GC
# frees for the scheduler's instance, which it takes back only after thread progress
# (alloc/mseg.h).
rm -rf "$res/tracegrid-s1-mut-vm" "$res/tracegrid-s1-mut.csv"
mkdir -p "$res/tracegrid-s1-mut-vm" && tar -xJf report/data/tracegrid-s1-mut-vm.tar.xz -C "$res/tracegrid-s1-mut-vm" ||
    die "cannot unpack report/data/tracegrid-s1-mut-vm.tar.xz (tar with xz)"
run tracegrid-s1-mut grid_run --grid --schedulers 1 --replay "$res/tracegrid-s1-mut-vm" --bin "$bin" --shapes "ints tuple floats strings" --lens "$mut_lens" \
    --set alloc_instances=1 --search-draws --draws-hint report/data/tracegrid-s1-draws.csv --csv "$res/tracegrid-s1-mut.csv"
# The policy table and ablate's variants, as the report's appendix and §3.6 print them.
run policy "$bin/eptest" --list-policy --csv "$res/policy.csv"
run ablations "$bin/ablate" --list-ablations --csv "$res/ablations.csv"

# ---- the real VM -------------------------------------------------------------------------
rm -rf "$res/vm" "$res/trace" "$res"/fidelity*.csv "$res/schedraw.csv"
if [ -x experiments/beam/run.sh ] && command -v erl >/dev/null 2>&1; then
    run beam experiments/beam/run.sh "${beam[@]}" --ets-n "${ets[1]}" --ets-repeats "${ets[3]}" "$res/vm"
    run fidelity experiments/beam/fidelity.sh "${fid[@]}" --vm-variants --points "$fid_lens" "$bin/eptest" "$res/fidelity.csv"
    # The lookup loop of a fresh process traced GC by GC on the VM and in the model (§2).
    # (tracediff.sh exits 1 when the traces differ: the report shows where)
    trace_run() { experiments/beam/tracediff.sh "$@" || [ $? -eq 1 ]; }
    run tracediff trace_run --bin "$bin" --keep "$res/trace" "${trace_args[@]}"
    # Which normal scheduler runs the tester, with OTP 25's compaction of load and without (§5.1).
    run schedraw experiments/beam/schedraw.sh --runs "$schedraw_runs" --out "$res/schedraw.csv"
    # term_to_binary/1 and binary_to_term/1 on copysweep --codec's payloads, as many batches.
    run codec-vm experiments/beam/codec.sh --batches "$codec_batches" "$res/codec.csv" "$res/codec-vm.csv"
    # Every unit cost beside the VM's, alternated point by point (unitcost starts erl itself).
    run unitcost "$bin/unitcost" "${q[@]}" ${units[@]+"${units[@]}"} --vm --csv "$res/unitcost.csv"
    # termcopy explain --vm on five terms a user has (the report's last section): the model's
    # verdict and the VM's, alternated, for each term as its text.
    explain_row() { # LABEL TERM
        local out rc=0
        out=$(printf '%s' "$2" | "$tool" explain --vm --tsv "${explain_args[@]}" - 2>"$res/explain-$1.log") || rc=$?
        [ $rc -eq 0 ] || { tail -n 5 "$res/explain-$1.log" >&2; die "termcopy explain of $1 failed (exit $rc; log: $res/explain-$1.log)"; }
        printf '%s\t%s\n' "$1" "$out"
    }
    say "explain: termcopy explain --vm --tsv ${explain_args[*]} on a user's terms"
    phase explain
    {
        echo "# command: termcopy explain --vm --tsv ${explain_args[*]} TERM"
        echo "# counts: per 1000 lookups; model and VM alternated, round by round"
        echo "term,model_ratio,vm_ratio,model_lookup_gcs,vm_lookup_gcs,model_lookup_faults,vm_lookup_faults,verdict,model_exec_ratio"
        {
            explain_row record "{user, 42, <<\"ann@example.org\">>, <<0:800>>, [admin, dev], 1.5e3, {1999, 12, 31}}"
            # --quick: the record and the binary (a heap term and an off-heap one), the rest at default size
            if [ $quick -eq 0 ]; then
                explain_row map1000 "#{$(seq 1 1000 | awk '{ printf "%s%d => %d", (NR > 1 ? ", " : ""), $1, $1 }')}"
                explain_row tuples10000 "[$(seq 1 10000 | awk '{ printf "%s{%d, a}", (NR > 1 ? "," : ""), $1 }')]"
            fi
            explain_row binary100k "<<0:819200>>"
            [ $quick -eq 1 ] || explain_row tree12 "$(awk 'function t(d) { if (d == 0) return "leaf"; return "{node, " t(d - 1) ", " t(d - 1) "}" } BEGIN { print t(12) }')"
        } | tr '\t' ','
    } >"$res/explain.csv"
    phase_end
else
    say "real VM: skipped ($(command -v erl >/dev/null 2>&1 && echo "experiments/beam/run.sh not there yet" || echo "erl not installed"))"
    run unitcost "$bin/unitcost" "${q[@]}" --csv "$res/unitcost.csv"
fi

# ---- derived tables ----------------------------------------------------------------------
say "deriving tables, the figures and the report"
phase merge
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
rm -f "$der"/*.csv "$res/fidelity-sweep.csv" "$res/eras.csv" "$res/eras-prices.csv"
phase_end
# The committed CSVs (report/data/: measurements that take minutes to hours, each with its own
# command) are read, not rerun; their model columns come from the current code: recompute.sh
# checks them (it reruns the model only where the sources changed since they were written) and
# puts the copies the report reads in results/data/, with the current code's counts.
say "committed data: report/recompute.sh --check (the model's columns from the current code)"
phase recompute
rm -rf "$res/data" && mkdir -p "$res/data"
recompute_rc=0
report/recompute.sh --check $([ $quick -eq 1 ] && echo --quick) --bin "$bin" --out "$res/data" 2>"$res/recompute.log" || recompute_rc=$?
cat "$res/recompute.log" >&2
[ $recompute_rc -le 1 ] || die "report/recompute.sh failed (exit $recompute_rc; log: $res/recompute.log)"
for f in report/data/*.csv; do [ -f "$res/data/$(basename "$f")" ] || cp "$f" "$res/data/"; done
phase_end
phase derive
# The sweep and the seeds' own VMs from results/ like every other CSV.
[ -f "$res/data/fidelity-sweep.csv" ] && cp "$res/data/fidelity-sweep.csv" "$res/fidelity-sweep.csv"
# The whole sweep's model again with the other outcome of the dirty-GC race (heaps/sched.h,
# policy dirty_gc_first, on in OTP 25: off, the server's turn first; §5.1), through sweep.sh
# --remodel (the VM's columns kept; about 10 min; not in --quick).
rm -f "$res/fidelity-sweep-serverfirst.csv"
if [ -f "$res/fidelity-sweep.csv" ] && [ $quick -eq 0 ]; then
    say "the sweep with the race's other outcome (sweep.sh --remodel --set dirty_gc_first=off)"
    experiments/beam/sweep.sh --remodel "$res/fidelity-sweep.csv" --set dirty_gc_first=off --bin "$bin" \
        --out "$res/fidelity-sweep-serverfirst.csv" >"$res/sweep-serverfirst.log" 2>&1 || die "sweep.sh --remodel failed (log: $res/sweep-serverfirst.log)"
fi
[ -f "$res/data/eras.csv" ] && cp "$res/data/eras.csv" "$res/eras.csv"
[ -f "$res/data/eras-prices.csv" ] && cp "$res/data/eras-prices.csv" "$res/eras-prices.csv"
report/derive.sh "$res" "$der" "$quick" || die "deriving the tables failed"

# Every derived table has a header and rows (report/csv.sh says which does not).
for f in "$der"/*.csv; do
    report/csv.sh check "$f" || die "the derived table $f is not a CSV with rows"
done

# ---- figures and report ------------------------------------------------------------------
phase figures
vm=$([ -f "$res/vm-eptest.csv" ] && echo 1 || echo 0)
# Drawing measures nothing, so a figure's two formats are drawn at once, one per core.
for gp in plots/fig*.gp; do
    name=$(basename "$gp" .gp) pids=()
    for fmt in svg png; do
        gnuplot -e "res='$res'; der='$der'; vm=$vm; fmt='$fmt'; out='$figs/$name.$fmt'" "$gp" \
            2>"$res/plot-$name.$fmt.log" &
        pids+=($!)
    done
    for fmt in svg png; do
        log="$res/plot-$name.$fmt.log"
        wait "${pids[0]}" || { cat "$log" >&2; die "figure $name ($fmt) failed"; }
        pids=("${pids[@]:1}")
        # gnuplot only warns of a file or a named column it cannot find when other series plot
        ! grep -E 'Cannot find or open file|no column with header' "$log" >&2 ||
            die "figure $name: a file or a column is missing (log: $log)"
    done
done
phase generate
report/generate.sh --claims "$der/claims.csv" report/REPORT.md.in "$res" report/REPORT.md || die "generating report/REPORT.md failed"
# The upstream package's README reads only the committed VM data (report/data).
report/generate.sh report/upstream/README.md.in report report/upstream/README.md ||
    die "generating report/upstream/README.md failed"
phase_end

if [ $check -eq 1 ]; then
    phase check
    bad=0
    for f in "$res"/*.csv "$der"/*.csv; do
        report/csv.sh check "$f" || { echo "check: $f is not a CSV with rows (above)" >&2; bad=1; }
    done
    for gp in plots/fig*.gp; do
        for fmt in svg png; do
            f="$figs/$(basename "$gp" .gp).$fmt"
            [ -s "$f" ] && [ "$f" -nt "$res/ablate-r1.csv" ] || { echo "check: $f missing or stale" >&2; bad=1; }
        done
    done
    [ report/REPORT.md -nt "$res/ablate-r1.csv" ] || { echo "check: report/REPORT.md was not regenerated" >&2; bad=1; }
    grep -q '{{' report/REPORT.md && { echo "check: unexpanded marker in report/REPORT.md" >&2; bad=1; }
    # every comparative word computed from its numbers, none typed beside a number
    report/claims.sh "$der/claims.csv" report/REPORT.md.in || { echo "check: a claim and its numbers disagree (above)" >&2; bad=1; }
    # every committed CSV's model counts are the current code's
    [ $recompute_rc -eq 0 ] || { echo "check: committed model columns differ from the current code's ($res/recompute.log; report/recompute.sh --write)" >&2; bad=1; }
    [ $bad -eq 0 ] || die "check failed"
    say "check: every CSV has rows, every figure exists, the report is regenerated"
fi
phase_end
say "done: the phases (results/timings.csv; load: the 1-minute average at each phase's start and end)"
awk "$(cat report/csv.awk)"'
    BEGIN { printf "  %-22s %6s %7s %10s %8s\n", "phase", "wall_s", "cpu_s", "load_start", "load_end" }
    !csv_row() { next }
    { w += csv_get("wall_s"); c += csv_get("cpu_s")
      printf "  %-22s %6s %7s %10s %8s\n", csv_get("phase"), csv_get("wall_s"), csv_get("cpu_s"), csv_get("load_start"), csv_get("load_end") }
    END { printf "  %-22s %6d %7.1f\n", "total", w, c }' "$res/timings.csv" >&2
printf '\nreport:      %s\nfigures:     %s/*.svg, *.png\nresults:     %s/*.csv (derived tables: %s)\n' \
    "$top/report/REPORT.md" "$top/$figs" "$top/$res" "$der"
