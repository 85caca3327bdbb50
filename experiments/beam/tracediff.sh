#!/usr/bin/env bash
# The lookup loop's GCs on the real VM and on the model, compared GC by GC: compiles
# gctrace.erl (and eptest.erl, whose helpers it uses) into a temp dir, runs
# `gctrace.erl --rows` and the model's `gctrace` at length L with N lookups, and runs
# `tracediff` on the two CSVs, printing its first divergence and summary.
#
# usage: experiments/beam/tracediff.sh [--bin DIR] [--keep DIR] [--schedulers 1|2] L [N]
#        experiments/beam/tracediff.sh --tester SHAPE [--bin DIR] [--keep DIR] [--schedulers 1|2] L [N]
#   L           the stored list's length (ints, lists:seq(1, L)); --tester: the payload's
#   N           lookups (default 200); --tester: calls per pass (default 1000)
#   --tester SHAPE  eptest's whole run instead of the lookup loop: the tester's and the
#               server's GCs from spawn to exit, every pass (gctrace.erl --tester --rows and
#               gctrace --tester --shape SHAPE), compared per process and phase
#   --schedulers S  the VM's +S S:S (default 2, as the benchmark runs; 1: one scheduler)
#   --bin DIR   where the model's gctrace and tracediff are (default build/release/experiments
#               in the checkout: cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release ...)
#   --keep DIR  also leave the two CSVs there (vm-L.csv, model-L.csv)
# Exit status: tracediff's (0 identical, 1 different), 2 on a failure. Without erl it prints
# that it skips and exits 0, as run.sh does. The VM runs `-noshell +S 2:2` unless
# --schedulers 1, like run.sh's base runs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin="$root/build/release/experiments" keep="" args=() shape="" scheds=2
while [ $# -gt 0 ]; do
    case "$1" in
    --bin) bin="${2:?--bin needs a directory}"; shift ;;
    --keep) keep="${2:?--keep needs a directory}"; shift ;;
    --tester) shape="${2:?--tester needs a shape}"; shift ;;
    --schedulers) scheds="${2:?--schedulers needs 1 or 2}"; shift ;;
    --help|-h) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "tracediff.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) args+=("$1") ;;
    esac
    shift
done
[ ${#args[@]} -ge 1 ] && [ ${#args[@]} -le 2 ] || { echo "tracediff.sh: usage: tracediff.sh [--bin DIR] L [N] (see --help)" >&2; exit 2; }
case "$scheds" in 1|2) ;; *) echo "tracediff.sh: --schedulers must be 1 or 2, got '$scheds'" >&2; exit 2 ;; esac
case "$shape" in ""|ints|floats|tuple|nested|strings|binary|map) ;; *) echo "tracediff.sh: bad --tester shape '$shape'" >&2; exit 2 ;; esac
len=${args[0]} n=${args[1]:-$([ -n "$shape" ] && echo 1000 || echo 200)}
[[ "$len" =~ ^[1-9][0-9]*$ && "$n" =~ ^[1-9][0-9]*$ ]] || { echo "tracediff.sh: L and N must be positive integers, got '$len' '$n'" >&2; exit 2; }
if ! command -v erl >/dev/null 2>&1 || ! command -v erlc >/dev/null 2>&1; then
    echo "erl not found: skipping the real-VM trace; apt-get install erlang-nox"
    exit 0
fi
for b in gctrace tracediff; do
    [ -x "$bin/$b" ] || { echo "tracediff.sh: $bin/$b not built (see --help)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
erlc -o "$tmp" "$here/gctrace.erl" "$here/eptest.erl" || { echo "tracediff.sh: erlc failed" >&2; exit 2; }
flags="-noshell +S $scheds:$scheds"
tester_vm=() tester_model=()
[ -n "$shape" ] && tester_vm=(--tester "$shape") tester_model=(--tester --shape "$shape")
# shellcheck disable=SC2086 # the emulator flags are words
(cd "$tmp" && erl $flags -pa "$tmp" -s gctrace main -extra --len "$len" --lookups "$n" "${tester_vm[@]}" --rows --flags "$flags" --csv "$tmp/vm.csv") \
    || { echo "tracediff.sh: gctrace.erl failed" >&2; exit 2; }
"$bin/gctrace" "${tester_model[@]}" --len "$len" --iterations "$n" --csv "$tmp/model.csv" >/dev/null || { echo "tracediff.sh: gctrace failed" >&2; exit 2; }
if [ -n "$keep" ]; then
    mkdir -p "$keep" && cp "$tmp/vm.csv" "$keep/vm-$len.csv" && cp "$tmp/model.csv" "$keep/model-$len.csv" || exit 2
fi
if [ -n "$shape" ]; then
    echo "tracediff.sh: eptest's tester, $shape L $len, N $n, +S $scheds:$scheds"
else
    echo "tracediff.sh: L $len, $n lookups, +S $scheds:$scheds"
fi
"$bin/tracediff" --vm "$tmp/vm.csv" --model "$tmp/model.csv"
