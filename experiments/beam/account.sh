#!/usr/bin/env bash
# The time account of the eptest loops (experiments/account, scenarios/account.h): at each point
# of a grid, each round, the model's eptest, the VM's loops with the VM's counts, and apart from
# them the calibrations of every unit price in each loop's context, all in one VM session; one
# row per point and loop (proc1..3, ets_lookup) with the VM's CPU time, its counts at its prices
# in phases, what they leave, and the model's counts at the same prices; then a summary line.
#
# usage: experiments/beam/account.sh [--shapes "S1 S2 ..."] [--lens "L1 L2 ..."] [--rounds R]
#                                    [--iterations N] [--quick] [--bin DIR] [--out FILE]
#                                    [--prices FILE] [--vm-root DIR] [--set NAME=VALUE ...]
#                                    [--schedulers 1|2]
#   (no option)     the fidelity grid the report runs: ints at 10 100 1000 3000 10000 30000 and
#                   tuple at 1000 3000 10000, 1000 calls per pass, 3 rounds, into
#                   results/account.csv (and the prices into results/account-prices.csv)
#   --shapes, --lens  the grid's shapes and lengths instead (every shape at every length)
#   --rounds R      rounds (default 3; --quick 1)
#   --iterations N  calls per pass on both sides (default 1000; --quick 200)
#   --quick         one round of 200 calls per pass (under 2 minutes for the grid)
#   --bin DIR       where the model's experiments are (default build/release/experiments)
#   --out FILE, --prices FILE   the CSVs' paths
#   --vm-root DIR   the VM to measure and price: DIR/bin/erl (a rebuilt one:
#                   experiments/beam/interventions/build.sh's roots), not the erl on PATH
#   --set NAME=VALUE  one field of the model's policy table over OTP 25's (eptest --set), so
#                   that the model's counts are those of the mechanism the VM was rebuilt with;
#                   repeatable
#   --schedulers S  the VM's normal schedulers, +S S:S (default 2, as the benchmark runs; 1: one
#                   scheduler, given in ERL_ZFLAGS after the session's own flags, so that the
#                   last +S wins, and said in the CSVs' metadata; with one scheduler the
#                   account prices no sleep: account.erl's sleep row needs two)
# Exits 0 without writing when erl is not installed; 2 when the account cannot run (no
# cpuclock NIF: apt-get install erlang-dev, then rebuild).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin="$root/build/release/experiments" shapes="" lens="" rounds="" iterations="" quick=() sets=() vm_root="" schedulers=2
out="$root/results/account.csv" prices="$root/results/account-prices.csv"
while [ $# -gt 0 ]; do
    case "$1" in
    --shapes) shapes="${2:?--shapes needs shapes}"; shift ;;
    --lens) lens="${2:?--lens needs lengths}"; shift ;;
    --rounds) rounds="${2:?--rounds needs a number}"; shift ;;
    --iterations) iterations="${2:?--iterations needs a number}"; shift ;;
    --quick) quick=(--quick) ;;
    --bin) bin="${2:?--bin needs a directory}"; shift ;;
    --out) out="${2:?--out needs a file}"; shift ;;
    --prices) prices="${2:?--prices needs a file}"; shift ;;
    --vm-root) vm_root="${2:?--vm-root needs a directory}"; shift ;;
    --set) sets+=(--set "${2:?--set needs NAME=VALUE}"); shift ;;
    --schedulers) schedulers="${2:?--schedulers needs 1 or 2}"; shift ;;
    --help|-h) sed -n '2,/^# cpuclock NIF/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "account.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done
case "$schedulers" in 1 | 2) ;; *) echo "account.sh: --schedulers: '$schedulers' is not 1 or 2" >&2; exit 2 ;; esac
for v in $lens; do
    case "$v" in '' | *[!0-9]*) echo "account.sh: --lens: '$v' is not a length" >&2; exit 2 ;; esac
done
for s in $shapes; do
    case " ints floats tuple nested strings binary map " in
    *" $s "*) ;;
    *) echo "account.sh: --shapes: no shape '$s' (ints floats tuple nested strings binary map)" >&2; exit 2 ;;
    esac
done
if [ -n "$vm_root" ]; then
    [ -x "$vm_root/bin/erl" ] || { echo "account.sh: --vm-root: no $vm_root/bin/erl (experiments/beam/interventions/build.sh lays out such roots)" >&2; exit 2; }
    PATH="$(cd "$vm_root/bin" && pwd):$PATH"
fi
[ "$schedulers" = 1 ] && export ERL_ZFLAGS="${ERL_ZFLAGS:+$ERL_ZFLAGS }+S 1:1"
[ -x "$bin/account" ] || { echo "account.sh: $bin/account not built (cmake --build build/release)" >&2; exit 2; }
if ! command -v erl >/dev/null 2>&1 || ! command -v erlc >/dev/null 2>&1; then
    echo "erl not found: skipping the time account; apt-get install erlang-nox"
    exit 0
fi
if [ -z "$shapes$lens" ]; then
    points="ints:10 ints:100 ints:1000 ints:3000 ints:10000 ints:30000 tuple:1000 tuple:3000 tuple:10000"
else
    points=$(for s in ${shapes:-ints}; do for l in ${lens:-1000}; do printf '%s:%s ' "$s" "$l"; done; done)
fi
args=(--points "$points" --csv "$out" --prices "$prices" ${quick[@]+"${quick[@]}"} ${sets[@]+"${sets[@]}"})
[ -n "$rounds" ] && args+=(--repeats "$rounds")
[ -n "$iterations" ] && args+=(--iterations "$iterations")
mkdir -p "$(dirname "$out")" "$(dirname "$prices")" || exit 2
start=$(date +%s)
"$bin/account" "${args[@]}" || exit $?
echo "account.sh: wrote $out and $prices ($(($(date +%s) - start)) s, loadavg $(cut -d' ' -f1-3 /proc/loadavg))" >&2
