#!/usr/bin/env bash
# The fidelity sweep: the model's eptest (OTP 25 rules) and the real VM's eptest.erl, one after
# the other at each point of a grid, one row per (shape, L) with both sides' counts: the lookup
# loop's and the round trip's GCs, minor faults and carriers mapped per 1000 operations, and
# lookup / round trip. The round trip's counts are proc2's (the warm pass, as tc_ep_measure_gap
# reports); the ratio is ets_lookup over the median of proc1..3 (report/stats.awk rt_ratio).
# Then a summary on standard output: at how many lengths the model is within 3 % of the VM's
# GCs (both loops), 15 % (or 200) of its faults, 2 carriers per 1000 operations, and on the
# same side of 1 where the VM is clearly on one side (ratio < 0.9 or > 1.1).
# With two schedulers the VM's counts at a point change from run to run (which of the tester and
# the server runs first, where a dirty GC finishes): the VM side runs R times, each in a fresh
# VM, and its columns are the medians, with each count's lowest and highest run beside them
# (vm_*_lo, vm_*_hi); the summary then also says at how many points the VM's own runs agree
# with their median by the same criteria (where the VM repeated itself in this sweep).
#
# usage: experiments/beam/sweep.sh [--quick] [--bin DIR] [--iterations N] [--rounds R]
#                                  [--set NAME=VALUE]... [--prices FILE] [--out FILE]
#        experiments/beam/sweep.sh --remodel FILE [--set NAME=VALUE]... [--prices FILE]
#                                  [--bin DIR] [--iterations N] --out FILE
#        experiments/beam/sweep.sh --summary FILE
#   (no option)     the full grid: ints every 250 from 250 to 30000; floats, tuple and
#                   strings every 1000 from 1000 to 30000 (210 points, 43 min measured on the
#                   shared 2-core machine) into report/data/fidelity-sweep.csv
#   --quick         ints 1000 3000 10000 30000 and floats, tuple, strings at 10000 into
#                   results/fidelity-sweep-quick.csv (about 45 s with 3 rounds)
#   --bin DIR       where the model's eptest is (default build/release/experiments)
#   --iterations N  calls per pass on both sides (default 1000, the seed's); counts are scaled
#                   to 1000 operations
#   --rounds R      VM runs per point, each a fresh VM (default 3); the model runs once (its
#                   counts are the same every run)
#   --set NAME=VALUE  one field of the model's policy table over OTP 25's (eptest --set;
#                   repeatable): the model of one mechanism changed, e.g. dirty_gc_first=off,
#                   the other outcome of the race heaps/sched.h describes
#   --prices FILE   the VM's unit prices on this machine (experiments/beam/account.sh --prices,
#                   every shape of the grid): the model's counts at those prices, lookup over
#                   the median of proc1..3, go to the column model_priced_ratio (eptest
#                   --prices), and the summary's side of 1 is that ratio's; model_ratio stays
#                   the C code's time
#   --remodel FILE  keep FILE's VM columns and run only the model again at FILE's points (with
#                   the --set fields, or --prices, or both; FILE's own prices if it names any):
#                   the sweep's summary for a changed model, without the VM (about 5 min for
#                   the full grid); needs --out
#   --out FILE      write the CSV there instead
#   --summary FILE  only print the summary of an existing sweep CSV
# Progress goes to standard error. Without erl it says so and exits 0.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin="$root/build/release/experiments" iterations=1000 rounds=3 quick=0 out="" summary_only="" remodel="" prices="" prices_name=""
sets=()
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) quick=1 ;;
    --bin) bin="${2:?--bin needs a directory}"; shift ;;
    --iterations) iterations="${2:?--iterations needs a number}"; shift ;;
    --rounds) rounds="${2:?--rounds needs a number}"; shift ;;
    --out) out="${2:?--out needs a file}"; shift ;;
    --summary) summary_only="${2:?--summary needs a CSV}"; shift ;;
    --remodel) remodel="${2:?--remodel needs a CSV}"; shift ;;
    --prices) prices="${2:?--prices needs a prices CSV}"; shift ;;
    --set)
        case "${2-}" in
        [a-z]*=?*) sets+=(--set "$2") ;;
        *) echo "sweep.sh: --set needs NAME=VALUE, not '${2-}'" >&2; exit 2 ;;
        esac
        shift ;;
    --help|-h) sed -n '2,44p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "sweep.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done
