#!/usr/bin/env bash
# report/recompute.sh: the model's columns of every committed CSV (report/data/) from the
# current code.
#
# usage: report/recompute.sh [--check | --write | --stamp] [--quick] [--bin DIR] [--out DIR] [FILE ...]
#        report/recompute.sh --fingerprint
#   --check        (the default) rerun the model for each row's configuration, read from the
#                  row's own columns, and compare its count columns with the committed ones:
#                  every cell that differs is listed (file, row, column, committed -> now) and
#                  the exit status is 1. Counts are deterministic; the minor faults getrusage
#                  counts are allowed 2 or 0.5 %, whichever is larger (experiments/counts.sh).
#                  A file whose '# model_sources:' line is the current fingerprint is current
#                  by construction and is not rerun.
#   --write        rerun every model run the file records (its rounds and repeats, times too),
#                  rewrite its model columns in place and stamp it: '# model_sources:' (the
#                  fingerprint), '# model_git:', '# model_date:', '# model_load:'. The VM
#                  columns and every other line are left as they are. A file already stamped
#                  with the current fingerprint is current and left alone (so --stamp, then
#                  --write, reruns only the files whose counts moved: ./run report --restamp);
#                  to rerun its times anyway, delete its '# model_sources:' line first.
#   --stamp        --check, then stamp every file whose counts all equal the current code's with
#                  the current fingerprint (its times left as they are): after a change that
#                  moved no count (a merge, a refactoring), the files are current again without
#                  rerunning their times; a file that differs is left alone (exit 1)
#   --quick        with --check: of a file that is not current, only the configurations of
#                  length <= 3000 (the pipeline's --quick; it says how many it checked)
#   --out DIR      also write each file, with the recomputed counts in place of the committed
#                  ones, to DIR (the report reads those copies: ./run report)
#   --bin DIR      the model's experiments (default build/release/experiments)
#   --fingerprint  print the model sources' fingerprint and exit
# FILE: committed CSVs (default: every one of report/data/ that has model columns).
#
# The files and their model columns (configuration columns -> the run that gives them):
#   fidelity-sweep.csv    shape, payload_len -> eptest --era otp25, 1 tester: model_{lookup,rt}_
#                         {gcs,faults,carriers} (rt: proc2's), model_ratio (time); with a
#                         '# prices: FILE' line, eptest --prices FILE: model_priced_ratio
#                         (counts at the VM's prices: checked within 0.5 %), and every count
#                         then on the priced clock (alloc/mseg.h tc_mseg_clock)
#   fidelity-bands.csv    the sweep's model columns -> bisection of eptest's lookup GCs
#                         (experiments/beam/bands.sh --model-only): edge_model, difference_pct
#   vm-interventions.csv  model_ablation, payload_len -> ablate --era otp25, the ablation's
#                         row: model_lookup_gcs, model_lookup_faults, model_carriers;
#                         model_ratio, model_proc_us, model_lookup_us (times: medians of rounds)
#   vm-interventions-rounds.csv  the rows of side model: variant (the ablation), payload_len,
#                         round -> the same ablate run: lookup_gcs, lookup_faults (--check: as
#                         any committed round of the configuration), carriers;
#                         proc_us, lookup_us, ratio (times)
#   vm-interventions-priced.csv  round, variant, model_switch, payload_len -> eptest --era otp25
#                         --set SWITCH --prices (that round's prices of that variant's VM, from
#                         vm-interventions-priced-prices.csv): model_lookup_{gcs,faults,carriers},
#                         model_proc_{gcs,carriers} (proc2's), model_priced_ratio,
#                         model_{lookup,proc}_priced_us (the passes' priced µs; checked within 0.5 %);
#                         vm-interventions-priced-s1.csv (priced.sh --schedulers 1) the same
#   eras.csv              model_config, model_era, variant, test, payload_len, iterations ->
#                         eptest --era ERA [--hot-key | --min-heap W]: model_gcs (the tester's
#                         own collections), model_faults; model_median_us, model_ratio; etsbench --meta-lock:
#                         model_ns_per_op (time), model_faults (--write only); with a '# priced:'
#                         line, eptest --prices (each VM's rows of eras-prices.csv): model_priced_us,
#                         model_priced_ratio (counts at the VM's prices: checked within 0.5 %)
#   unitcost.csv, unitcost-quick.csv  unit, shape, words, dest, src -> unitcost [--quick] (the
#                         model's side alone): model_faults; model_ns stays as measured, beside
#                         the VM's in the same run
# The fingerprint is a sha256 over the model's sources as they are in the work tree (the
# library's floors, the experiments' harness, eptest, ablate, etsbench and unitcost, the build files) and
# the compiler's version: two builds with the same fingerprint make the same counts.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=check stamp_only=0 quick=0 out="" bin="$top/build/release/experiments" files=()
usage() { sed -n '2,50p' "$0" | sed 's/^# \{0,1\}//'; }
die() { printf 'recompute: %s\n' "$*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
    --check) mode=check ;;
    --write) mode=write ;;
    --stamp) mode=check stamp_only=1 ;;
    --quick) quick=1 ;;
    --out) out="${2:?--out needs a directory}"; shift ;;
    --bin) bin="${2:?--bin needs a directory}"; shift ;;
    --fingerprint) mode=fingerprint ;;
    -h | --help) usage; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) files+=("$1") ;;
    esac
    shift
