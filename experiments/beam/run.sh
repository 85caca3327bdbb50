#!/usr/bin/env bash
# The real-VM twins of the model's experiments: eptest (seed 2005, with the section 7.5
# variants), crossover and etsbench (seed 2009), run on the installed erl into the model's
# CSV schema.
#
# usage: experiments/beam/run.sh [--quick] [--tiny] [--ints-only] [--build DIR] [--ets-n N]
#                                [--ets-repeats R] [RESULTS_DIR]
#   RESULTS_DIR  where the CSVs go (default results/beam in the checkout)
#   --build DIR  where erlc writes the .beam files (default: a temp dir under $TMPDIR, removed
#                afterwards); never the source tree
#   --quick      fewer repeats and sizes, the crossover's fine grid for ints only (about a
#                minute)
#   --tiny       tiny sizes, for tests/cli_beam.sh only
#   --ints-only  lists of integers only: no plain run of the other shapes (the report reads the
#                lists' runs and variants; the canonical run, experiments/beam/fidelity.sh, has
#                the tuples)
#   --ets-n N    objects of the etsbench run (default: etsbench's own for the size), so the
#                VM's table can have the model's size
#   --ets-repeats R  repeats of the etsbench run (default: etsbench's own for the size)
#
# Emulator flags, recorded in every CSV's '# emulator_flags' line:
#   -noshell +S 2:2   both cores as schedulers, explicitly (the machine has 2; the default would
#                     pick the same, but the figures must say what ran)
#   +S 2:2 +MHsbct 2048   eheap single-block carrier threshold 512 KiB -> 2 MiB (7.5, exp. 3):
#                     test names get _sbct2048
#   +S 1:1            one scheduler: client and server share it, as on the non-SMP R10B of the
#                     seed; test names get _s1
# Scheduler busy-waiting and binding stay at their defaults, so the base run is the VM as a user
# gets it. Runs are sequential: two VMs at once would measure each other.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
quick=0 tiny=0 build="" results="" ets_n="" ets_rep="" other_shapes="floats tuple nested strings binary"
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) quick=1 ;;
    --tiny) quick=1 tiny=1 ;;
    --ints-only) other_shapes="" ;;
    --build) build="${2:?--build needs a directory}"; shift ;;
    --ets-n) ets_n="${2:?--ets-n needs a number}"; shift
             case "$ets_n" in '' | *[!0-9]* | 0 | 1) echo "run.sh: --ets-n: expected an integer of at least 2, got '$ets_n'" >&2; exit 2 ;; esac ;;
    --ets-repeats) ets_rep="${2:?--ets-repeats needs a number}"; shift
             case "$ets_rep" in '' | *[!0-9]* | 0) echo "run.sh: --ets-repeats: expected a positive integer, got '$ets_rep'" >&2; exit 2 ;; esac ;;
    --help|-h) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) results="$1" ;;
    esac
    shift
done

if ! command -v erl >/dev/null 2>&1 || ! command -v erlc >/dev/null 2>&1; then
    echo "erl not found: skipping the real-VM runs; apt-get install erlang-nox"
    exit 0
fi

results="${results:-$root/results/beam}"
mkdir -p "$results" || exit 2
export ERL_CRASH_DUMP="$results/erl_crash.dump"   # not into whatever directory we were run from
if [ -z "$build" ]; then
    build=$(mktemp -d "${TMPDIR:-/tmp}/termcopy-beam.XXXXXX") || exit 2
    trap 'rm -rf "$build"' EXIT