case "$iterations" in '' | *[!0-9]* | 0) echo "sweep.sh: --iterations must be a positive integer, not '$iterations'" >&2; exit 2 ;; esac
case "$rounds" in '' | *[!0-9]* | 0) echo "sweep.sh: --rounds must be a positive integer, not '$rounds'" >&2; exit 2 ;; esac
lib="$(cat "$root/report/csv.awk" "$root/report/stats.awk") BEGIN { csv_who = \"sweep.sh\" }" || exit 2

# The summary of a sweep CSV (its columns by name).
summary() {
    awk "$lib"'
        function gcs_ok(m, v) { d = m - v; if (d < 0) d = -d; return d <= 0.03 * v }
        function lohi(k, end_) { return csv_get("vm_" k "_" end_) + 0 }
        # the priced ratio of the model where the sweep has one (--prices), else the C code time
        function model_ratio() { if (csv_has("model_priced_ratio") && csv_get("model_priced_ratio") != "") { priced = 1; return csv_get("model_priced_ratio") + 0 }
                                 return csv_get("model_ratio") + 0 }
        function self(k, rel, abs_) { return sweep_near(lohi(k, "lo"), csv_get("vm_" k), rel, abs_) && sweep_near(lohi(k, "hi"), csv_get("vm_" k), rel, abs_) }
        !csv_row() { next }
        {
            n++
            if (gcs_ok(csv_get("model_lookup_gcs"), csv_get("vm_lookup_gcs")) && gcs_ok(csv_get("model_rt_gcs"), csv_get("vm_rt_gcs"))) g++
            if (sweep_near(csv_get("model_lookup_faults"), csv_get("vm_lookup_faults"), 0.15, 200) &&
                sweep_near(csv_get("model_rt_faults"), csv_get("vm_rt_faults"), 0.15, 200)) f++
            if (sweep_near(csv_get("model_lookup_carriers"), csv_get("vm_lookup_carriers"), 0, 2) &&
                sweep_near(csv_get("model_rt_carriers"), csv_get("vm_rt_carriers"), 0, 2)) c++
            v = csv_get("vm_ratio") + 0; m = model_ratio()
            if (v < 0.9 || v > 1.1) { clear++; if ((v < 1) == (m < 1)) side++ }
            if (!csv_has("vm_rounds")) next
            # the VM against itself: its lowest and highest run against its median
            runs = 1
            if (gcs_ok(lohi("lookup_gcs", "lo"), csv_get("vm_lookup_gcs")) && gcs_ok(lohi("lookup_gcs", "hi"), csv_get("vm_lookup_gcs")) &&
                gcs_ok(lohi("rt_gcs", "lo"), csv_get("vm_rt_gcs")) && gcs_ok(lohi("rt_gcs", "hi"), csv_get("vm_rt_gcs"))) sg++
            if (self("lookup_faults", 0.15, 200) && self("rt_faults", 0.15, 200)) sf++
            if (self("lookup_carriers", 0, 2) && self("rt_carriers", 0, 2)) sc++
            if (v < 0.9 || v > 1.1) { if ((lohi("ratio", "lo") < 1) == (v < 1) && (lohi("ratio", "hi") < 1) == (v < 1)) sside++ }
            # the model inside the range of the VM runs (widened by the same tolerances)
            if (sweep_in_runs("lookup_gcs", 0.03, 0) && sweep_in_runs("rt_gcs", 0.03, 0)) ig++
            if (sweep_in_runs("lookup_faults", 0.15, 200) && sweep_in_runs("rt_faults", 0.15, 200)) if_++
            if (sweep_in_runs("lookup_carriers", 0, 2) && sweep_in_runs("rt_carriers", 0, 2)) ic++
        }
        END {
            printf "sweep summary (%d points):\n", n
            printf "  GCs within 3%% (lookup and round trip):                   %d of %d\n", g, n
            printf "  minor faults within 15%% or 200 (lookup and round trip):  %d of %d\n", f, n
            printf "  carriers mapped within 2 per 1000 ops (both loops):      %d of %d\n", c, n
            printf "  lookup on the VM'"'"'s side of the round trip (VM < 0.9 or > 1.1): %d of %d%s\n", side, clear,
                   priced ? " (the model'"'"'s ratio priced at the VM'"'"'s prices)" : " (the model'"'"'s ratio by its C code'"'"'s time)"
            if (!runs) exit
            printf "the VM against itself (every run within the criterion of the runs'"'"' median: the points where it repeated itself in this sweep):\n"
            printf "  GCs %d, faults %d, carriers %d of %d; same side %d of %d\n", sg, sf, sc, n, sside, clear
            printf "the model inside the range of the VM'"'"'s runs (widened by the same tolerances):\n"
            printf "  GCs %d, faults %d, carriers %d of %d\n", ig, if_, ic, n
        }' "$1"
}