done

# What the model's counts are built from: the library's floors, the harness, the four
# experiments recompute runs (eptest, ablate, etsbench, unitcost) and the build files; not the other
# experiments, the tools, the tests or the report, nor the session with the installed VM
# (scenarios/vmside.[ch]: the instrument's other half, run only with --vm, never by recompute).
fingerprint() {
    (
        cd "$top"
        git ls-files -co --exclude-standard -- alloc codec copy heaps stores terms scenarios termcopy.h CMakeLists.txt \
            ':!scenarios/vmside.[ch]' \
            experiments/CMakeLists.txt 'experiments/harness.[ch]' 'experiments/output.[ch]' 'experiments/perf.[ch]' \
            'experiments/profiler.[ch]' 'experiments/workload_cli.[ch]' experiments/eptest.c experiments/ablate.c experiments/etsbench.c \
            experiments/unitcost.c |
            LC_ALL=C sort | while IFS= read -r f; do [ -f "$f" ] && printf '%s %s\n' "$(sha256sum <"$f" | cut -c1-64)" "$f"; done
        "${CC:-cc}" --version 2>/dev/null | head -n 1
    ) | sha256sum | cut -c1-16
}
fp=$(fingerprint)
[ "$mode" = fingerprint ] && { echo "$fp"; exit 0; }
[ "$mode" = write ] || [ $stamp_only -eq 1 ] && [ $quick -eq 1 ] && die "--quick checks a part; --write and --stamp take every row"
if [ ${#files[@]} -eq 0 ]; then
    for f in fidelity-sweep fidelity-bands vm-interventions vm-interventions-rounds vm-interventions-priced vm-interventions-priced-s1 eras unitcost unitcost-quick; do
        [ -f "$top/report/data/$f.csv" ] && files+=("$top/report/data/$f.csv")
    done
fi
for b in eptest ablate etsbench unitcost; do [ -x "$bin/$b" ] || die "no $bin/$b (cmake --build build/release)"; done
lib="$(cat "$top/report/csv.awk" "$top/report/stats.awk") BEGIN { csv_who = \"recompute\" }"
# the model's runs, once per fingerprint and configuration (TC_RECOMPUTE_CACHE: elsewhere)
cache="${TC_RECOMPUTE_CACHE:-$top/build/recompute}/$fp"
mkdir -p "$cache"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/termcopy-recompute.XXXXXX")
trap '[ -n "${RECOMPUTE_KEEP:-}" ] || rm -rf "$tmp"' EXIT

# model TAG TOOL ARGS...: the path of TOOL's CSV for ARGS, run once per fingerprint (TAG:
# "counts" for a run whose counts are wanted, "rN" for round N of a timed rerun).
model() {
    local tag="$1" tool="$2"; shift 2
    local key a
    key=$(printf '%s_' "$tag" "$tool" "$@" | tr -c 'A-Za-z0-9_.=-' '_')
    # a file the run reads (eptest --prices FILE) keys it by its content too, not its name only:
    # a prices file measured again must not be served the old prices' runs
    for a in "$@"; do [ -f "$a" ] && key="${key}_$(sha256sum <"$a" | cut -c1-16)"; done
    if [ ! -s "$cache/$key.csv" ]; then
        "$bin/$tool" "$@" --csv "$cache/$key.tmp" >/dev/null 2>"$tmp/err" ||
            { cat "$tmp/err" >&2; die "$tool $* failed"; }
        mv "$cache/$key.tmp" "$cache/$key.csv"
        echo run >>"$tmp/runlog"
    else
        echo cached >>"$tmp/runlog"
    fi
    printf '%s\n' "$cache/$key.csv"
}

# meta_num FILE PATTERN DEFAULT: the number before PATTERN in FILE's '#' lines ("1000 calls per
# pass" -> 1000), DEFAULT when there is none.
meta_num() {
    local n
    n=$(sed -n "s/^#.*[^0-9]\([0-9][0-9]*\) $2.*/\1/p" "$1" | head -n 1)
    echo "${n:-$3}"
}

# Each handler writes $tmp/cells: ROW,COLUMN,VALUE for every model cell it recomputed (ROW: the
# data row's number in the file, from 1), and sets counts, faults and times to the names of
# the file's count, fault and time columns.

# ---- fidelity-sweep.csv ----------------------------------------------------------------------
sweep_cells() { # FILE ROUNDS_TAG: cells of the sweep's rows from eptest runs tagged TAG
    local f="$1" tag="$2" n
    n=$(meta_num "$f" "calls per pass" 1000)
    # a sweep priced by sweep.sh --prices names its prices file (from the checkout's top)
    local pf pr=()
    pf=$(sed -n 's/^# prices: \([^ ]*\).*/\1/p' "$f" | head -n 1)
    if [ -n "$pf" ]; then
        case "$pf" in /*) ;; *) pf="$top/$pf" ;; esac
        [ -r "$pf" ] || die "$(basename "$f"): its prices $pf cannot be read"
        pr=(--prices "$pf")
    fi
    awk "$lib"'!csv_row() { next } { print ++r, csv_get("shape"), csv_get("payload_len") }' "$f" >"$tmp/rows"
    : >"$tmp/cells"
    while read -r r shape len; do
        [ $quick -eq 1 ] && [ "$len" -gt 3000 ] && continue
        m=$(model "$tag" eptest --era otp25 --shape "$shape" --len "$len" --iterations "$n" --repeats 1 ${pr[@]+"${pr[@]}"})
        awk -v r="$r" -v n="$n" "$lib"'
            !csv_row() { next }
            { t = csv_get("test"); us["x", t] = csv_get("median_us") + 0
              if (csv_get("priced_us") != "n/a") pus["p", t] = csv_get("priced_us") + 0 }
            t == "ets_lookup" || t == "proc2" {
                k = t == "proc2" ? "rt" : "lookup"
                printf "%d,model_%s_gcs,%.1f\n%d,model_%s_faults,%.1f\n%d,model_%s_carriers,%.1f\n", r, k, csv_get("gcs") * 1000 / n,
                    r, k, csv_get("faults") * 1000 / n, r, k, csv_get("carriers_mapped") * 1000 / n }
            END { printf "%d,model_ratio,%.3f\n", r, rt_ratio(us, "x", "ets_lookup")
                  if (("p", "ets_lookup") in pus) printf "%d,model_priced_ratio,%.3f\n", r, rt_ratio(pus, "p", "ets_lookup") }' "$m" >>"$tmp/cells"
    done <"$tmp/rows"
    counts="model_lookup_gcs model_rt_gcs model_lookup_carriers model_rt_carriers"
    faults="model_lookup_faults model_rt_faults" times="model_ratio" ratios="model_priced_ratio"
}

# ---- fidelity-bands.csv: bands.sh bisects the model's side over the recomputed sweep ---------
bands_cells() {
    local f="$1" sweep="$tmp/sweep-now.csv"
    [ -f "$sweep" ] || die "fidelity-bands.csv needs fidelity-sweep.csv recomputed first (name it before)"
    local range=()
    [ $quick -eq 1 ] && range=(--to 3000)
    "$top/experiments/beam/bands.sh" --model-only "$f" --sweep "$sweep" --bin "$bin" ${range[@]+"${range[@]}"} --csv "$tmp/bands.csv" \
        >/dev/null 2>"$tmp/bands.err" || { cat "$tmp/bands.err" >&2; die "bands.sh --model-only failed"; }
    awk "$lib"'!csv_row() { next } { print csv_get("interval"), csv_get("edge_model"), csv_get("difference_pct") }' "$tmp/bands.csv" >"$tmp/now"
    awk "$lib"'
        FILENAME != csvfile { e[$1] = $2; d[$1] = $3; next }
        !csv_row() { next }
        { r++; i = csv_get("interval")
          if (i in e) printf "%d,edge_model,%s\n%d,difference_pct,%s\n", r, e[i], r, d[i]
          else if (!quick) printf "%d,edge_model,(no such interval now)\n", r
          seen[i] = 1 }
        END { for (i in e) if (!(i in seen)) printf "%s: interval %s: an edge now (model %s) and no row\n", name, i, e[i] > extra }' \
        quick="$quick" name="$(basename "$f")" extra="$tmp/extra" csv_inputs=0 csvfile="$f" "$tmp/now" "$f" >"$tmp/cells"
    counts="edge_model difference_pct" faults="" times=""
}

# ---- vm-interventions.csv and its rounds -----------------------------------------------------
# The model side: one ablate run per length and round, every switch at once.
ablate_runs() { # FILE ROUNDS -> "$tmp/ablate.rows": round,ablation,len,proc_us,lookup_us,ratio,gcs,faults,carriers
    local f="$1" rounds="$2" n mrep
    n=$(meta_num "$f" "calls per pass" 1000)
    mrep=$(meta_num "$f" "run(s) per model ablation" 1)
    : >"$tmp/ablate.rows"
    for len in $(awk "$lib"'!csv_row() { next } csv_has("side") && csv_get("side") != "model" { next }
                     { print csv_get("payload_len") }' "$f" | sort -un); do
        [ $quick -eq 1 ] && [ "$len" -gt 3000 ] && continue
        for r in $(seq 1 "$rounds"); do
            local tag=counts
            [ "$mode" = write ] && tag="r$r"
            m=$(model "$tag" ablate --era otp25 --len "$len" --iterations "$n" --repeats "$mrep")
            awk -v r="$r" "$lib"'!csv_row() { next }
                { printf "%d,%s,%s,%s,%s,%s,%s,%s,%s\n", r, csv_get("ablation"), csv_get("payload_len"), csv_get("proc_us"),
                      csv_get("lookup_us"), csv_get("ratio"), csv_get("lookup_gcs"), csv_get("lookup_faults"),
                      csv_get("lookup_carriers_mapped") }' "$m" >>"$tmp/ablate.rows"
        done
    done
}
interventions_cells() {
    local f="$1" rounds=1
    [ "$mode" = write ] && rounds=$(meta_num "$f" "rounds" 5)
    ablate_runs "$f" "$rounds"
    # medians over the rounds, as run.sh; a time column's _min and _max (when the file has
    # them) are the rounds' extremes
    awk "$lib"'
        function med(s,    a, n) { n = split(s, a, " "); return median(a, n) }
        function lo(s,    a, n) { n = split(s, a, " "); sort(a, n); return a[1] }
        function hi(s,    a, n) { n = split(s, a, " "); sort(a, n); return a[n] }
        FILENAME != csvfile { split($0, x, ","); k = x[2] SUBSEP x[3]
            for (i = 4; i <= 9; i++) v[k, i] = v[k, i] " " x[i]; next }
        !csv_row() { next }
        { r++; k = csv_get("model_ablation") SUBSEP csv_get("payload_len")
          if (!((k, 4) in v)) next
          printf "%d,model_ratio,%.3f\n%d,model_lookup_gcs,%s\n%d,model_lookup_faults,%s\n%d,model_carriers,%s\n", r, med(v[k, 6]),
              r, med(v[k, 7]), r, med(v[k, 8]), r, med(v[k, 9])
          printf "%d,model_proc_us,%.0f\n%d,model_lookup_us,%.0f\n", r, med(v[k, 4]), r, med(v[k, 5])
          split("model_ratio:6 model_proc_us:4 model_lookup_us:5", tc, " ")
          for (j = 1; j <= 3; j++) { split(tc[j], p, ":")
              if (csv_has(p[1] "_min")) printf "%d,%s_min,%s\n", r, p[1], lo(v[k, p[2]])
              if (csv_has(p[1] "_max")) printf "%d,%s_max,%s\n", r, p[1], hi(v[k, p[2]]) } }' csv_inputs=0 csvfile="$f" "$tmp/ablate.rows" "$f" >"$tmp/cells"
    counts="model_lookup_gcs model_carriers" faults="model_lookup_faults"
    times="model_ratio model_proc_us model_lookup_us model_ratio_min model_ratio_max model_proc_us_min model_proc_us_max model_lookup_us_min model_lookup_us_max"
}
rounds_cells() {
    local f="$1" rounds=1
    [ "$mode" = write ] && rounds=$(awk "$lib"'!csv_row() { next } csv_get("side") == "model" && csv_get("round") > n { n = csv_get("round") } END { print n + 0 }' "$f")
    ablate_runs "$f" "$rounds"
    # The file holds five runs of each configuration, and the model's getrusage faults of one
    # configuration can take more than one value from run to run (sbct_2mib at 9382 and 10000:
    # two values 0.6-0.75 % apart, both among the committed rounds). --check's one run stands
    # for every round, so its faults reproduce the file when they are within the faults'
    # tolerance (2 or 0.5 %) of any committed round's; the first pass over the file reads them.
    awk "$lib"'
        FILENAME != csvfile { split($0, x, ","); k = x[1] SUBSEP x[2] SUBSEP x[3]; for (i = 4; i <= 9; i++) v[k, i] = x[i]; next }
        FNR == 1 { pass++ }
        !csv_row() { next }
        pass == 1 { if (csv_get("side") == "model") seen[csv_get("variant"), csv_get("payload_len")] = seen[csv_get("variant"), csv_get("payload_len")] " " csv_get("lookup_faults")
                    next }
        function reproduced(now, committed, list,    n, i, a, d, tol) {
            n = split(list, a, " "); tol = now * 0.005; if (tol < 2) tol = 2
            for (i = 1; i <= n; i++) { d = now - a[i]; if (d < 0) d = -d; if (d <= tol + 1e-9) return committed }
            return now }
        { r++; if (csv_get("side") != "model") next
          k = (mode == "write" ? csv_get("round") : 1) SUBSEP csv_get("variant") SUBSEP csv_get("payload_len")
          if (!((k, 4) in v)) next
          f = mode == "write" ? v[k, 8] : reproduced(v[k, 8], csv_get("lookup_faults"), seen[csv_get("variant"), csv_get("payload_len")])
          printf "%d,proc_us,%s\n%d,lookup_us,%s\n%d,ratio,%s\n%d,lookup_gcs,%s\n%d,lookup_faults,%s\n%d,carriers,%s\n",
              r, v[k, 4], r, v[k, 5], r, v[k, 6], r, v[k, 7], r, f, r, v[k, 9] }' mode="$mode" csv_inputs=0 csvfile="$f" "$tmp/ablate.rows" "$f" "$f" >"$tmp/cells"
    counts="lookup_gcs carriers" faults="lookup_faults" times="proc_us lookup_us ratio"
}

# ---- eras.csv --------------------------------------------------------------------------------
eras_cells() {
    local f="$1" rep
    rep=$(sed -n 's/^# command:.*--repeats \([0-9][0-9]*\).*/\1/p' "$f" | head -n 1)
    rep=${rep:-3}
    # one line per model run the rows need: eptest ERA VARIANT L N ROUNDS SET, etsbench N ROUNDS
    # VARIANT SET LOCKED (SET: the config's --set, - for none; LOCKED for R13B01 SMP's rows, whose
    # allocators lock, tagged alloc_lock: pdict, run.sh's etsbench --pdict --set alloc_lock=on, or
    # ets, its etsbench --modes write_concurrency --set alloc_lock=on; 0 for the others)
    awk "$lib"'!csv_row() { next }
        { c = csv_get("model_config"); if (c == "") next
          al = c !~ /--set alloc_lock=on/ ? 0 : c ~ /pdict/ ? "pdict" : "ets"; sub(/ --set alloc_lock=on/, "", c)
          sw = "-"; if (match(c, /--set [^ ]+/)) sw = substr(c, RSTART + 6, RLENGTH - 6)
          if (c ~ /^eptest/) print "eptest", csv_get("model_era"), csv_get("variant"), csv_get("payload_len"), csv_get("iterations"), csv_get("rounds"), sw
          else print "etsbench", csv_get("iterations"), csv_get("rounds"), csv_get("variant"), sw, al }' "$f" | sort -u >"$tmp/eras.runs"
    : >"$tmp/eras.rows"
    while read -r kind a b c d e g; do
        local rounds=1 r tag
        if [ "$kind" = eptest ]; then
            [ $quick -eq 1 ] && [ "$c" -gt 3000 ] && continue
            [ "$mode" = write ] && rounds=$e
            local sw=() src="eptest --era $a"
            [ "$g" = - ] || { sw=(--set "$g"); src="$src --set $g"; }
            case "$b" in hot_key) sw+=(--hot-key) ;; heap_*) sw+=(--min-heap "${b#heap_}") ;; rsbcmt_*) sw+=(--set "rsbcmt=${b#rsbcmt_}") ;; esac
            for r in $(seq 1 "$rounds"); do
                tag=counts; [ "$mode" = write ] && tag="r$r"
                m=$(model "$tag" eptest --era "$a" --len "$c" --iterations "$d" --repeats "$([ "$mode" = write ] && echo "$rep" || echo 1)" ${sw[@]+"${sw[@]}"})
                awk -v src="$src" -v variant="$b" "$lib"'!csv_row() { next }
                    { t = csv_get("test"); us["x", t] = csv_get("median_us"); g[t] = csv_get("tester_gcs"); fa[t] = csv_get("faults")
                      L = csv_get("payload_len"); n = csv_get("iterations") }
                    END { ratio = rt_ratio(us, "x", "ets_lookup")
                          split("proc1 proc2 proc3 ets_insert ets_overwrite ets_lookup empty", ts, " ")
                          for (i = 1; i <= 7; i++) printf "%s,%s,%s,%s,%s,%s,%s,%s,,%s\n", src, variant, ts[i], L, n,
                              us["x", ts[i]], ts[i] == "ets_lookup" ? sprintf("%.4f", ratio) : "", g[ts[i]], fa[ts[i]] }' "$m" >>"$tmp/eras.rows"
            done
        else
            [ "$mode" = write ] || continue # etsbench rows have no counts
            # as run.sh runs it: R13B01's heap rules and locks, a rebuilt VM's change as --set
            local esw=() ltag=""
            [ "$d" = - ] || esw=(--set "$d")
            case "$e" in
                pdict) esw+=(--pdict --set alloc_lock=on) ltag=" alloc_lock" ;;
                ets) esw+=(--modes write_concurrency --set alloc_lock=on) ltag=" alloc_lock" ;;
            esac
            for r in $(seq 1 "$b"); do
                m=$(model "r$r.$c$ltag" etsbench --era r13b --iterations "$a" --repeats 1 --meta-lock --bucket-locks 16 ${esw[@]+"${esw[@]}"})
                # the tables' locked run: its dictionary rows are the --pdict run's
                awk -v n="$a" -v variant="$c" -v ltag="$ltag" -v tables="$([ "$e" = ets ] && echo 1 || echo 0)" "$lib"'!csv_row() { next }
                    tables && csv_get("lock_mode") == "pdict" { next }
                    { printf "etsbench %s/%s%s,%s,%s,0,%s,%.1f,,,%s,%s\n", csv_get("lock_mode"), csv_get("threads"), ltag, variant, csv_get("op"), n,
                          csv_get("ns_per_op") * n / 1000, csv_get("ns_per_op"), csv_get("faults") }' "$m" >>"$tmp/eras.rows"
            done
        fi
    done <"$tmp/eras.runs"
    # the rows' model cells: medians over the runs of the same configuration, as run.sh
    awk "$lib"'
        function med(s,    a, n) { n = split(s, a, " "); return median(a, n) }
        function add(arr, k, v) { if (v != "") arr[k] = (k in arr) ? arr[k] " " v : v }
        FILENAME != csvfile { split($0, x, ","); k = x[1] SUBSEP x[2] SUBSEP x[3] SUBSEP x[4] SUBSEP x[5]
            add(us, k, x[6]); add(ra, k, x[7]); add(gc, k, x[8]); add(ns, k, x[9]); add(fa, k, x[10]); next }
        !csv_row() { next }
        { r++; c = csv_get("model_config"); if (c == "") next
          t = csv_get("test"); cfg = c
          if (cfg ~ /^etsbench/) {  # the mode and threads alone, as eras.rows names them
              al = cfg ~ /--set alloc_lock=on/; sub(/ --.*$/, "", cfg); if (al) cfg = cfg " alloc_lock" }
          pk = (cfg ~ /^etsbench/ && t == "update") ? 2 : 1  # per key, as run.sh: two inserts
          if (cfg ~ /^etsbench pdict/) t = t == "lookup" ? "get" : t == "update" ? "update" : "put"
          k = cfg SUBSEP csv_get("variant") SUBSEP t SUBSEP csv_get("payload_len") SUBSEP csv_get("iterations")
          if (k in gc) printf "%d,model_gcs,%d\n", r, med(gc[k])
          if ((k in fa) && csv_has("model_faults")) printf "%d,model_faults,%d\n", r, med(fa[k])
          if (k in us) printf "%d,model_median_us,%.1f\n", r, pk * med(us[k])
          if (k in ra) printf "%d,model_ratio,%.4f\n", r, med(ra[k])
          if (k in ns) printf "%d,model_ns_per_op,%.1f\n", r, pk * med(ns[k]) }' csv_inputs=0 csvfile="$f" "$tmp/eras.rows" "$f" >"$tmp/cells"
    counts="model_gcs" faults="model_faults" times="model_median_us model_ratio model_ns_per_op"
    eras_priced_cells "$f"
}

