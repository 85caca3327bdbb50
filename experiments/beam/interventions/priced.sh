#!/usr/bin/env bash
# The interventions priced: each rebuilt VM (build.sh) measured and priced by the time account
# (experiments/beam/account.sh --vm-root) in its own session, its unit prices calibrated on that
# VM, and the model's counts with the matching mechanism switched (account --set) priced at
# them. An intervention changes the counts and the contexts the prices come from (a loop that
# now maps a carrier per call prices its carriers where they are mapped), so each variant is
# priced at its own VM's prices, never at the unpatched VM's.
#
# usage: experiments/beam/interventions/priced.sh [--rounds R] [--lens "L1 L2 ..."]
#                 [--iterations N] [--variants "V1 V2 ..."] [--schedulers 1|2] [--bin DIR] [OUTPUT_CSV]
#   OUTPUT_CSV   default report/data/vm-interventions-priced.csv (--schedulers 1:
#                report/data/vm-interventions-priced-s1.csv): one row per round, variant
#                and length, the VM's columns from its account, the model's from eptest
#                --prices at that account's prices; the prices beside it (OUTPUT-prices.csv:
#                round, variant, then the account's prices columns), so that report/recompute.sh
#                reruns the model's columns from the current code
#   --rounds R   rounds (default 3); per round and length each variant in turn, the baseline first
#   --lens       payload lengths of lists of integers (default "1000 3000 4250 4500 10000 30000",
#                the interventions' lengths: run.sh)
#   --iterations N  calls per pass (default 1000)
#   --variants   build.sh variants of the installed VM's source (default "rebuilt word_gc_test
#                no_long_gc_delay mseg_no_cache"); rebuilt, the unpatched source, is the
#                baseline every other is compared with and is always run
#   --schedulers S  the VMs' normal schedulers, +S S:S (default 2, as the benchmark runs; 1: one,
#                account.sh --schedulers 1: the model runs one scheduler, so there its counts
#                and the VM's answer to the same program)
#   --bin DIR    the model's experiments (default build/release/experiments)
# Each variant's model switch (ablate --list-ablations): rebuilt none; word_gc_test
# bif_gc_test=words; no_long_gc_delay long_gc_words=0; mseg_no_cache mseg_cache=0.
# The summary printed at the end (priced.awk, which report/derive.sh uses too), per variant and
# length: the VM's effect on the ratio (lookup / median proc, CPU time) against rebuilt's in the
# same rounds, resolved when the two variants' rounds do not overlap, and the model's priced
# effect; they agree when the signs are the same.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
rounds=3 lens="1000 3000 4250 4500 10000 30000" iterations=1000 variants="rebuilt word_gc_test no_long_gc_delay mseg_no_cache"
bin="$root/build/release/experiments" out="" schedulers=2
prog=priced.sh
# shellcheck source=experiments/beam/interventions/cli.sh
. "$here/cli.sh"
while [ $# -gt 0 ]; do
    case "$1" in
    --rounds) num --rounds "${2-}"; rounds=$2; shift ;;
    --lens) lens="${2:?--lens needs lengths}"; shift ;;
    --iterations) num --iterations "${2-}"; iterations=$2; shift ;;
    --variants) variants="${2:?--variants needs names}"; shift ;;
    --schedulers) case "${2-}" in 1 | 2) schedulers=$2 ;; *) usage "--schedulers: '${2-}' is not 1 or 2" ;; esac; shift ;;
    --bin) bin="${2:?--bin needs a directory}"; shift ;;
    --help | -h) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) usage "unknown option '$1'" ;;
    *) out=$1 ;;
    esac
    shift
done
for l in $lens; do num --lens "$l"; done
if [ -z "$out" ]; then
    out="$root/report/data/vm-interventions-priced.csv"
    [ "$schedulers" = 2 ] || out="${out%.csv}-s1.csv"
fi
declare -A switch=([rebuilt]="" [word_gc_test]="bif_gc_test=words" [no_long_gc_delay]="long_gc_words=0"
    [mseg_no_cache]="mseg_cache=0")
