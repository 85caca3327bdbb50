#!/usr/bin/env bash
# The fidelity runs: the model's eptest (OTP 25 rules) and the real VM's eptest on lists of
# integers, one after the other at each length, for several rounds, so every model/VM pair ran
# seconds apart on the same loaded machine. One row per round, length and side; the report
# takes the median of each side's per-round lookup/proc ratios and its 95 % interval (the
# order-statistic interval of the median, report/stats.awk median_ci: 6 rounds or more).
#
# usage: experiments/beam/fidelity.sh [--rounds R] [--repeats K] [--lens "L1 L2 ..."]
#                                     [--shapes "S1 S2 ..."] [--points "S:L ..."]
#                                     [--iterations N] [--vm-overhead] [--vm-variants]
#                                     EPTEST_BINARY OUTPUT_CSV
#   EPTEST_BINARY  the model's experiments/eptest
#   --rounds R     rounds (default 6: the fewest with a 95 % interval of the median)
#   --repeats K    fresh testers per run on each side, medians (default 1: a round is one
#                  sample; the spread is the rounds')
#   --lens "..."   payload lengths (default "1000 3000 10000 30000")
#   --shapes "..." payload shapes, as eptest --shape takes them (default "ints")
#   --points "..." shape:length pairs instead of every shape at every length (the report's:
#                  lists at six lengths, tuples at three), in this order within a round
#   --iterations N calls per pass on both sides (default 1000, the seed's)
#   --vm-variants  the VM's eptest also runs its two lookup variants in every tester: one hot
#                  key looked up N times, and ets:lookup_element/3 (copy_struct instead of
#                  copy_shallow); their passes' times are the VM rows' hot_key_us and
#                  element_us, the hot key's counts hot_key_gcs and hot_key_faults (the
#                  model's rows leave them empty)
#   --vm-overhead  the model's eptest runs with --vm-overhead (the VM's fixed per-operation
#                  costs the model does not execute, measured in that run, added as a phase):
#                  its rows' source is model+vm_overhead instead of model
#
# proc is the median of a run's three proc passes, lookup its ets_lookup pass (each already a
# median over the run's K testers). Exits 0 without writing when erl is not installed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
vmvar=() rounds=6 repeats=1 lens="1000 3000 10000 30000" shapes=ints iterations=1000 oh=() side=model points=""
while [ $# -gt 0 ]; do
    case "$1" in
    --rounds) rounds="${2:?--rounds needs a number}"; shift ;;
    --repeats) repeats="${2:?--repeats needs a number}"; shift ;;
    --lens) lens="${2:?--lens needs lengths}"; shift ;;
    --shapes) shapes="${2:?--shapes needs shapes}"; shift ;;
    --iterations) iterations="${2:?--iterations needs a number}"; shift ;;
    --vm-overhead) oh=(--vm-overhead) side=model+vm_overhead ;;
    --vm-variants) vmvar=(--variants) ;;
    --points) points="${2:?--points needs shape:length pairs}"; shift ;;
    --help|-h) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fidelity.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) break ;;
    esac
    shift
done
[ $# -eq 2 ] || { echo "usage: experiments/beam/fidelity.sh [OPTIONS] EPTEST_BINARY OUTPUT_CSV (see --help)" >&2; exit 2; }
model="$1" out="$2"
number() { case "$2" in '' | *[!0-9]*) echo "fidelity.sh: $1 must be a positive integer, not '$2'" >&2; exit 2 ;; esac
           [ "$2" -gt 0 ] || { echo "fidelity.sh: $1 must be a positive integer, not '$2'" >&2; exit 2; }; }
number --rounds "$rounds"
number --iterations "$iterations"
number --repeats "$repeats"
if [ -z "$points" ]; then
    for s in $shapes; do for l in $lens; do points="$points $s:$l"; done; done
fi
for pt in $points; do
    case "$pt" in *:*) ;; *) echo "fidelity.sh: --points: '$pt' is not shape:length" >&2; exit 2 ;; esac
    number --lens "${pt#*:}"
    case " ints floats tuple nested strings binary map " in
    *" ${pt%%:*} "*) ;;
    *) echo "fidelity.sh: no shape '${pt%%:*}' (ints floats tuple nested strings binary map)" >&2; exit 2 ;;
    esac
done
[ -x "$model" ] || { echo "fidelity.sh: $model is not an executable" >&2; exit 2; }
if ! command -v erl >/dev/null 2>&1 || ! command -v erlc >/dev/null 2>&1; then
    echo "erl not found: skipping the fidelity runs; apt-get install erlang-nox"
    exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/termcopy-fidelity.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
export ERL_CRASH_DUMP="$tmp/erl_crash.dump"
erlc -o "$tmp" "$here/eptest.erl" || exit 1
flags="+S 2:2"