# The model's counts at the VM's unit prices (model_priced_us, model_priced_ratio: checked within
# 0.5 %): eptest --prices with each priced VM's rows of the prices file beside FILE (FILE less
# .csv, -prices.csv, in the account's format less its vm column), at the rows' era and length.
eras_priced_cells() {
    local f="$1" pf="${1%.csv}-prices.csv" v era l n m
    grep -q '^# priced:' "$f" || return 0
    [ -r "$pf" ] || die "$(basename "$f") has model_priced columns and no $(basename "$pf") beside it"
    awk "$lib"'!csv_row() { next }
        csv_get("model_priced_us") != "" { print csv_get("vm"), csv_get("model_era"), csv_get("payload_len"), csv_get("iterations") }' \
        "$f" | sort -u >"$tmp/eras.priced.runs"
    : >"$tmp/eras.priced"
    while read -r v era l n; do
        [ $quick -eq 1 ] && [ "$l" -gt 3000 ] && continue
        awk -v vm="$v" "$lib"'!csv_row() { next }
            !hdr { nc = csv_names(_csv_name, names); line = names[2]; for (i = 3; i <= nc; i++) line = line "," names[i]; print line; hdr = 1 }
            csv_get("vm") == vm { line = csv_f[2]; for (i = 3; i <= csv_nf; i++) line = line "," csv_f[i]; print line }' "$pf" >"$tmp/prices.$v.csv"
        m=$(model counts eptest --era "$era" --len "$l" --iterations "$n" --repeats 1 --prices "$tmp/prices.$v.csv")
        awk -v vm="$v" "$lib"'!csv_row() { next } { p[csv_get("test")] = csv_get("priced_us"); L = csv_get("payload_len") }
            END { eptest_priced_rows(vm, L, p) }' "$m" >>"$tmp/eras.priced"
    done <"$tmp/eras.priced.runs"
    awk "$lib"'FILENAME != csvfile { split($0, x, ","); pu[x[1], x[2], x[3]] = x[4]; pr[x[1], x[2], x[3]] = x[5]; next }
        !csv_row() { next }
        { r++; k = csv_get("vm") SUBSEP csv_get("test") SUBSEP csv_get("payload_len")
          if (csv_get("model_priced_us") == "" || !(k in pu)) next
          printf "%d,model_priced_us,%s\n", r, pu[k]
          if (pr[k] != "") printf "%d,model_priced_ratio,%s\n", r, pr[k] }' csv_inputs=0 csvfile="$f" "$tmp/eras.priced" "$f" >>"$tmp/cells"
    ratios="model_priced_us model_priced_ratio"
}