wanted="rebuilt"
for v in $variants; do
    [ -n "${switch[$v]+x}" ] || usage "--variants: no variant '$v' (rebuilt word_gc_test no_long_gc_delay mseg_no_cache)"
    [ "$v" = rebuilt ] || wanted="$wanted $v"
done
command -v erl >/dev/null 2>&1 || { echo "erl not found: skipping the priced interventions; apt-get install erlang-nox"; exit 0; }
say() { echo "priced.sh: $*" >&2; }
started=$SECONDS
say "building the VM variants: $wanted"
# shellcheck disable=SC2086 # the names are words
lines=$(bash "$here/build.sh" $wanted) || { say "build.sh failed"; exit 1; }
declare -A vroot vkey
while read -r name r _ key _; do vroot[$name]=$r vkey[$name]=$key; done <<<"$lines"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lib="$(cat "$root/report/csv.awk" "$root/report/stats.awk") BEGIN { csv_who = \"priced.sh\" }"
model_awk=$(cat "$here/model.awk")
rows="$tmp/rows.csv" pcsv="$tmp/prices.csv"
echo "round,variant,model_switch,payload_len,vm_ratio,model_priced_ratio,vm_lookup_gcs,model_lookup_gcs,vm_lookup_faults,model_lookup_faults,vm_lookup_carriers,model_lookup_carriers,vm_proc_gcs,model_proc_gcs,vm_proc_carriers,model_proc_carriers,vm_lookup_priced_over_vm,vm_proc_priced_over_vm,\
vm_lookup_us,vm_lookup_priced_us,model_lookup_priced_us,vm_proc_us,vm_proc_priced_us,model_proc_priced_us,vm_lookup_sleeps,\
vm_proc_sleeps,vm_proc_sleep_us" >"$rows"
: >"$pcsv"
for r in $(seq 1 "$rounds"); do
    for l in $lens; do
        for v in $wanted; do
            say "round $r of $rounds, L = $l, $v ($((SECONDS - started)) s)"
            set_args=()
            [ -z "${switch[$v]}" ] || set_args=(--set "${switch[$v]}")
            bash "$root/experiments/beam/account.sh" --vm-root "${vroot[$v]}" --bin "$bin" --shapes ints --lens "$l" \
                --rounds 1 --iterations "$iterations" --schedulers "$schedulers" ${set_args[@]+"${set_args[@]}"} --out "$tmp/a.csv" \
                --prices "$tmp/p.csv" >"$tmp/a.log" 2>&1 || { cat "$tmp/a.log" >&2; exit 1; }
            # the model's counts at this VM's prices, on the priced clock: eptest --prices, as the sweep
            "$bin/eptest" --era otp25 ${set_args[@]+"${set_args[@]}"} --shape ints --len "$l" --iterations "$iterations" \
                --repeats 1 --prices "$tmp/p.csv" --csv "$tmp/m.csv" >/dev/null 2>"$tmp/m.err" ||
                { cat "$tmp/m.err" >&2; exit 1; }
            [ -s "$pcsv" ] || grep -v '^#' "$tmp/p.csv" | head -n 1 | sed 's/^/round,variant,/' >"$pcsv"
            grep -v '^#' "$tmp/p.csv" | tail -n +2 | sed "s/^/$r,$v,/" >>"$pcsv"
            # the VM's side: proc2's row (the round trip, as the sweep's rt columns) and the lookup's
            awk -v r="$r" -v v="$v" -v sw="${switch[$v]:-none}" -v l="$l" "$lib$model_awk"'
                FILENAME == ARGV[1] { if (!csv_row()) next; t = csv_get("loop")
                    if (t == "ets_lookup") { vr = csv_get("point_vm_ratio"); lg = csv_get("vm_minor") + csv_get("vm_major")
                        lf = csv_get("vm_faults"); lc = csv_get("vm_carriers"); lq = csv_get("priced_over_vm")
                        lu = csv_get("vm_us"); lp = csv_get("vm_priced_us"); ls = csv_get("vm_sleeps") }
                    if (t == "proc2") { pg = csv_get("vm_minor") + csv_get("vm_major"); pc = csv_get("vm_carriers")
                        pq = csv_get("priced_over_vm"); pu = csv_get("vm_us"); pp = csv_get("vm_priced_us")
                        ps = csv_get("vm_sleeps"); psu = csv_get("sleep_us") }
                    next }
                !csv_row() { next }
                { model_row() }
                END { printf "%s,%s,%s,%s,%s,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", r, v, sw, l,
                          vr, model_ratio(), lg, model["lookup_gcs"], lf, model["lookup_faults"], lc,
                          model["lookup_carriers"], pg, model["proc_gcs"], pc, model["proc_carriers"], lq, pq,
                          lu, lp, model_priced("ets_lookup"), pu, pp, model_priced("proc2"), ls, ps, psu }' \
                "$tmp/a.csv" "$tmp/m.csv" >>"$rows"
        done
    done
