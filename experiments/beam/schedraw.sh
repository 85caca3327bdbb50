#!/usr/bin/env bash
# Which normal scheduler runs the tester, run by run (heaps/sched.h): eptest.erl at one point,
# each run a fresh VM at +S 2:2, alternating the VM's default (+scl true: OTP 25 compacts a
# light load onto fewer run queues, erl_process.c check_balance) with +scl false. Per run and
# pass (proc1..3), the eheap_alloc instance the pass's segment requests came from most (1 or 2:
# the scheduler the tester ran on; eptest.erl's vm_counts), whether the tester moved, and the
# carriers the pass mapped and its minor faults. A tester that moves finds none of its segments
# cached in its new scheduler's instance: the round trip's carriers the sweep's VM runs do not
# repeat (report §5.1).
#
# usage: experiments/beam/schedraw.sh [--runs N] [--shape S] [--len L] [--iterations N] [--out FILE]
#   --runs N        runs of each setting, alternated (default 6)
#   --shape S       eptest.erl's payload shape (default strings)
#   --len L         payload length (default 25000: long passes, where a balance check comes
#                   before the round trip's pass ends)
#   --iterations N  calls per pass (default 1000, the seed's)
#   --out FILE      the CSV (default results/schedraw.csv)
# Progress goes to standard error. Without erl it says so and exits 0.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=6 shape=strings len=25000 iterations=1000 out="$root/results/schedraw.csv"
usage() { sed -n '/^# usage:/,/^# Progress/p' "$0" | sed 's/^# \{0,1\}//'; }
num() { case "$2" in '' | *[!0-9]*) echo "schedraw.sh: $1 needs a positive number, got '$2'" >&2; exit 2 ;; esac
        [ "$2" -gt 0 ] || { echo "schedraw.sh: $1 needs a positive number, got '$2'" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
    case "$1" in
    --runs) num "$1" "${2-}"; runs=$2; shift ;;
    --shape) shape="${2:?--shape needs a shape}"; shift ;;
    --len) num "$1" "${2-}"; len=$2; shift ;;
    --iterations) num "$1" "${2-}"; iterations=$2; shift ;;
    --out) out="${2:?--out needs a file}"; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "schedraw.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
if ! command -v erl >/dev/null 2>&1 || ! command -v erlc >/dev/null 2>&1; then
    echo "erl not found: skipping the scheduler draw; apt-get install erlang-nox"
    exit 0
fi
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
export ERL_CRASH_DUMP="$tmp/erl_crash.dump"
erlc -o "$tmp" "$here/eptest.erl" || exit 1
mkdir -p "$(dirname "$out")" || exit 2
start=$(date +%s)
: >"$tmp/rows"
for r in $(seq 1 "$runs"); do
    for scl in true false; do
        flags="+S 2:2"; [ $scl = false ] && flags="$flags +scl false"
        echo "schedraw.sh: $shape L = $len, run $r of $runs, +scl $scl ($(($(date +%s) - start)) s)" >&2
        # shellcheck disable=SC2086 # flags are words by design
        erl -noshell $flags -pa "$tmp" -s eptest main -extra --flags "-noshell $flags" --shape "$shape" --len "$len" \
            --iterations "$iterations" --repeats 1 --csv "$tmp/v.csv" >/dev/null 2>&1 </dev/null ||
            { echo "schedraw.sh: eptest.erl failed (+scl $scl, run $r)" >&2; exit 1; }
        # the instance whose eheap_mseg_alloc is the largest in each pass, then each pass's row
        awk -F, -v scl="$scl" -v run="$r" '
            /^# vm_counts: proc[123] / { best = -1
                n = split($0, w, " ")
                for (i = 1; i <= n; i++) if (w[i] ~ /^eheap_mseg_alloc_i[0-9]+=/) {
                    split(w[i], kv, "="); ix = substr(kv[1], length("eheap_mseg_alloc_i") + 1) + 0
                    if (ix > 0 && kv[2] + 0 > best) { best = kv[2] + 0; inst[w[3]] = ix } } }
            /^#/ { next }
            $1 == "test" { for (i = 1; i <= NF; i++) h[$i] = i; next }
            $1 ~ /^proc[123]$/ { c[$1] = $h["carriers_mapped"]; f[$1] = $h["faults"] }
            END { if (!("proc1" in inst) || !("proc3" in inst) || !("proc2" in c)) exit 1
                  printf "%s,%d,%d,%d,%s,%d,%d,%d,%d,%d,%d\n", scl, run, inst["proc1"], inst["proc3"],
                      inst["proc1"] != inst["proc3"] ? "yes" : "no", c["proc1"], c["proc2"], c["proc3"], f["proc1"], f["proc2"], f["proc3"] }' \
            "$tmp/v.csv" >>"$tmp/rows" || { echo "schedraw.sh: no per-instance counts in eptest.erl's CSV" >&2; exit 1; }
    done
done
{
    echo "# experiment: which scheduler runs the tester (experiments/beam/schedraw.sh), eptest.erl --shape $shape --len $len --iterations $iterations --repeats 1"
    echo "# payload: $shape, L = $len, $iterations calls per pass"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# git: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "# erts: $(erl -noshell -eval 'io:put_chars(erlang:system_info(version)), halt().' </dev/null)"
    echo "# emulator_flags: -noshell +S 2:2, and +scl false where scl is false; each run a fresh VM, the two settings alternated"
    echo "# start_instance, end_instance: the eheap_alloc instance (1, 2: the normal schedulers') with the most segment requests in proc1 and in proc3"
    echo "# carriers: mseg_alloc mseg_create calls in the pass (all instances); faults: minor faults of the OS process in the pass"
    echo "# loadavg: $(cut -d' ' -f1-3 /proc/loadavg) (at the end: the machine is shared); duration_s: $(($(date +%s) - start))"
    echo "scl,run,start_instance,end_instance,moved,proc1_carriers,proc2_carriers,proc3_carriers,proc1_faults,proc2_faults,proc3_faults"
    cat "$tmp/rows"
} >"$out"
echo "schedraw.sh: wrote $out ($(($(date +%s) - start)) s)" >&2