# ---- unitcost.csv, unitcost-quick.csv ---------------------------------------------------------
# The model's side of unitcost on the file's grid (--quick when its experiment line says so):
# model_faults per row, matched by unit, shape, words, dest and src. model_ns is timed beside
# the VM's unit in the same run (model_over_vm divides the two), so it stays as measured.
unitcost_cells() {
    local f="$1" q=() m
    grep -q '^# experiment: unitcost --quick' "$f" && q=(--quick)
    m=$(model counts unitcost ${q[@]+"${q[@]}"})
    awk "$lib"'
        function k() { return csv_get("unit") SUBSEP csv_get("shape") SUBSEP csv_get("words") SUBSEP csv_get("dest") SUBSEP csv_get("src") }
        !csv_row() { next }
        csv_file == 1 { now[k()] = csv_get("model_faults"); next }
        { r++; if (k() in now) printf "%d,model_faults,%s\n", r, now[k()]
               else { printf "%s: row %d: the current unitcost has no such unit\n", FILENAME, r > extra } }
    ' extra="$tmp/extra" "$m" "$f" >"$tmp/cells"
    counts="" faults="model_faults" times=""
}

# ---- vm-interventions-priced.csv: each round's model at that round's VM's prices ------------
# A row's model is eptest with the row's switch, priced at the prices its VM's account measured
# in that round (vm-interventions-priced-prices.csv, the rows of the round and the variant).
priced_cells() {
    local f="$1" n pf p model_awk
    n=$(meta_num "$f" "calls per pass" 1000)
    model_awk=$(cat "$top/experiments/beam/interventions/model.awk")
    pf="${f%.csv}-prices.csv"
    [ -r "$pf" ] || die "$(basename "$f"): its prices $(basename "$pf") cannot be read"
    awk "$lib"'!csv_row() { next }
        { print ++r, csv_get("round"), csv_get("variant"), csv_get("model_switch"), csv_get("payload_len") }' "$f" >"$tmp/rows"
    : >"$tmp/cells"
    while read -r r round v sw len; do
        [ $quick -eq 1 ] && [ "$len" -gt 3000 ] && continue
        # (account.sh's prices columns after round and variant: plain numbers, no quoting)
        awk -F, -v round="$round" -v v="$v" -v len="$len" '/^#/ { next }
            !h { h = 1; sub(/^round,variant,/, ""); print; next }
            $1 == round && $2 == v && $4 == len { sub(/^[^,]*,[^,]*,/, ""); print }' "$pf" >"$tmp/p.csv"
        [ "$(wc -l <"$tmp/p.csv")" -ge 3 ] || die "$(basename "$pf"): no prices of round $round, $v, L = $len"
        # named by content, so that the model's runs are cached across checks
        p="$cache/prices-$(sha256sum <"$tmp/p.csv" | cut -c1-16).csv"
        [ -s "$p" ] || cp "$tmp/p.csv" "$p"
        local set_args=()
        [ "$sw" = none ] || set_args=(--set "$sw")
        m=$(model counts eptest --era otp25 ${set_args[@]+"${set_args[@]}"} --shape ints --len "$len" --iterations "$n" \
            --repeats 1 --prices "$p")
        awk -v r="$r" "$lib$model_awk"'
            !csv_row() { next }
            { model_row() }
            END { for (k in model) printf "%d,model_%s,%d\n", r, k, model[k]
                  printf "%d,model_priced_ratio,%s\n", r, model_ratio()
                  printf "%d,model_lookup_priced_us,%s\n%d,model_proc_priced_us,%s\n", r, model_priced("ets_lookup"), r,
                      model_priced("proc2") }' "$m" >>"$tmp/cells"
    done <"$tmp/rows"
    counts="model_lookup_gcs model_lookup_carriers model_proc_gcs model_proc_carriers"
    faults="model_lookup_faults" times="" ratios="model_priced_ratio model_lookup_priced_us model_proc_priced_us"
}