done
meta() {
    echo "# experiment: the interventions priced (experiments/beam/interventions/priced.sh): per round and length each rebuilt VM's time account (account.sh --vm-root: its loops, its counts, its own prices) and the model with the matching switch (eptest --set) priced at those prices (eptest --prices, its counts on the priced clock)"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# git: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD -- 2>/dev/null || echo '-dirty')"
    echo "# machine: $(uname -srm); cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') ($(nproc) online)"
    echo "# compiler: $(cc --version | head -n 1); the model: $bin (release build, debug level 0)"
    echo "# source_package: erlang $(dpkg-query -W -f '${Version}' erlang-base 2>/dev/null || echo unknown) (build.sh: apt-get source, Debian's patches applied)"
    for v in $wanted; do echo "# variant: $v root ${vroot[$v]#"$root"/} emulator key ${vkey[$v]} model switch ${switch[$v]:-none}"; done
    echo "# vm: erl +S $schedulers:$schedulers +sbwt none +sbwtdcpu none +sbwtdio none (the account's session$([ "$schedulers" = 1 ] && echo ": +S 1:1 in ERL_ZFLAGS, after its +S 2:2; the account prices no sleep"))), flavor jit"
    echo "# schedulers: $schedulers"
    echo "# runs: $rounds rounds over lengths $lens; $iterations calls per pass; per round and length each variant in turn: its account (one round: the VM's loops, its calibrations), then the model's eptest at its prices"
    echo "# ratio: ets_lookup / median(proc1..3): vm_ratio of the VM's CPU time (the account's point_vm_ratio), model_priced_ratio of the model's counts at that VM's prices of the same round"
    echo "# counts: per pass of $iterations operations: lookup the ets_lookup pass, proc proc2 (the round trip); gcs minor and major; carriers mapped; vm_*_priced_over_vm: the VM's own account identity (its counts at its prices over its time); sleeps: the VM's threads' voluntary context switches in the pass (the model runs no scheduler threads and counts none)"
    echo "# times: µs of CPU time per pass: vm_*_us the VM's (the account's vm_us), vm_*_priced_us its counts at its prices, model_*_priced_us the model's counts at the same prices (n/a: not priced), vm_proc_sleep_us the account's sleep phase of proc2 (its sleeps beyond the [] loop's rate at the sleep price)"
    echo "# duration_s: $((SECONDS - started)); loadavg: $(cut -d' ' -f1-3 /proc/loadavg) (at the end: the machine is shared)"
}
prices_out="${out%.csv}-prices.csv"
{ meta; cat "$rows"; } >"$out.tmp" && mv "$out.tmp" "$out"
{ meta; cat "$pcsv"; } >"$prices_out.tmp" && mv "$prices_out.tmp" "$prices_out"
say "wrote $out and $prices_out ($((SECONDS - started)) s)"
awk -v summary=1 "$lib$(cat "$here/priced.awk")" "$out"
