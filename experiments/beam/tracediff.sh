#!/usr/bin/env bash
# The lookup loop's GCs on the real VM and on the model, compared GC by GC: compiles
# gctrace.erl (and eptest.erl, whose helpers it uses) into a temp dir, runs
# `gctrace.erl --rows` and the model's `gctrace` at length L with N lookups, and runs
# `tracediff` on the two CSVs, printing its first divergence and summary.
#
# usage: experiments/beam/tracediff.sh [--bin DIR] [--keep DIR] L [N]
#   L           the stored list's length (ints, lists:seq(1, L))
#   N           lookups (default 200)
#   --bin DIR   where the model's gctrace and tracediff are (default build/release/experiments
#               in the checkout: cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release ...)
#   --keep DIR  also leave the two CSVs there (vm-L.csv, model-L.csv)
# Exit status: tracediff's (0 identical, 1 different), 2 on a failure. Without erl it prints
# that it skips and exits 0, as run.sh does. The VM runs `-noshell +S 2:2`, like run.sh's
# base runs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin="$root/build/release/experiments" keep="" args=()
while [ $# -gt 0 ]; do
    case "$1" in
    --bin) bin="${2:?--bin needs a directory}"; shift ;;
    --keep) keep="${2:?--keep needs a directory}"; shift ;;
    --help|-h) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "tracediff.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) args+=("$1") ;;
    esac
    shift
done
[ ${#args[@]} -ge 1 ] && [ ${#args[@]} -le 2 ] || { echo "tracediff.sh: usage: tracediff.sh [--bin DIR] L [N] (see --help)" >&2; exit 2; }
len=${args[0]} n=${args[1]:-200}
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
(cd "$tmp" && erl -noshell +S 2:2 -pa "$tmp" -s gctrace main -extra --len "$len" --lookups "$n" --rows --flags "-noshell +S 2:2" --csv "$tmp/vm.csv") \
    || { echo "tracediff.sh: gctrace.erl failed" >&2; exit 2; }
"$bin/gctrace" --len "$len" --iterations "$n" --csv "$tmp/model.csv" >/dev/null || { echo "tracediff.sh: gctrace failed" >&2; exit 2; }
if [ -n "$keep" ]; then
    mkdir -p "$keep" && cp "$tmp/vm.csv" "$keep/vm-$len.csv" && cp "$tmp/model.csv" "$keep/model-$len.csv" || exit 2
fi
echo "tracediff.sh: L $len, $n lookups"
"$bin/tracediff" --vm "$tmp/vm.csv" --model "$tmp/model.csv"