# ---- compare, write --------------------------------------------------------------------------
# apply FILE OUT: FILE with the recomputed cells in place (counts only in --check; every model
# column in --write, with the stamp), to OUT; the differing count cells to $tmp/diff.
apply() {
    local f="$1" o="$2" stamp=""
    if [ "$mode" = write ]; then
        stamp="# model_sources: $fp (report/recompute.sh --fingerprint: the model's sources these model columns were computed from)
# model_git: $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$top" diff --quiet HEAD 2>/dev/null || echo -dirty)
# model_date: $(date -u +%Y-%m-%dT%H:%M:%SZ)
# model_load: $(cut -d' ' -f1-3 /proc/loadavg) (the model alone, rerun by report/recompute.sh --write; the VM columns are the measurement's: its date, git and machine lines)"
    fi
    awk -v mode="$mode" -v counts="$counts" -v faults="$faults" -v times="$times" -v ratios="${ratios:-}" -v stamp="$stamp" \
        -v name="$(basename "$f")" -v difff="$tmp/diff" "$lib"'
        function num(x) { return x ~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/ }
        function differs(col, a, b,    d, tol) {
            if (num(a) && num(b)) {
                d = a - b; if (d < 0) d = -d
                tol = 0
                if (col in isfault) { tol = a * 0.005; if (tol < 0) tol = -tol; if (tol < 2) tol = 2 }
                if (col in isratio) { tol = a * 0.005; if (tol < 0) tol = -tol }
                return d > tol + 1e-9
            }
            return a != b
        }
        BEGIN { nc = split(counts, c, " "); for (i = 1; i <= nc; i++) iscount[c[i]] = 1
                nf = split(faults, c, " "); for (i = 1; i <= nf; i++) { iscount[c[i]] = 1; isfault[c[i]] = 1 }
                nt = split(times, c, " "); for (i = 1; i <= nt; i++) istime[c[i]] = 1
                nr = split(ratios, c, " "); for (i = 1; i <= nr; i++) { iscount[c[i]] = 1; isratio[c[i]] = 1 } }
        FILENAME != csvfile { split($0, cl, ","); cell[cl[1], cl[2]] = cl[3]; next }
        /^# model_(sources|git|date|load):/ { next }
        /^#/ || /^[ \t]*$/ { print; next }
        !hdr { hdr = 1; if (stamp != "") print stamp; print; n = csv_split($0, h); next }
        { r++; nf = csv_split($0, v); line = ""
          for (i = 1; i <= nf; i++) {
              x = v[i]; col = h[i]
              if ((r, col) in cell) {
                  now = cell[r, col]
                  if (col in iscount && differs(col, x, now)) { printf "%s: row %d (%s): %s: %s -> %s\n", name, r, key(v), col, x, now > difff; ndiff++ }
                  if (col in iscount || (mode == "write" && col in istime)) x = now
              }
              if (x ~ /[,"]/) { gsub(/"/, "\"\"", x); x = "\"" x "\"" }
              line = line (i > 1 ? "," : "") x
          }
          print line }
        function key(v,    i, out, k) { out = ""
            for (i = 1; i <= n; i++) if (h[i] ~ /^(shape|payload_len|interval|variant|model_ablation|source|side|round|vm|benchmark|test|iterations)$/)
                out = out (out == "" ? "" : " ") h[i] "=" v[i]
            return out }
    ' csv_inputs=0 csvfile="$f" "$tmp/cells" "$f" >"$o"
}

