#!/usr/bin/env bash
# Where each rebuilt VM's round trip spends its CPU time: eptest's proc2 loop (a tester calling
# a server whose reply carries lists:seq(1, L)) run long under `perf record` (cpu-clock
# samples of the whole OS process, every thread: no hardware counters needed), the samples
# grouped by the erts mechanism of the function they fell in. The time account (account.sh)
# prices counts; this names the code the time went to, so that a change an intervention makes
# to a loop's time the account does not price (the scheduler threads' sleeps and wake-ups, the
# kernel's part) is measured rather than inferred.
#
# usage: experiments/beam/interventions/perfsplit.sh [--rounds R] [--lens "L1 L2 ..."]
#                 [--calls N] [--variants "V1 V2 ..."] [--freq HZ] [OUTPUT_CSV]
#   OUTPUT_CSV   default report/data/vm-interventions-perf.csv: one row per round, variant,
#                length and group: the group's samples, its share and its ns per call, each the
#                run's less the same VM's with no call (its start, code loading and halt)
#   --rounds R   rounds (default 3); per round and length each variant in turn
#   --lens       payload lengths (default "1000")
#   --calls N    round trips per run (default 1000000)
#   --variants   build.sh variants of the installed VM's source (default "rebuilt word_gc_test")
#   --freq HZ    samples per second of CPU time (default 2000)
# The groups (a function's name decides; the first that matches):
#   copy     the send's size_object and copy_struct (erl_message.c erts_send_message)
#   move     a queued message's fragment copied onto the heap (erl_gc.c erts_copy_one_frag,
#            erts_proc_sig_move_msgs_to_heap)
#   gc       the collector (erl_gc.c: garbage_collect, minor and major collections, the sweeps,
#            offset_heap, collect_live_heap_frags, move_one_area, the root set, freeing the
#            fragments it leaves)
#   msg      messages and signals other than the copy (erl_message.c erts_send_message,
#            erts_try_alloc_message_on_heap, the signal queue erl_proc_sig_queue.c)
#   alloc    erts_alloc's allocators (erl_alloc_util.c, erl_ao_firstfit_alloc.c: mbc_, rbt_,
#            aoff_, erts_alcu_, the delayed deallocation queue)
#   sched    the schedulers and their locks, sleeps and wake-ups (erl_process.c erts_schedule,
#            mutexes, thread progress, futexes, the poll thread's epoll, timerfd and pipe)
#   kernel   the kernel's code (perf's [k] samples: system calls, page faults, wake-ups)
#   jit      the BEAM code the JIT emitted (the loop itself; no symbol)
#   other    the rest
# Needs perf (apt-get install linux-perf) allowed to sample (root, or
# /proc/sys/kernel/perf_event_paranoid at most 1); exits 0 without writing when it is not.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
rounds=3 lens="1000" calls=1000000 variants="rebuilt word_gc_test" freq=2000
out="$root/report/data/vm-interventions-perf.csv"
prog=perfsplit.sh
# shellcheck source=experiments/beam/interventions/cli.sh
. "$here/cli.sh"
while [ $# -gt 0 ]; do
    case "$1" in
    --rounds) num --rounds "${2-}"; rounds=$2; shift ;;
    --lens) lens="${2:?--lens needs lengths}"; shift ;;
    --calls) num --calls "${2-}"; calls=$2; shift ;;
    --variants) variants="${2:?--variants needs names}"; shift ;;
    --freq) num --freq "${2-}"; freq=$2; shift ;;
    --help | -h) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) usage "unknown option '$1'" ;;
    *) out=$1 ;;
    esac
    shift
done
for l in $lens; do num --lens "$l"; done
known=$(bash "$here/build.sh" --list | tr '\n' ' ')
known=${known% }
for v in $variants; do
    case " $known " in *" $v "*) ;; *) usage "--variants: no variant '$v' ($known)" ;; esac
done
say() { echo "perfsplit.sh: $*" >&2; }
if ! command -v erl >/dev/null 2>&1 || ! command -v erlc >/dev/null 2>&1; then
    echo "erl not found: skipping the perf split; apt-get install erlang-nox"
    exit 0