# row ROUND SIDE CSV: the round's proc and lookup from one eptest CSV, read by column name
# (report/csv.awk); proc is the round trip, report/stats.awk's round_trip() (the median of the
# proc1..3 passes), as everywhere in the report.
lib="$(cat "$root/report/csv.awk" "$root/report/stats.awk") BEGIN { csv_who = \"fidelity.sh\" }" || exit 2
row() {
    awk -v round="$1" -v side="$2" "$lib"'
        !csv_row() { next }
        { t = csv_get("test"); us[side, t] = csv_get("median_us") + 0 }
        # counts per 1000 operations, whatever the calls per pass
        { k = 1000 / csv_get("iterations") }
        t ~ /^proc[123]$/ { pf += csv_get("faults") * k; pg += csv_get("gcs") * k }
        t == "ets_lookup" { lg = csv_get("gcs") * k; lf = csv_get("faults") * k; lc = csv_get("carriers_mapped") * k
                            len = csv_get("payload_len"); shape = csv_get("shape") }
        t == "ets_lookup_hot_key" { hg = sprintf("%.0f", csv_get("gcs") * k); hf = sprintf("%.0f", csv_get("faults") * k) }
        END {
            pr = round_trip(us, side); ratio = rt_ratio(us, side, "ets_lookup")
            printf "%d,%s,%d,%s,%.1f,%.1f,%.3f,%.0f,%.0f,%.0f,%.0f,%.0f,%s,%s,%s,%s\n", round, shape, len, side, pr, us[side, "ets_lookup"],
                   ratio, lg, lf, lc, pg / 3, pf / 3, hg, hf,
                   ((side, "ets_lookup_hot_key") in us) ? sprintf("%.1f", us[side, "ets_lookup_hot_key"]) : "",
                   ((side, "ets_lookup_element") in us) ? sprintf("%.1f", us[side, "ets_lookup_element"]) : ""
        }' "$3"
}

{
    echo "# experiment: fidelity (model eptest --era otp25 ${oh[*]+${oh[*]} }and VM eptest, alternated, $rounds rounds)"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# git: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "# points: $(echo $points)"
    echo "# iterations: $iterations per pass; $repeats fresh testers per run (--repeats $repeats), medians"
    echo "# counts: per 1000 operations (gcs, faults, carriers: the ets_lookup pass; proc_*: the mean of the three proc passes)"
    echo "# emulator_flags: -noshell $flags"
    echo "# otp_release: $(erl -noshell -eval 'io:put_chars(erlang:system_info(otp_release)), halt().')"
} >"$tmp/meta"
: >"$tmp/rows"; : >"$tmp/load"
total=$((rounds * $(echo $points | wc -w))) k=0
for r in $(seq 1 "$rounds"); do
    for pt in $points; do
        s=${pt%%:*} l=${pt#*:}
        {
            k=$((k + 1))
            echo "fidelity.sh: round $r of $rounds, $s L = $l ($k of $total)" >&2
            cut -d' ' -f1 /proc/loadavg >>"$tmp/load" 2>/dev/null || true
            "$model" --era otp25 --shape "$s" --len "$l" --iterations "$iterations" --repeats "$repeats" \
                ${oh[@]+"${oh[@]}"} --csv "$tmp/m.csv" >/dev/null || exit 1
            row "$r" "$side" "$tmp/m.csv" >>"$tmp/rows" || exit 1
            # shellcheck disable=SC2086 # flags are words by design
            erl -noshell $flags -pa "$tmp" -s eptest main -extra --flags "-noshell $flags" \
                --shape "$s" --len "$l" --iterations "$iterations" --repeats "$repeats" ${vmvar[@]+"${vmvar[@]}"} --csv "$tmp/v.csv" >/dev/null || exit 1
            row "$r" vm "$tmp/v.csv" >>"$tmp/rows" || exit 1
        }
    done
done
{
    cat "$tmp/meta"
    echo "# loadavg: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null) (at the end of the run: the machine is shared)"
    echo "# load: $(sort -n "$tmp/load" | awk '{ a[NR] = $1 } END { if (NR) printf "the 1-minute load average at each point: min %s, median %s, max %s (%d points)", a[1], a[int((NR + 1) / 2)], a[NR], NR; else printf "n/a" }')"
    echo "round,shape,payload_len,source,proc_us,lookup_us,ratio,lookup_gcs,lookup_faults,lookup_carriers,proc_gcs,proc_faults,hot_key_gcs,hot_key_faults,hot_key_us,element_us"
    cat "$tmp/rows"
} >"$tmp/out.csv" && mv "$tmp/out.csv" "$out" || { echo "fidelity.sh: cannot write $out" >&2; exit 2; }