status=0
: >"$tmp/diff"
echo "file,state" >"$tmp/state.csv"
for f in "${files[@]}"; do
    [ -r "$f" ] || die "cannot read $f"
    name=$(basename "$f")
    now=$(sed -n 's/^# model_sources: \([0-9a-f]*\).*/\1/p' "$f" | head -n 1)
    if [ "$now" = "$fp" ]; then
        echo "recompute: $name: current (its model columns were computed from these sources, $fp)" >&2
        echo "$name,this code's (computed from the same sources)" >>"$tmp/state.csv"
        cp "$f" "$tmp/$name.now"
    else
        t0=$(date +%s)
        : >"$tmp/diff"; : >"$tmp/extra"; : >"$tmp/runlog"; ratios=""
        case "$name" in
        fidelity-sweep*) sweep_cells "$f" "$([ "$mode" = write ] && echo r1 || echo counts)" ;;
        fidelity-bands*) bands_cells "$f" ;;
        vm-interventions-rounds*) rounds_cells "$f" ;;
        vm-interventions-priced.csv | vm-interventions-priced-s1.csv) priced_cells "$f" ;;
        vm-interventions*) interventions_cells "$f" ;;
        eras*) eras_cells "$f" ;;
        unitcost.csv | unitcost-quick.csv) unitcost_cells "$f" ;;
        *) die "$name: no model columns known (see --help)" ;;
        esac
        apply "$f" "$tmp/$name.now"
        cat "$tmp/extra" >>"$tmp/diff"
        nd=$(wc -l <"$tmp/diff")
        ncells=$(wc -l <"$tmp/cells")
        what="$ncells model cells recomputed ($(grep -c '^run' "$tmp/runlog") model runs, $(grep -c '^cached' "$tmp/runlog") cached, $(($(date +%s) - t0)) s)"
        [ $quick -eq 1 ] && what="$what, quick: lengths <= 3000 only"
        # model runs whose rows matched no cell: the keys disagree, and "equal" would be vacuous
        [ "$ncells" -gt 0 ] || ! grep -q '^\(run\|cached\)' "$tmp/runlog" ||
            die "$name: $(wc -l <"$tmp/runlog") model runs, and no model cell of the file matched them (its rows' keys and the runs disagree)"
        if [ "$nd" -gt 0 ]; then
            echo "recompute: $name: $nd count cells differ from the current code's ($what):" >&2
            sed 's/^/  /' "$tmp/diff" >&2
            echo "$name,$nd counts differ from this code's: this run's recomputed counts are read$([ $quick -eq 1 ] && echo " (lengths up to 3000)")" >>"$tmp/state.csv"
            status=1
        else
            echo "recompute: $name: every count equals the current code's ($what)" >&2
            echo "$name,this code's (every count rerun and equal$([ $quick -eq 1 ] && echo "; lengths up to 3000"))" >>"$tmp/state.csv"
        fi
        if [ $stamp_only -eq 1 ] && [ "$nd" -eq 0 ]; then
            # The model's times were taken where the file says: at its model_git when --write
            # reran them, else with the VM's columns, at its git.
            times_from="git"
            grep -q '^# model_git:' "$f" && times_from="model_git"
            { sed '/^# model_sources:/d' "$f" | awk -v fp="$fp" -v git="$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
                  -v date="$(date -u +%Y-%m-%dT%H:%M:%SZ)" -v from="$times_from" '
                  !/^#/ && !done { print "# model_sources: " fp " (report/recompute.sh --stamp: every count checked equal to these sources'"'"' at git " git ", " date "; the model'"'"'s times are from " from ")"; done = 1 }
                  { print }'; } >"$tmp/stamped" && mv "$tmp/stamped" "$f"
            echo "recompute: $name: stamped ($fp)" >&2
        fi
        if [ "$mode" = write ]; then
            mv "$tmp/$name.now" "$f"
            cp "$f" "$tmp/$name.now"
            echo "recompute: $name: model columns rewritten and stamped ($fp)" >&2
        fi
    fi
    # the sweep as now, for the bands after it
    case "$name" in fidelity-sweep*) cp "$tmp/$name.now" "$tmp/sweep-now.csv" ;; esac
    if [ -n "$out" ]; then
        mkdir -p "$out"
        cp "$tmp/$name.now" "$out/$name"
    fi
done
[ -n "$out" ] && cp "$tmp/state.csv" "$out/recompute-state.csv" && echo "$fp" >"$out/fingerprint"
[ "$mode" = write ] && status=0
exit $status