fi
if ! command -v perf >/dev/null 2>&1 || ! perf record -q -e cpu-clock -o /dev/null -F 100 true >/dev/null 2>&1; then
    echo "perf cannot sample here: skipping the perf split (apt-get install linux-perf; run as root)"
    exit 0
fi
started=$SECONDS
# shellcheck disable=SC2086 # the names are words
lines=$(bash "$here/build.sh" $variants) || { say "build.sh failed"; exit 1; }
declare -A vroot vkey
while read -r name r _ key _; do vroot[$name]=$r vkey[$name]=$key; done <<<"$lines"
for v in $variants; do [ -n "${vroot[$v]+x}" ] || { say "build.sh made no variant '$v'"; exit 1; }; done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
erlc -o "$tmp" "$root/experiments/beam/eptest.erl"
rows="$tmp/rows.csv"
echo "round,variant,payload_len,calls,group,samples,share_pct,ns_per_call" >"$rows"
for r in $(seq 1 "$rounds"); do
    for l in $lens; do
        for v in $variants; do
            say "round $r of $rounds, L = $l, $v ($((SECONDS - started)) s)"
            # the tester's proc2 pass alone (eptest's server and call_loop), as the account's session
            # runs it, and the same VM with no call: its start, code loading and halt taken out
            for n in 0 "$calls"; do
                perf record -q -e cpu-clock -F "$freq" -o "$tmp/perf.data" "${vroot[$v]}/bin/erl" -noshell +S 2:2 +sbwt none \
                    +sbwtdcpu none +sbwtdio none -pa "$tmp" \
                    -eval "_ = eptest:tester({ints, $l, $n, [], false}, [proc2]), halt()." </dev/null >"$tmp/erl.log" 2>&1 ||
                    { cat "$tmp/erl.log" >&2; exit 1; }
                perf report -q -i "$tmp/perf.data" --stdio --no-children --sort sym -g none --percent-limit 0 \
                    -F sample,sym 2>/dev/null >"$tmp/report-$n.txt"
            done
            awk -v r="$r" -v v="$v" -v l="$l" -v calls="$calls" -v freq="$freq" -f "$here/perfsplit.awk" \
                "$tmp/report-0.txt" "$tmp/report-$calls.txt" >>"$rows"
        done
    done
done
{
    echo "# experiment: where each rebuilt VM's round trip spends its CPU time (experiments/beam/interventions/perfsplit.sh): eptest's proc2 pass of $calls calls under perf record, the samples grouped by erts mechanism"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# git: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD -- 2>/dev/null || echo '-dirty')"
    echo "# machine: $(uname -srm); cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') ($(nproc) online)"
    echo "# source_package: erlang $(dpkg-query -W -f '${Version}' erlang-base 2>/dev/null || echo unknown) (build.sh: apt-get source, Debian's patches applied)"
    for v in $variants; do echo "# variant: $v root ${vroot[$v]#"$root"/} emulator key ${vkey[$v]}"; done
    echo "# vm: erl +S 2:2 +sbwt none +sbwtdcpu none +sbwtdio none (the account's session), flavor jit"
    echo "# perf: $(perf version 2>/dev/null | head -n 1); record -e cpu-clock -F $freq (CPU time of every thread of the OS process; each run's samples less the same VM's with no call, so its start, code loading and halt drop out)"
    echo "# runs: $rounds rounds over lengths $lens; $calls calls a run; per round and length each variant in turn"
    echo "# groups: copy (size_object, copy_struct), move (erts_copy_one_frag, move_msgs_to_heap), gc (the collector), msg (messages and signals, the copy aside), alloc (erts_alloc's allocators), sched (schedulers, locks, wake-ups), kernel ([k] samples), jit (emitted BEAM code), other; samples: the run's less the same VM's with no call; ns_per_call = samples / freq / calls"
    echo "# duration_s: $((SECONDS - started)); loadavg: $(cut -d' ' -f1-3 /proc/loadavg) (at the end: the machine is shared)"
    cat "$rows"
} >"$out.tmp" && mv "$out.tmp" "$out"
say "wrote $out ($((SECONDS - started)) s)"