if [ -n "$summary_only" ]; then
    [ -r "$summary_only" ] || { echo "sweep.sh: cannot read $summary_only" >&2; exit 2; }
    summary "$summary_only"
    exit $?
fi
[ -x "$bin/eptest" ] || { echo "sweep.sh: $bin/eptest not built (cmake --build build/release)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/termcopy-sweep.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
# A policy field the model does not have (or a bad value) fails here, once, with eptest's line.
if [ ${#sets[@]} -gt 0 ] && ! "$bin/eptest" "${sets[@]}" --list-policy >/dev/null 2>"$tmp/set.err"; then
    echo "sweep.sh: $(head -n 1 "$tmp/set.err")" >&2; exit 2
fi
if [ -n "$remodel" ]; then
    [ -r "$remodel" ] || { echo "sweep.sh: cannot read $remodel" >&2; exit 2; }
    [ -n "$out" ] || { echo "sweep.sh: --remodel needs --out FILE" >&2; exit 2; }
    [ ${#sets[@]} -gt 0 ] || [ -n "$prices" ] ||
        { echo "sweep.sh: --remodel needs --set NAME=VALUE or --prices FILE (the model's columns are recomputed by report/recompute.sh)" >&2; exit 2; }
    # it keeps the prices its file was priced with (named from the checkout's top)
    if [ -z "$prices" ]; then
        prices_name=$(sed -n 's/^# prices: \([^ ]*\).*/\1/p' "$remodel" | head -n 1)
        case "$prices_name" in '' | /*) prices=$prices_name ;; *) prices="$root/$prices_name" ;; esac
    fi
fi
if [ -n "$prices" ]; then
    [ -r "$prices" ] || { echo "sweep.sh: cannot read the prices $prices" >&2; exit 2; }
fi

# side CSV: lookup gcs, faults, carriers; proc2's; the ratio (per 1000 operations); the priced
# ratio where the CSV has priced_us (the model's eptest --prices), else nothing.
side() {
    awk -v n="$iterations" "$lib"'
        !csv_row() { next }
        { t = csv_get("test"); us["r", t] = csv_get("median_us") + 0
          if (csv_has("priced_us") && csv_get("priced_us") != "n/a") pus["p", t] = csv_get("priced_us") + 0 }
        t == "ets_lookup" || t == "proc2" {
            k = t == "proc2" ? "rt" : "lookup"
            gcs[k] = csv_get("gcs") * 1000 / n; flt[k] = csv_get("faults") * 1000 / n
            car[k] = csv_get("carriers_mapped") * 1000 / n
        }
        END {
            ratio = rt_ratio(us, "r", "ets_lookup")
            printf "%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.3f,", gcs["lookup"], gcs["rt"], flt["lookup"], flt["rt"], car["lookup"], car["rt"], ratio
            if (("p", "ets_lookup") in pus) printf "%.3f", rt_ratio(pus, "p", "ets_lookup")
            printf "\n"
        }' "$1"
}

# The VM's runs of one point (side lines): each column's median, then each column's lowest and
# highest run (lookup GCs, rt GCs, lookup faults, rt faults, lookup carriers, rt carriers, ratio).
vm_runs() {
    awk -F, -v csv_inputs=0 "$lib"'
        { n++; for (c = 1; c <= 7; c++) v[c, n] = $c + 0 }
        END {
            for (c = 1; c <= 7; c++) {
                for (i = 1; i <= n; i++) x[i] = v[c, i]
                med[c] = median(x, n); lo[c] = x[1]; hi[c] = x[n] # median() sorts x
            }
            f = "%.1f"
            for (c = 1; c <= 7; c++) printf (c > 1 ? "," : "") (c == 7 ? "%.3f" : f), med[c]
            for (c = 1; c <= 7; c++) printf "," (c == 7 ? "%.3f,%.3f" : f "," f), lo[c], hi[c]
            printf "\n"
        }' "$1"
}

# The '# prices:' line: the file as given (recompute.sh reads it back from the top of the
# checkout when it is relative) and the date and machine its prices were measured on.
prices_meta() {
    printf '# prices: %s (measured %s on %s, git %s): model_priced_ratio is the model'"'"'s counts at those prices, lookup over the median of proc1..3 (eptest --prices); model_ratio the C code'"'"'s time\n' \
        "${prices_name:-$prices}" "$(sed -n 's/^# date: //p' "$prices" | head -1)" "$(sed -n 's/^# cpu: //p' "$prices" | head -1)" \
        "$(sed -n 's/^# git: //p' "$prices" | head -1)"
}

# model POINT: the model's side line at SHAPE:L (with the --set fields)
model() {
    "$bin/eptest" --era otp25 --shape "${1%%:*}" --len "${1##*:}" --iterations "$iterations" --repeats 1 \
        ${sets[@]+"${sets[@]}"} ${prices:+--prices "$prices"} --csv "$tmp/m.csv" >/dev/null 2>"$tmp/m.err" \
        || { echo "sweep.sh: the model's eptest failed at ${1%%:*} ${1##*:}: $(tail -n 1 "$tmp/m.err")" >&2; return 1; }
    side "$tmp/m.csv"
}

if [ -n "$remodel" ]; then
    start=$(date +%s) k=0
    pts=$(awk "$lib"'!csv_row() { next } { printf "%s:%s ", csv_get("shape"), csv_get("payload_len") }' "$remodel") || exit 2
    total=$(echo $pts | wc -w)
    [ "$total" -gt 0 ] || { echo "sweep.sh: no rows in $remodel" >&2; exit 2; }
    : >"$tmp/model"
    for pt in $pts; do
        k=$((k + 1))
        echo "sweep.sh: model at ${pt%%:*} L = ${pt##*:} ($k of $total, $(($(date +%s) - start)) s)" >&2
        m=$(model "$pt") || exit 1
        echo "$m" >>"$tmp/model"
    done
    # FILE's rows in order, the model's columns (by name) replaced by this run's lines; with
    # --prices the priced ratio too, a column added at the end where FILE has none
    awk -v model="$tmp/model" -v priced="${prices:+1}" "$lib"'
        BEGIN { while ((getline line < model) > 0) m[++nm] = line; close(model)
                nc = split("model_lookup_gcs model_rt_gcs model_lookup_faults model_rt_faults model_lookup_carriers model_rt_carriers model_ratio model_priced_ratio", cols, " ")
                if (!priced) nc-- }
        /^#/ { next }
        !csv_row() { if (!NF) next; add = priced && $0 !~ /(^|,)model_priced_ratio(,|$)/; print $0 (add ? ",model_priced_ratio" : ""); next }
        { split(m[++r], c, ",")
          for (i = 1; i <= csv_nf; i++) f[i] = csv_f[i]
          n = csv_nf; if (add) f[++n] = ""
          for (j = 1; j <= nc; j++) f[j < 8 || !add ? csv_col_of(FILENAME, cols[j]) : n] = c[j]
          line = f[1]; for (i = 2; i <= n; i++) line = line "," f[i]; print line }
        END { if (r != nm) csv_die(FILENAME ": " r " rows, " nm " model lines") }' "$remodel" >"$tmp/rows" || exit 2
    {
        # FILE's metadata, less the recompute stamp: these model columns are not the current code's defaults
        grep '^#' "$remodel" | grep -v '^# \(model_\(sources\|git\|date\|load\)\|prices\):'
        [ -z "$prices" ] || prices_meta
        echo "# remodel: the model's columns from eptest --era otp25 ${sets[*]:+${sets[*]} }${prices:+--prices ${prices_name:-$prices} }($(date -u +%Y-%m-%dT%H:%M:%SZ), git $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)); the VM's as measured above"
        grep -v '^#' "$tmp/rows"
    } >"$tmp/out.csv" && mv "$tmp/out.csv" "$out" || { echo "sweep.sh: cannot write $out" >&2; exit 2; }
    echo "sweep.sh: wrote $out ($(($(date +%s) - start)) s)" >&2
    summary "$out"
    exit $?
fi

if ! command -v erl >/dev/null 2>&1 || ! command -v erlc >/dev/null 2>&1; then
    echo "erl not found: skipping the fidelity sweep; apt-get install erlang-nox"
    exit 0
fi
if [ $quick = 1 ]; then
    points="ints:1000 ints:3000 ints:10000 ints:30000 floats:10000 tuple:10000 strings:10000"
    : "${out:=$root/results/fidelity-sweep-quick.csv}"
else
    points="$(for l in $(seq 250 250 30000); do printf 'ints:%s ' "$l"; done)"
    for s in floats tuple strings; do points="$points $(for l in $(seq 1000 1000 30000); do printf '%s:%s ' "$s" "$l"; done)"; done
    : "${out:=$root/report/data/fidelity-sweep.csv}"
fi
mkdir -p "$(dirname "$out")" || exit 2
export ERL_CRASH_DUMP="$tmp/erl_crash.dump"
erlc -o "$tmp" "$here/eptest.erl" || exit 1
flags="+S 2:2"

total=$(echo $points | wc -w) k=0 start=$(date +%s)
: >"$tmp/rows"
for pt in $points; do
    shape=${pt%%:*} len=${pt##*:} k=$((k + 1))
    echo "sweep.sh: $shape L = $len ($k of $total, $(($(date +%s) - start)) s)" >&2
    : >"$tmp/runs"
    for r in $(seq 1 "$rounds"); do
        # shellcheck disable=SC2086 # flags are words by design
        erl -noshell $flags -pa "$tmp" -s eptest main -extra --flags "-noshell $flags" --shape "$shape" \
            --len "$len" --iterations "$iterations" --repeats 1 --csv "$tmp/v.csv" >/dev/null 2>&1 \
            || { echo "sweep.sh: eptest.erl failed at $shape $len (run $r)" >&2; exit 1; }
        side "$tmp/v.csv" >>"$tmp/runs" || exit 1
    done
    m=$(model "$pt") && v=$(vm_runs "$tmp/runs") || exit 1
    IFS=, read -r mlg mrg mlf mrf mlc mrc mra mpr <<<"$m"
    IFS=, read -r vlg vrg vlf vrf vlc vrc vra spread <<<"$v"
    echo "$shape,$len,$mlg,$vlg,$mrg,$vrg,$mlf,$vlf,$mrf,$vrf,$mlc,$vlc,$mrc,$vrc,$mra,$vra,$rounds,$spread${prices:+,$mpr}" >>"$tmp/rows"
done
meta() { sed -n "s/^# $1: //p" "$2" | head -1; }
{
    echo "# experiment: fidelity sweep (model eptest --era otp25 and VM eptest.erl, alternated per point; experiments/beam/sweep.sh)"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# git: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet 2>/dev/null || echo -dirty)"
    echo "# machine: $(meta cpu "$tmp/m.csv"); $(meta kernel "$tmp/m.csv")"
    echo "# compiler: $(meta compiler "$tmp/m.csv")"
    echo "# flags: $(meta flags "$tmp/m.csv")"
    echo "# debug_level: $(meta debug_level "$tmp/m.csv")"
    echo "# erts: $(meta erts "$tmp/v.csv") (OTP $(meta otp_release "$tmp/v.csv"), $(meta emu_flavor "$tmp/v.csv")); emulator_flags: -noshell $flags"
    echo "# points: $total; $iterations calls per pass, 1 fresh tester per run; counts per 1000 operations"
    [ ${#sets[@]} -eq 0 ] || echo "# model_set: ${sets[*]} (the model's policy fields over OTP 25's)"
    [ -z "$prices" ] || prices_meta
    echo "# rounds: $rounds VM runs per point, each a fresh VM; vm_* columns are their medians, vm_*_lo and vm_*_hi their lowest and highest run; the model runs once"
    echo "# columns: rt = the round trip (proc2's counts); ratio = ets_lookup / median(proc1..3) us"
    echo "# duration_s: $(($(date +%s) - start))"
    echo "# loadavg: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null) (at the end of the run: the machine is shared)"
    echo "shape,payload_len,model_lookup_gcs,vm_lookup_gcs,model_rt_gcs,vm_rt_gcs,model_lookup_faults,vm_lookup_faults,model_rt_faults,vm_rt_faults,model_lookup_carriers,vm_lookup_carriers,model_rt_carriers,vm_rt_carriers,model_ratio,vm_ratio,vm_rounds,vm_lookup_gcs_lo,vm_lookup_gcs_hi,vm_rt_gcs_lo,vm_rt_gcs_hi,vm_lookup_faults_lo,vm_lookup_faults_hi,vm_rt_faults_lo,vm_rt_faults_hi,vm_lookup_carriers_lo,vm_lookup_carriers_hi,vm_rt_carriers_lo,vm_rt_carriers_hi,vm_ratio_lo,vm_ratio_hi${prices:+,model_priced_ratio}"
    cat "$tmp/rows"
} >"$tmp/out.csv" && mv "$tmp/out.csv" "$out" || { echo "sweep.sh: cannot write $out" >&2; exit 2; }
echo "sweep.sh: wrote $out ($(($(date +%s) - start)) s)" >&2
summary "$out"