fi
case "$(cd "$build" 2>/dev/null && pwd)/" in
"$here"/*) echo "run.sh: refusing to compile into the source tree ($build)" >&2; exit 2 ;;
esac
mkdir -p "$build" || exit 2
erlc -o "$build" "$here/eptest.erl" "$here/crossover.erl" "$here/etsbench.erl" || exit 1

# vm FLAGS MODULE ARGS...: one VM, its flags recorded by the module.
vm() {
    local flags="$1" mod="$2"
    shift 2
    # shellcheck disable=SC2086 # flags are words by design
    erl -noshell $flags -pa "$build" -s "$mod" main -extra --flags "-noshell $flags" "$@"
}

base="+S 2:2"
if [ $tiny -eq 1 ]; then
    lens="100 300" shapes_at="100" ep="--iterations 50 --repeats 1" var_lens=300
    cx="--lens 10,100,300 --iterations 50 --repeats 1" eb="-n 2000 --repeats 1" sizes="100 1000" sizes_rep=1
elif [ $quick -eq 1 ]; then
    lens="1000 10000" shapes_at="1000" ep="--quick" var_lens="1000 10000"
    cx="--quick" eb="--quick" sizes="1000 1000000" sizes_rep=1
else
    lens="1000 3000 10000 30000" shapes_at="10000" ep="--repeats 7" var_lens="1000 10000"
    cx="" eb="" sizes="1000 1000000" sizes_rep=1
fi
[ -n "$ets_n" ] && eb="$eb -n $ets_n" # after --quick, which sets its own N
[ -n "$ets_rep" ] && eb="$eb --repeats $ets_rep"

status=0 written=()
t0=$(date +%s)
step() { echo "run.sh: [$(($(date +%s) - t0))s; load $(cut -d" " -f1 /proc/loadavg)] $*" >&2; }
ep() { # ep FLAGS NAME ARGS...: one eptest run into eptest_NAME.csv, its seed line to stdout
    local flags="$1" name="$2"
    shift 2
    step "eptest $name ($flags)"
    printf '%-28s ' "$name"
    # shellcheck disable=SC2086 # $ep holds several options
    vm "$flags" eptest $ep --trace --csv "$results/eptest_$name.csv" "$@" || status=1
    written+=("$results/eptest_$name.csv")
}

for len in $lens; do
    ep "$base" "ints_$len" --shape ints --len "$len" --variants
done
for shape in $other_shapes; do
    ep "$base" "${shape}_$shapes_at" --shape "$shape" --len "$shapes_at" --variants
done
# Section 7.5: experiment 3 (+MHsbct 2048; min_heap_size 200000), experiment 6 (the tester's
# message queue off_heap), and one scheduler.
for len in $var_lens; do # (--tiny: one length, a smoke test of each variant)
    ep "$base +MHsbct 2048" "ints_${len}_sbct2048" --shape ints --len "$len" --suffix _sbct2048
    ep "$base" "ints_${len}_min_heap" --shape ints --len "$len" --min-heap 200000
    ep "$base" "ints_${len}_off_heap" --shape ints --len "$len" --off-heap
    ep "+S 1:1" "ints_${len}_s1" --shape ints --len "$len" --suffix _s1
done

# All eptest rows of this run in one file for the figures: each source's flags, one header.
{
    for f in "${written[@]}"; do
        echo "# source: $(basename "$f"): $(grep -m1 '^# emulator_flags' "$f" | cut -d' ' -f3-)"
    done
    grep -v '^#' "${written[0]}" | head -n 1
    for f in "${written[@]}"; do grep -v '^#' "$f" | tail -n +2; done
} >"$results/eptest_all.csv"

step "crossover ($base)"
# shellcheck disable=SC2086
vm "$base" crossover $cx --csv "$results/crossover.csv" --points "$results/crossover_points.csv" \
    --counts "$results/crossover_counts.csv" || status=1
if [ $quick -eq 1 ] && [ $tiny -eq 0 ]; then
    # The quick grid is coarse; lists of integers also get the fine one (every 250 from 1000
    # to 10000), as the model's crossover has it.
    step "crossover, ints on the fine grid ($base)"
    vm "$base" crossover --shape ints --repeats 3 --budget 2000000 --csv "$results/crossover_ints_fine.csv" \
        >/dev/null || status=1
fi
step "etsbench ($base, 1 and 2 schedulers online; each run in a VM of its own)"
# --fresh: every repeat of every mode and scheduler count in its own VM, so each starts on
# fresh memory as the model's etsbench runs do (in one VM a worker's heap can be a segment an
# exited worker left in the mseg cache, its pages written already).
# shellcheck disable=SC2086
vm "$base" etsbench $eb --fresh --csv "$results/etsbench.csv" || status=1
# The seed's question is the locks; a table of a million objects also misses the cache. The
# same single-scheduler operations on a small table and on a large one, one row per size.
step "etsbench at table sizes $sizes ($base, 1 scheduler online)"
{
    for n in $sizes; do
        # shellcheck disable=SC2086
        vm "$base" etsbench -n "$n" --repeats "$sizes_rep" --threads 1 --lookup-only --csv "$results/etsbench_n$n.csv" >/dev/null || status=1
    done
    first=$(echo $sizes | cut -d' ' -f1)
    grep '^#' "$results/etsbench_n$first.csv" | grep -v '^# objects'
    echo "# objects: N {I, hello} per row (objects), I = N..1"
    echo "objects,$(grep -v '^#' "$results/etsbench_n$first.csv" | head -n 1)"
    for n in $sizes; do grep -v '^#' "$results/etsbench_n$n.csv" | tail -n +2 | sed "s/^/$n,/"; done
} >"$results/etsbench_sizes.csv" || status=1
for n in $sizes; do rm -f "$results/etsbench_n$n.csv"; done
step "CSVs in $results"
exit $status
