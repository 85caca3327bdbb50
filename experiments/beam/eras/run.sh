#!/usr/bin/env bash
# experiments/beam/eras/run.sh — the seeds' benchmarks on the seeds' own VMs, beside the model.
#
# usage: experiments/beam/eras/run.sh [OPTIONS] NAME=ROOT ...
#   NAME=ROOT   an already-built VM (this script builds nothing; experiments/beam/eras/build.sh
#               builds them all and prints these arguments):
#                 r10b-2-32, r10b-2-64   R10B-2 (erts 5.4.3), 32- and 64-bit words: ROOT is the
#                                        source tree it was built in (ROOT/bin/<target>/beam,
#                                        ROOT/bin/<target>/inet_gethost, ROOT/bootstrap/)
#                 r13b01-plain, r13b01-smp   R13B01 (erts 5.7.2): ROOT holds bootstrap/bin/erl
#                                        and the tree's bin/<target>/beam and beam.smp
#               OTP 25 (otp25) is the installed erl, run whenever it is on PATH.
#   NAME@BUILD=ROOT   a build of r13b01-plain or r13b01-smp with one source change, the
#                 one-variable run of a mechanism only a rebuild can vary: its 2009 loops
#                 (N = --ets-n, the seed's table) are rows of NAME with variant BUILD, beside
#                 the model's etsbench with the same change. BUILD is one of
#                   grow1   erl_db_hash.c db_put_hash splits a bucket once the table holds
#                           more objects than buckets (nitems > nactive, OTP 25's
#                           GROW_LIMIT) instead of seven per bucket; the model: --set
#                           ets_grow=gt_1x
#                 (the change's sha256 goes in --provenance, as the source fixes')
#   --lens "L ..."   eptest payload lengths (default "10 100 1000 3000 10000 30000")
#   --iterations N   eptest calls per pass (default 1000, the seed's)
#   --ets-n N        ets_test / pdict keys (default 1000000, the seed's)
#   --rounds K       rounds; in each, every VM run is followed by the model's run of the
#                    same benchmark, so the pairs run seconds apart (default 3)
#   --repeats R      eptest and pdict runs per round, each in a VM of its own, and the model's
#                    pdict runs (default 3; ets_test: 1 per round)
#   --model DIR      the model's build (DIR/experiments/eptest, etsbench; default build/release)
#   --provenance F   '# key: value' lines about the VMs' builds (source commit, fixes and
#                    their sha256, configure flags, CFLAGS, beam_emu.c's flags), copied into
#                    the output's metadata
#   --out FILE       the CSV (default report/data/eras.csv); the unit prices of eptest's loops
#                    go beside it, FILE less .csv plus -prices.csv (eras-prices.csv): measured
#                    on r10b-2-32, r10b-2-64 and r13b01-plain (one scheduler thread each) in
#                    every round after the VM's eptest runs at each length, by eras_price.erl in
#                    a VM of its own; eras.csv's priced_us is the VM's counts at them and
#                    model_priced_us, model_priced_ratio the model's (eptest --prices)
#   --variants       also the one-variable runs, each beside the model's same switch where it
#                    has one: R10B-2 at L = 1000 and 10000 (those of --lens) with hot_key (one
#                    key looked up N times) and heap_200000 (a tester min_heap_size of 200000
#                    words; R13B01 without SMP too: its lookups then leave no fragment to
#                    collect), and at L = 10000 and 30000 with rsbcmt_40 (+MHrsbcmt 40: a heap
#                    shrunk below sbct moves into a multiblock carrier, its single-block carrier
#                    freed whole for the next collection); R13B01 with plain_set (no
#                    write_concurrency) and with 20000 keys
#   --quick          lengths 100 1000, 100 calls, 20000 keys, 1 round, 1 repeat
#   --keep NAME      keep NAME's rows from the --out file this run replaces, as they are, with
#                    their own metadata (date, machine, load, git of the run that measured them
#                    as NAME_kept): for a VM this machine cannot run (a kernel without 32-bit
#                    user code cannot run r10b-2-32); NAME is not given as NAME=ROOT then
#   --dry-run        check the arguments and the VMs, print what would run, run nothing
#
# eptest (experiments/beam/eras/eras_ep.erl, the 2005 benchmark reconstructed from the post's
# text) runs on every VM, beside the model's `eptest --era r10b` (R10B-2 rows), `--era r13b`
# (R13B01 rows; the SMP emulator's with --set send_path=heap_or_frag) and `--era otp25`; ets_test and pdict (eras_ets.erl, the 2009 post's loops) run
# on R13B01 and OTP 25 with +h 9999999, each in a VM of its own (a process's heap outlives it
# in the mseg cache: pdict after ets_test would start on ets_test's pages), beside the model's
# `etsbench --era r13b` with R13B01's locks (the meta-table lock, DB_HASH_LOCK_CNT 16 bucket
# locks: erl_db.c db_get_table, erl_db_hash.h), whose every loop starts on a fresh source,
# and its pdict loops (`etsbench --pdict`); for the SMP emulator's rows --set alloc_lock=on, its
# thread-preferred allocators locking each call: each realloc of the dictionary's array, each
# ETS object's alloc and free (heaps/policy.c).
# Each VM compiles the Erlang sources with its own compiler. Never run by CI or the default
# ./run report: `./run report --eras NAME=ROOT`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)

# After the runs began, a failure keeps their rows (the raw CSVs of every round) for a look.
die() { printf 'eras: %s\n' "$*" >&2; [ -z "${started:-}" ] || { keep=1; printf 'eras: the runs so far are in %s\n' "$tmp" >&2; }; exit 2; }
need_vms() {
    die "no VM given: pass NAME=ROOT for r10b-2-32 and r10b-2-64 (R10B-2, erts 5.4.3) and r13b01-plain and r13b01-smp (R13B01, erts 5.7.2), as experiments/beam/eras/build.sh SOURCE prints them once it has built them from the public source (github.com/mfoemmel/erlang-otp commits e4bd6dec3 and 7b734f235, or otp_src_R10B-2.tar.gz and otp_src_R13B01.tar.gz); otp25 is the installed erl"
}

# build_switch BUILD: the model's etsbench switch for a rebuilt VM's one change (empty: unknown)
build_switch() { case "$1" in grow1) echo "ets_grow=gt_1x" ;; esac; }

lens="10 100 1000 3000 10000 30000" iterations=1000 ets_n=1000000 rounds=3 repeats=3
model="$top/build/release" prov="" out="$top/report/data/eras.csv" dry=0 variants=0
vms=() roots=() kept=()
while [ $# -gt 0 ]; do
    case "$1" in
    --lens) lens="${2:?--lens needs lengths}"; shift ;;
    --iterations) iterations="${2:?--iterations needs a number}"; shift ;;
    --ets-n) ets_n="${2:?--ets-n needs a number}"; shift ;;
    --rounds) rounds="${2:?--rounds needs a number}"; shift ;;
    --repeats) repeats="${2:?--repeats needs a number}"; shift ;;
    --model) model="${2:?--model needs a directory}"; shift ;;
    --provenance) prov="${2:?--provenance needs a file}"; shift ;;
    --out) out="${2:?--out needs a file}"; shift ;;
    --quick) lens="100 1000" iterations=100 ets_n=20000 rounds=1 repeats=1 ;;
    --dry-run) dry=1 ;;
    --variants) variants=1 ;;
    --keep)
        case "${2:-}" in
        r10b-2-32 | r10b-2-64 | r13b01-plain | r13b01-smp) kept+=("$2") ;;
        *) die "--keep needs one of r10b-2-32, r10b-2-64, r13b01-plain, r13b01-smp" ;;
        esac
        shift ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *=*)
        name=${1%%=*} root=${1#*=}
        case "$name" in
        r10b-2-32 | r10b-2-64 | r13b01-plain | r13b01-smp) ;;
        r13b01-plain@* | r13b01-smp@*)
            [ -n "$(build_switch "${name#*@}")" ] || die "unknown build '${name#*@}' of ${name%@*} (grow1)" ;;
        otp25) die "otp25 is the installed erl: give no ROOT for it" ;;
        *) die "unknown VM '$name' (r10b-2-32, r10b-2-64, r13b01-plain, r13b01-smp)" ;;
        esac
        for v in ${vms[@]+"${vms[@]}"}; do [ "$v" != "$name" ] || die "$name given twice"; done
        [ -d "$root" ] || die "$name: $root is not a directory"
        vms+=("$name") roots+=("$(cd "$root" && pwd)")
        ;;
    *) die "'$1' is not NAME=ROOT (see --help)" ;;
    esac
    shift
done
[ ${#vms[@]} -gt 0 ] || [ ${#kept[@]} -gt 0 ] || need_vms
for k in ${kept[@]+"${kept[@]}"}; do
    for v in ${vms[@]+"${vms[@]}"}; do [ "$v" != "$k" ] || die "$k both kept and given as NAME=ROOT"; done
    [ -r "$out" ] && grep -q "^$k," "$out" || die "--keep $k: $out holds no $k rows"
done
number() { case "$2" in '' | *[!0-9]* | 0*) die "$1 must be a positive integer, not '$2'" ;; esac; }
number --iterations "$iterations"; number --ets-n "$ets_n"; number --rounds "$rounds"; number --repeats "$repeats"
for l in $lens; do
    number --lens "$l"
    [ "$l" -ge 10 ] && [ "$l" -le 30000 ] || die "--lens: $l is outside 10..30000 (the model's eptest range)"
done
[ -n "$prov" ] && { [ -r "$prov" ] || die "--provenance: cannot read $prov"; }
[ -x "$model/experiments/eptest" ] && [ -x "$model/experiments/etsbench" ] ||
    die "no model build in $model (cmake --build it, or give --model DIR)"
command -v erl >/dev/null 2>&1 && vms+=(otp25) roots+=("")
[ ${#vms[@]} -gt 0 ] || die "nothing to run: no NAME=ROOT given and no erl installed"

# launcher NAME ROOT HEAP [VARIANT]: the command that starts NAME with a min heap of HEAP words
# (0: the default) and the emulator flags of VARIANT (rsbcmt_P: the eheap allocator's rsbcmt),
# without a shell, -noshell; arguments for init follow it.
launcher() {
    local name=$1 root=$2 heap=$3 variant=${4:-base} bin flags=()
    case "$variant" in rsbcmt_*) flags=(MHrsbcmt "${variant#rsbcmt_}") ;; esac
    case "$name" in
    r10b-*)
        bin=$(ls -d "$root"/bin/*-linux-gnu 2>/dev/null | head -n 1 || true)
        [ -n "$bin" ] && [ -x "$bin/beam" ] || die "$name: no $root/bin/<target>/beam (the tree's emulator)"
        [ -x "$bin/inet_gethost" ] || die "$name: no $bin/inet_gethost (the kernel needs it to boot)"
        [ -r "$root/bootstrap/bin/start_clean.boot" ] || die "$name: no $root/bootstrap/bin/start_clean.boot"
        # R10B's beam takes emulator flags with '-' before the first '--' (erl would turn +h into -h)
        cmd=(env BINDIR="$bin" EMU=beam PROGNAME=erl ROOTDIR="$root/bootstrap" PATH="$bin:$PATH" "$bin/beam")
        [ "$heap" -gt 0 ] && cmd+=(-h "$heap")
        [ ${#flags[@]} -eq 0 ] || cmd+=("-${flags[0]}" "${flags[1]}")
        cmd+=(-- -root "$root/bootstrap" -progname erl -- -home "${HOME:-/tmp}" -boot "$root/bootstrap/bin/start_clean" -noshell)
        ;;
    r13b01-*)
        [ -x "$root/bootstrap/bin/erl" ] || die "$name: no $root/bootstrap/bin/erl (the tree's launcher)"
        cmd=("$root/bootstrap/bin/erl")
        case "${name%@*}" in r13b01-plain) cmd+=(-smp disable) ;; *) cmd+=(-smp enable +S 2) ;; esac
        [ "$heap" -gt 0 ] && cmd+=(+h "$heap")
        [ ${#flags[@]} -eq 0 ] || cmd+=("+${flags[0]}" "${flags[1]}")
        cmd+=(-noshell)
        ;;
    otp25)
        cmd=(erl +S 2:2)
        [ "$heap" -gt 0 ] && cmd+=(+h "$heap")
        [ ${#flags[@]} -eq 0 ] || cmd+=("+${flags[0]}" "${flags[1]}")
        cmd+=(-noshell)
        ;;
    esac
}

# check NAME ROOT DIR: the VM is the release its name says, with its word size; compiles
# the benchmarks into DIR with its own compiler.
check_and_compile() {
    local name=$1 root=$2 dir=$3 want_v want_w got
    case "$name" in
    r10b-2-32) want_v=5.4.3 want_w=4 ;; r10b-2-64) want_v=5.4.3 want_w=8 ;;
    r13b01-*) want_v=5.7.2 want_w=8 ;; otp25) want_v="" want_w=8 ;;
    esac
    launcher "$name" "$root" 0
    mkdir -p "$dir"
    got=$(cd "$here" && timeout 120 "${cmd[@]}" -eval '
        R = [compile:file(F, [{outdir, "'"$dir"'"}, report_errors]) || F <- ["eras_ep.erl", "eras_ets.erl", "eras_price.erl"]],
        io:format("~s ~w ~w~n", [erlang:system_info(version), erlang:system_info(wordsize), R]),
        halt().' 2>&1 | tail -n 1) || die "$name: the VM did not start ($got)"
    case "$got" in
    *"{ok,eras_ep},{ok,eras_ets},{ok,eras_price}"*) ;;
    *) die "$name: compiling the benchmarks failed: $got" ;;
    esac
    set -- $got
    [ -z "$want_v" ] || [ "$1" = "$want_v" ] || die "$name: erts $1, not $want_v"
    [ "$2" = "$want_w" ] || die "$name: word size $2 bytes, not $want_w"
    checked="erts $1, $2-byte words"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/termcopy-eras.XXXXXX")
keep=0
trap '[ $keep -eq 1 ] || rm -rf "$tmp"' EXIT
# Any other failure after the runs began keeps them too, and says where (set -e stops at it).
trap '[ -z "${started:-}" ] || [ $keep -eq 1 ] || { keep=1; printf "eras: line %s failed; the runs so far are in %s\n" "$LINENO" "$tmp" >&2; }' ERR
export ERL_CRASH_DUMP="$tmp/erl_crash.dump"
for i in "${!vms[@]}"; do
    check_and_compile "${vms[$i]}" "${roots[$i]}" "$tmp/${vms[$i]}"
    echo "eras: ${vms[$i]}: $checked, the benchmarks compiled" >&2
done

# The work, one line each: KIND VM VARIANT L-or-N (KIND eptest or ets).
var_lens=""
for l in $lens; do case "$l" in 1000 | 10000) var_lens="$var_lens $l" ;; esac; done
plan() {
    local v l
    for l in $lens; do
        for v in "${vms[@]}"; do
            case "$v" in *@*) ;; *) echo "eptest $v base $l" ;; esac
            case "$v" in r10b-2-32 | r10b-2-64 | r13b01-plain) echo "price $v base $l" ;; esac
        done
        if [ $variants -eq 1 ]; then
            case " $var_lens " in *" $l "*)
                for v in "${vms[@]}"; do
                    case "$v" in
                    r10b-*) echo "eptest $v hot_key $l"; echo "eptest $v heap_200000 $l" ;;
                    r13b01-plain) echo "eptest $v heap_200000 $l" ;;  # R13B01's collection after each lookup that left a fragment
                    esac
                done ;;
            esac
            case " 10000 30000 " in *" $l "*)
                for v in "${vms[@]}"; do
                    case "$v" in r10b-*) echo "eptest $v rsbcmt_40 $l" ;; esac
                done ;;
            esac
        fi
    done
    for v in "${vms[@]}"; do
        case "$v" in *@*) echo "ets $v ${v#*@} $ets_n"; continue ;; r13b01-* | otp25) echo "ets $v base $ets_n" ;; esac
        if [ $variants -eq 1 ]; then
            case "$v" in r13b01-*) echo "ets $v plain_set $ets_n"; [ "$ets_n" -eq 20000 ] || echo "ets $v base 20000" ;; esac
        fi
    done
}
if [ $dry -eq 1 ]; then
    echo "rounds $rounds, repeats $repeats; eptest N = $iterations"
    plan
    exit 0
fi

load() { cut -d' ' -f1-3 /proc/loadavg; }
started=$(date +%s) load0=$(load)
say() { printf 'eras: [%4ss] %s\n' "$(($(date +%s) - started))" "$*" >&2; }
raw_model="$tmp/model.csv"
echo "round,source,variant,test,payload_len,iterations,median_us,ratio,gcs,ns_per_op,faults" >"$raw_model"
lib="$(cat "$top/report/csv.awk" "$top/report/stats.awk") BEGIN { csv_who = \"eras\" }"
vm_of() { local i; for i in "${!vms[@]}"; do [ "${vms[$i]}" != "$1" ] || { echo "${roots[$i]}"; return; }; done; }
# The model's era for a VM's rows (R10B-2's 64-bit words are the model's; R13B01's r13b is its
# non-SMP emulator), and the switch that makes it the VM's: R13B01's SMP emulator sends as
# erts_alloc_message_heap does, onto the receiver's heap or into a fragment (heaps/send.h).
era_of() { case "$1" in r10b-*) echo r10b ;; r13b01-*) echo r13b ;; *) echo otp25 ;; esac; }
set_of() { case "$1" in r13b01-smp*) echo send_path=heap_or_frag ;; *) echo - ;; esac; }
# The rows' VM: a rebuilt VM's rows are its release's, their variant the build's name.
base_of() { echo "${1%@*}"; }

# model_eptest ROUND ERA VARIANT L SET: the model's eptest with the VM's switch (SET, - for none)
# and the variant's, into raw_model
model_eptest() {
    local sw=() src="eptest --era $2"
    [ "$5" = - ] || { sw=(--set "$5"); src="$src --set $5"; }
    case "$3" in hot_key) sw+=(--hot-key) ;; heap_*) sw+=(--min-heap "${3#heap_}") ;; rsbcmt_*) sw+=(--set "rsbcmt=${3#rsbcmt_}") ;; esac
    "$model/experiments/eptest" --era "$2" --len "$4" --iterations "$iterations" --repeats "$repeats" \
        ${sw[@]+"${sw[@]}"} --csv "$tmp/m.csv" >/dev/null 2>"$tmp/m.err" || { cat "$tmp/m.err" >&2; die "the model's eptest failed"; }
    awk -v round="$1" -v src="$src" -v variant="$3" "$lib"'
        !csv_row() { next }
        { t = csv_get("test"); us[t] = csv_get("median_us"); g[t] = csv_get("tester_gcs"); fa[t] = csv_get("faults")
          L = csv_get("payload_len"); n = csv_get("iterations") }
        END {
            a = us["proc1"]; b = us["proc2"]; c = us["proc3"]  # the round trip: the median of the three
            m = (a > b) ? ((b > c) ? b : (a > c ? c : a)) : ((a > c) ? a : (b > c ? c : b))
            split("proc1 proc2 proc3 ets_insert ets_overwrite ets_lookup empty", ts, " ")
            for (i = 1; i <= 7; i++) {
                t = ts[i]
                printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,,%s\n", round, src, variant, t, L, n, us[t],
                    (t == "ets_lookup" && m > 0) ? sprintf("%.4f", us[t] / m) : "", g[t], fa[t]
            }
        }' "$tmp/m.csv" >>"$raw_model"
}

# model_ets ROUND [BUILD]: the model's etsbench under R13B01's heap rules and locks (one repeat:
# the meta-table lock and its 16 bucket locks), with a rebuilt VM's one change (build_switch),
# into raw_model
model_ets() {
    local build=${2:-base} sw=()
    [ "$build" = base ] || sw=(--set "$(build_switch "$build")")
    # the plain emulator's table (e: none) and the SMP emulator's (w: write_concurrency, its
    # allocators locked)
    "$model/experiments/etsbench" --era r13b --iterations "$ets_n" --repeats 1 --meta-lock --bucket-locks 16 --modes none \
        ${sw[@]+"${sw[@]}"} --csv "$tmp/e.csv" >/dev/null 2>"$tmp/e.err" || { cat "$tmp/e.err" >&2; die "the model's etsbench failed"; }
    "$model/experiments/etsbench" --era r13b --iterations "$ets_n" --repeats 1 --meta-lock --bucket-locks 16 \
        --modes write_concurrency --set alloc_lock=on ${sw[@]+"${sw[@]}"} --csv "$tmp/w.csv" >/dev/null 2>"$tmp/e.err" ||
        { cat "$tmp/e.err" >&2; die "the model's etsbench failed"; }
    # the dictionary's loops apart, --repeats runs a round as the VM's: loops of a tenth of a
    # second whose fresh pages cost what the host makes them cost at that moment; the SMP
    # emulator's (s) with its allocator locks
    local f tag whole lk
    for f in p s; do
        lk=(); [ "$f" = s ] && lk=(--set alloc_lock=on)
        "$model/experiments/etsbench" --era r13b --pdict ${lk[@]+"${lk[@]}"} --iterations "$ets_n" --repeats "$repeats" \
            ${sw[@]+"${sw[@]}"} --csv "$tmp/$f.csv" >/dev/null 2>"$tmp/e.err" ||
            { cat "$tmp/e.err" >&2; die "the model's etsbench --pdict failed"; }
    done
    for f in e w p s; do
        case "$f" in e) tag="" whole=1 ;; w) tag=" --set alloc_lock=on" whole=1 ;; p) tag="" whole=0 ;; s) tag=" --set alloc_lock=on" whole=0 ;; esac
        awk -v round="$1" -v n="$ets_n" -v build="$build" -v tag="$tag" -v whole="$whole" "$lib"'
            !csv_row() { next }
            whole && csv_get("lock_mode") == "pdict" { next }  # the tables run once a round; the dictionary apart
            { printf "%s,etsbench %s/%s%s,%s,%s,0,%s,%.1f,,,%s,%s\n", round, csv_get("lock_mode"), csv_get("threads"), tag, build,
                  csv_get("op"), n, csv_get("ns_per_op") * n / 1000, csv_get("ns_per_op"), csv_get("faults") }' "$tmp/$f.csv" >>"$raw_model"
    done
}

# pass_faults VM L TEST: the round's median faults of VM's base TEST pass at L (0 if none)
pass_faults() {
    awk -v vm="$1" -v L="$2" -v t="$3" "$lib"'!csv_row() { next }
        csv_get("vm") == vm && csv_get("variant") == "base" && csv_get("test") == t && csv_get("payload_len") == L && csv_get("faults") != "" { f[++n] = csv_get("faults") + 0 }
        END { print n ? median(f, n) : 0 }' "$tmp"/vm."$r".*.csv
}

plan >"$tmp/plan"
steps=$(($(wc -l <"$tmp/plan") * rounds)) step=0
# eras_ets NAME N OUT VARIANT: the 2009 loops on the launcher's VM (cmd, v), each benchmark in a
# fresh VM (pdict with the seed's table only, in --repeats VMs: a tenth of a second each), rows
# appended to OUT
eras_ets() {
    local b k bs=ets_test
    [ "$4" = base ] && bs="ets_test pdict"
    for b in $bs; do
        for k in $(seq 1 "$([ "$b" = pdict ] && echo "$repeats" || echo 1)"); do
            "${cmd[@]}" -pa "$tmp/$v" -run eras_ets main "$1" "$2" 1 "$3" "$4" "$b" \
                >"$tmp/run.log" 2>&1 </dev/null || { cat "$tmp/run.log" >&2; die "$v: eras_ets $b failed"; }
        done
    done
}

for r in $(seq 1 "$rounds"); do
    ets_model_done=0 builds_done=""
    while read -r kind v variant x; do
        step=$((step + 1))
        case "$kind" in
        eptest)
            launcher "$v" "$(vm_of "$v")" 0 "$variant"
            # each repeat a VM of its own: a tester after another in one VM can start on pages
            # an earlier one wrote (its heaps and its deleted table's carriers in the mseg cache
            # of the scheduler it ran on), where the seed's run, like each of the model's,
            # started on fresh memory
            for k in $(seq 1 "$repeats"); do
                say "$step/$steps round $r: eptest $variant L = $x on $v, VM $k of $repeats"
                "${cmd[@]}" -pa "$tmp/$v" -run eras_ep main "$v" "$x" "$iterations" 1 "$tmp/vm.$r.$step.csv" "$variant" \
                    >"$tmp/run.log" 2>&1 </dev/null || { cat "$tmp/run.log" >&2; die "$v: eras_ep failed"; }
            done
            # the model's r10b run follows the 64-bit row
            case "$v" in r10b-2-32) continue ;; esac
            say "$step/$steps round $r: eptest $variant L = $x, the model's $(era_of "$v") rules$([ "$(set_of "$v")" = - ] || echo " with $(set_of "$v")")"
            model_eptest "$r" "$(era_of "$v")" "$variant" "$x" "$(set_of "$v")"
            ;;
        price)
            # the loops' unit prices on the VM that ran them, in a VM of its own, seconds after
            # them; a fault at this machine's price for as many faults as the lookup pass took,
            # and a carrier at this machine's price, of the heap R10B-2's lookups map for each
            # collection at the longest lengths (4L words, 32L bytes: its trace shows heap blocks
            # of 121016 words at L = 30000), at least 64 KiB
            say "$step/$steps round $r: the unit prices of eptest's loops, L = $x on $v"
            launcher "$v" "$(vm_of "$v")" 0
            fault=$("$model/experiments/account" --fault-probe "$(pass_faults "$v" "$x" ets_lookup)") ||
                die "the fault probe failed"
            carrier=$("$model/experiments/account" --carrier-probe "$((x < 2048 ? 65536 : 32 * x))") ||
                die "the carrier probe failed"
            "${cmd[@]}" -pa "$tmp/$v" -run eras_price main "$x" "$iterations" 5 "$fault" "$carrier" "$tmp/price.$v.$r.csv" \
                >"$tmp/run.log" 2>&1 </dev/null || { cat "$tmp/run.log" >&2; die "$v: eras_price failed"; }
            ;;
        ets)
            say "$step/$steps round $r: ets_test and pdict $variant N = $x on $v (+h 9999999)"
            launcher "$v" "$(vm_of "$v")" 9999999
            case "$v" in
            *@*) # a rebuilt VM runs the seed's table; its rows are its release's, variant the build
                eras_ets "$(base_of "$v")" "$x" "$tmp/b.csv" base
                awk -F, -v OFS=, -v build="$variant" '/^#/ || $1 == "vm" { print; next } { $2 = build; print }' \
                    "$tmp/b.csv" >"$tmp/vm.$r.$step.csv"
                rm -f "$tmp/b.csv"
                case " $builds_done " in
                *" $variant "*) ;;
                *) say "round $r: the model's etsbench with $(build_switch "$variant"), N = $x"
                   model_ets "$r" "$variant"; builds_done="$builds_done $variant" ;;
                esac
                continue ;;
            esac
            eras_ets "$v" "$x" "$tmp/vm.$r.$step.csv" "$variant"
            case "$v:$variant:$x:$ets_model_done" in
            r13b01-*:base:"$ets_n":0) say "round $r: the model's etsbench, N = $ets_n"; model_ets "$r"; ets_model_done=1 ;;
            esac
            ;;
        esac
    done <"$tmp/plan"
done
load1=$(load)

# The unit prices over the rounds: per VM, length and loop, each price's median (into the
# committed prices file, and per VM in the account's format for eptest --prices), and the
# model's counts at them: eptest's priced_us per pass, its lookup over the median proc pass.
prices_out="${out%.csv}-prices.csv"
echo "vm,test,payload_len,model_priced_us,model_priced_ratio" >"$tmp/model.priced.csv"
priced_vms=""
: >"$tmp/prices.all.csv"
for v in "${vms[@]}"; do
    ls "$tmp"/price."$v".*.csv >/dev/null 2>&1 || continue
    priced_vms="$priced_vms $v"
    awk "$lib"'!csv_row() { next }
        { k = csv_get("shape") "," csv_get("payload_len") "," csv_get("loop"); if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
          for (i = 4; i <= csv_nf; i++) vals[k, i] = vals[k, i] " " csv_f[i] }
        END { nc = csv_names(_csv_name, names); line = names[1]; for (i = 2; i <= nc; i++) line = line "," names[i]; print line
              for (j = 1; j <= nk; j++) { line = order[j]
                  for (i = 4; i <= nc; i++) { n = split(vals[order[j], i], a, " "); line = line "," median(a, n) }
                  print line } }' "$tmp"/price."$v".*.csv >"$tmp/prices.$v.csv"
    awk -v vm="$v" 'NR == 1 { if (!have) print "vm," $0; next } { print vm "," $0 }' have="$([ -s "$tmp/prices.all.csv" ] && echo 1 || echo 0)" \
        "$tmp/prices.$v.csv" >>"$tmp/prices.all.csv"
    for l in $lens; do
        "$model/experiments/eptest" --era "$(era_of "$v")" --len "$l" --iterations "$iterations" --repeats 1 \
            --prices "$tmp/prices.$v.csv" --csv "$tmp/mp.csv" >/dev/null 2>"$tmp/m.err" || { cat "$tmp/m.err" >&2; die "the model's eptest --prices failed"; }
        awk -v vm="$v" "$lib"'!csv_row() { next } { p[csv_get("test")] = csv_get("priced_us"); L = csv_get("payload_len") }
            END { eptest_priced_rows(vm, L, p) }' "$tmp/mp.csv" >>"$tmp/model.priced.csv"
    done
done

# The VM rows over the rounds (medians; min and max over every run), each beside the model's
# run of the same benchmark: R10B-2 (both word sizes) beside --era r10b, OTP 25's eptest beside
# --era otp25, R13B01's loops beside etsbench (-smp disable: no locks; smp: write_concurrency
# with R13B's meta-table lock, the update's two writers on two threads; pdict: put, get, and the two writers' puts, each into its own dictionary).
meta() { # each VM's own header lines, once
    local v f
    for v in "${vms[@]}"; do
        for f in "$tmp"/vm.1.*.csv; do
            grep -q "^$v," "$f" || continue
            sed -n "s/^# \(system_version\|table\): /# ${v}_\1: /p" "$f"
        done | sort -u
    done
}
mkdir -p "$(dirname "$out")"
# the kept VMs' rows, as measured; their model columns, like every row's, from this run's model
if [ ${#kept[@]} -gt 0 ]; then
    # the header line, then the kept rows (awk stops reading at the header: with pipefail, a
    # grep | head here died of SIGPIPE whenever head closed the pipe first)
    { awk '!/^#/ { print; exit }' "$out"; for k in "${kept[@]}"; do grep "^$k," "$out"; done; } >"$tmp/kept.csv"
fi
{
    echo "# experiment: the seeds' benchmarks on the seeds' own VMs (experiments/beam/eras/run.sh), beside the model"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# git: $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "# machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1) ($(nproc) online), $(uname -sr)"
    echo "# load: load average $load0 at the start, $load1 at the end ($(($(date +%s) - started)) s); times on a shared machine"
    echo "# command: experiments/beam/eras/run.sh --lens \"$lens\" --iterations $iterations --ets-n $ets_n --rounds $rounds --repeats $repeats$([ $variants -eq 1 ] && echo " --variants")"
    echo "# model: $("$model/experiments/eptest" --version 2>/dev/null | head -n 1); model_gcs: eptest's tester_gcs; etsbench --era r13b --meta-lock --bucket-locks 16 (R13B01's locks), one repeat per round"
    echo "# vms: ${vms[*]}$([ ${#kept[@]} -eq 0 ] || echo " (kept from an earlier run: ${kept[*]})")"
    meta
    # A kept VM's lines: where and when its rows were measured (the replaced file's own run, or
    # the line that file kept), then its other lines once each, less those the provenance gives.
    for k in ${kept[@]+"${kept[@]}"}; do
        if grep -q "^# ${k}_kept: " "$out"; then
            grep -m 1 "^# ${k}_kept: " "$out"
        else
            echo "# ${k}_kept: measured $(sed -n 's/^# date: //p' "$out" | head -n 1) on $(sed -n 's/^# machine: //p' "$out" | head -n 1) at git $(sed -n 's/^# git: //p' "$out" | head -n 1), load $(sed -n 's/^# load: load average //p' "$out" | head -n 1 | sed 's/; times on a shared machine$//'); its rows kept from the file this run replaced"
        fi
        awk -v k="# ${k}_" -v prov="$prov" 'BEGIN { while (prov != "" && (getline l < prov) > 0) given[l] = 1 }
            index($0, k) == 1 && index($0, k "kept: ") != 1 && !($0 in given) && !seen[$0]++' "$out"
    done
    [ -n "$prov" ] && grep '^# ' "$prov"
    echo "# eptest: the 2005 post's benchmark, reconstructed from its text (the attachment was scrubbed from the archive); gcs: the tester's own collections per pass (erlang:trace garbage_collection, an extra untimed run); ratio: ets_lookup over the median of the three proc passes, per run, median of the runs"
    echo "# ets_test: the 2009 post's loops, +h 9999999, insert/lookup/update of N keys; pdict: the same loops on the process dictionary (each benchmark in a VM of its own); ops_per_s = N / wall time, as the post (the update: per key, two writers' inserts; its model_ns_per_op is two of etsbench's per-insert figure); loop: the same dotimes over a fun that returns its argument, the emulator's part of each operation, which etsbench does not execute"
    echo "# rounds: eptest's rows are medians over every run (--repeats runs per round, each in a VM of its own; a kept VM's rows keep the protocol of the run that measured them, runs before 2026-12-05 took a round's repeats in one VM), pdict's too (runs before 2026-12-07 one a round), ets_test's over the rounds; the model's pdict rows etsbench --pdict's, --repeats runs a round (--set alloc_lock=on for R13B01 SMP: its allocators' locks), its ets_test rows one etsbench run a round (--modes none for the plain emulator, write_concurrency --set alloc_lock=on for the SMP one); min_us and max_us over every run; cpu_ms: statistics(runtime), all threads"
    echo "# faults: the VM's OS process's minor faults per pass (eptest) or loop (ets_test, pdict; /proc/self/stat read between them, outside the timed part), median; model_faults: the model's eptest faults per pass, etsbench's per loop (its threads' minor faults over the run: the update's two writers together, as on the VM); empty where not measured (rows kept from a run before faults were counted)"
    echo "# gc_words: the words the tester's collections copied per pass (the traced run), median; carriers: the segments the VM's mseg allocators mapped per pass (mseg_create calls, read by the meter), median; frag_words: the words of heap fragments the tester's collections found at their start (gc_start's mbuf_size; R13B01 collects after every BIF that left one), median"
    [ -z "$priced_vms" ] || echo "# priced: the unit prices of eptest's loops, measured in each round on the VM after its runs (experiments/beam/eras/eras_price.erl, wall time; the fault and the carrier from experiments/account --fault-probe and --carrier-probe), medians over the rounds in $(basename "$prices_out"); priced_us: the VM's counts at them (N fixed, N x 2L words, its collections at gc_minor and the words they copied at gc_word, but for its fragments' words, no more than those, at gc_frag_word, its faults, its carriers); model_priced_us: the model's eptest counts at them (eptest --prices, scenarios/account.h), model_priced_ratio its lookup over its median proc pass; VMs priced:$priced_vms"
    echo "vm,variant,benchmark,test,payload_len,iterations,median_us,min_us,max_us,ops_per_s,ratio,gcs,ns_per_op,cpu_ms,rounds,model_era,model_config,model_median_us,model_ratio,model_gcs,model_ns_per_op,faults,model_faults,gc_words,carriers,frag_words,priced_us,model_priced_us,model_priced_ratio"
    awk "$lib"'
        function med(list,    a, n, i, j, t) {
            if (list == "") return ""
            n = split(list, a, " ")
            for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
            return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        function add(arr, k, v) { if (v != "") arr[k] = (k in arr) ? arr[k] " " v : v }
        function f(fmt, x) { return x == "" ? "" : sprintf(fmt, x) }
        !csv_row() { next }
        csv_has("model_priced_us") && !csv_has("variant") {  # the model at the VM prices
            k = csv_get("vm") SUBSEP csv_get("test") SUBSEP csv_get("payload_len")
            mpu[k] = csv_get("model_priced_us"); mpr[k] = csv_get("model_priced_ratio"); next
        }
        csv_has("loop") {  # the VM unit prices
            k = csv_get("vm") SUBSEP csv_get("payload_len") SUBSEP csv_get("loop")
            pf[k] = csv_get("fixed_ns"); pw[k] = csv_get("word_ns"); pg[k] = csv_get("gc_minor_ns")
            pgw[k] = csv_get("gc_word_ns"); pft[k] = csv_get("fault_ns"); pca[k] = csv_get("carrier_ns")
            pfw[k] = csv_has("gc_frag_word_ns") ? csv_get("gc_frag_word_ns") : pgw[k]; next
        }
        csv_has("source") {
            m = csv_get("source") SUBSEP csv_get("variant") SUBSEP csv_get("test") SUBSEP csv_get("payload_len") SUBSEP csv_get("iterations")
            add(mus, m, csv_get("median_us")); add(mra, m, csv_get("ratio")); add(mgc, m, csv_get("gcs")); add(mns, m, csv_get("ns_per_op")); add(mfa, m, csv_get("faults"))
            next
        }
        {   k = csv_get("vm") SUBSEP csv_get("variant") SUBSEP csv_get("benchmark") SUBSEP csv_get("test") SUBSEP csv_get("payload_len") SUBSEP csv_get("iterations")
            if (!(k in nr)) order[++nk] = k
            add(us, k, csv_get("median_us")); if (csv_has("ratio")) add(ra, k, csv_get("ratio")); add(gc, k, csv_get("gcs")); add(op, k, csv_get("ops_per_s"))
            if (csv_has("faults")) add(fa, k, csv_get("faults"))
            if (csv_has("gc_words")) add(gw, k, csv_get("gc_words"))
            if (csv_has("carriers")) add(ca, k, csv_get("carriers"))
            if (csv_has("frag_words")) add(fw, k, csv_get("frag_words"))
            if (csv_has("priced_us"))  # a kept row: its priced columns as measured
                kept_priced[k] = csv_get("priced_us") "," csv_get("model_priced_us") "," csv_get("model_priced_ratio")
            if (csv_has("ns_per_op")) { add(ns, k, csv_get("ns_per_op")); add(cp, k, csv_get("cpu_ms")) }
            if (!(k in lo) || csv_get("min_us") + 0 < lo[k]) lo[k] = csv_get("min_us") + 0
            if (!(k in hi) || csv_get("max_us") + 0 > hi[k]) hi[k] = csv_get("max_us") + 0
            # a round file holds a row per repeat, a kept row the median of its rounds
            if (!((k, FILENAME) in inround)) nr[k] += csv_has("rounds") ? csv_get("rounds") : 1
            inround[k, FILENAME] = 1
            if (csv_has("model_era"))  # a kept row: its model columns, where this run has no such model run
                kept_model[k] = csv_get("model_era") "," csv_get("model_config") "," csv_get("model_median_us") "," \
                    csv_get("model_ratio") "," csv_get("model_gcs") "," csv_get("model_ns_per_op")
            if (csv_has("model_faults")) kept_mfa[k] = csv_get("model_faults")
        }
        END {
            nb = split(builds, bl, " ")  # BUILD=FIELD=VALUE: each rebuilt VM and the model switch
            for (i = 1; i <= nb; i++) { e = index(bl[i], "="); bsw[substr(bl[i], 1, e - 1)] = substr(bl[i], e + 1) }
            for (i = 1; i <= nk; i++) {
                k = order[i]; split(k, p, SUBSEP); vm = p[1]; va = p[2]; b = p[3]; t = p[4]; L = p[5]; n = p[6]
                era = ""; cfg = ""; mt = t; lk = ""
                if (b == "eptest") { era = (vm == "otp25") ? "otp25" : (vm ~ /^r10b/) ? "r10b" : "r13b"; cfg = "eptest --era " era
                                     if (vm == "r13b01-smp") cfg = cfg " --set send_path=heap_or_frag" }  # set_of
                else if (vm ~ /^r13b01/ && t != "loop") {  # the emulator loop: measured on the VM alone
                    thr = (vm == "r13b01-smp" && t == "update") ? 2 : 1
                    # the SMP emulator: its allocators lock each call (heaps/policy.c alloc_lock)
                    if (vm == "r13b01-smp") lk = " --set alloc_lock=on"
                    if (b == "ets_test") cfg = "etsbench " (vm == "r13b01-plain" ? "none" : "write_concurrency") "/" thr
                    else { cfg = "etsbench pdict/" thr
                           mt = (t == "lookup") ? "get" : (t == "update") ? "update" : "put" }
                    era = "r13b"
                }
                mk = cfg lk SUBSEP va SUBSEP mt SUBSEP L SUBSEP n
                # the update: the VM is timed per key (N / wall time as the seed, two writers
                # each inserting every key), etsbench per insert (2N of them): two per key
                pk = (b != "eptest" && t == "update") ? 2 : 1
                # a rebuilt VM: the model with the same change (build_switch), named in its config
                sw = (b != "eptest" && (va in bsw)) ? " --set " bsw[va] : ""
                if (mk in mus)
                    model = era "," cfg (cfg ~ /write_conc/ ? " --meta-lock --bucket-locks 16" : "") lk sw "," f("%.1f", pk * med(mus[mk])) "," \
                        f("%.4f", med(mra[mk])) "," f("%d", med(mgc[mk])) "," f("%.1f", pk * med(mns[mk]))
                else
                    model = (k in kept_model) ? kept_model[k] : ",,,,,"
                mf = (mk in mfa) ? f("%d", med(mfa[mk])) : (k in kept_mfa) ? kept_mfa[k] : ""
                # the VM counts at the VM prices, of the proc passes and the lookup pass (as
                # scenarios/account.c tc_account_price, every collection a minor; of the words
                # collected, the traced fragments words no more than the words copied, at
                # their own price)
                pk2 = vm SUBSEP L SUBSEP (t == "ets_lookup" ? "lookup" : "rt")
                priced = ",,"
                if (va == "base" && (pk2 in pf) && (t ~ /^proc/ || t == "ets_lookup")) {
                    words = med(gw[k]); frag = (k in fw) ? med(fw[k]) : 0; if (frag > words) frag = words
                    priced = f("%.1f", (n * pf[pk2] + n * 2 * L * pw[pk2] + med(gc[k]) * pg[pk2] + (words - frag) * pgw[pk2] + \
                                        frag * pfw[pk2] + med(fa[k]) * pft[pk2] + med(ca[k]) * pca[pk2]) / 1000) "," mpu[vm, t, L] "," mpr[vm, t, L]
                } else if (k in kept_priced) priced = kept_priced[k]
                printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d,%s,%s,%s,%s,%s,%s,%s\n", vm, va, b, t, L, n,
                    f("%.1f", med(us[k])), lo[k], hi[k], f("%.1f", med(op[k])), f("%.4f", med(ra[k])), f("%d", med(gc[k])),
                    f("%.1f", med(ns[k])), f("%.1f", med(cp[k])), nr[k], model, f("%d", med(fa[k])), mf, f("%d", med(gw[k])),
                    f("%d", med(ca[k])), (k in fw) ? f("%d", med(fw[k])) : "", priced
            }
        }' builds="$(for v in "${vms[@]}"; do case "$v" in *@*) printf '%s=%s ' "${v#*@}" "$(build_switch "${v#*@}")" ;; esac; done)" \
        $([ -s "$tmp/prices.all.csv" ] && echo "$tmp/model.priced.csv" "$tmp/prices.all.csv") "$raw_model" "$tmp"/vm.*.csv ${kept[@]+"$tmp/kept.csv"}
} >"$out.tmp"
mv "$out.tmp" "$out"
if [ -s "$tmp/prices.all.csv" ]; then
    {
        echo "# experiment: the unit prices of the 2005 benchmark's loops on the seeds' own VMs (experiments/beam/eras/eras_price.erl, run by experiments/beam/eras/run.sh after each VM's eptest runs, each round), medians over the rounds"
        grep -E '^# (date|git|machine|load|command): ' "$out"
        echo "# units: ns of wall time (erlang:now(); the VMs priced run the benchmark on one scheduler thread): fixed per operation on [], word per word of Data copied, gc_minor per collection of the loop's heap with nothing live (R10B-2's lookup row: and the yield its fragments force), gc_major the same with Data live, gc_word per word copied, gc_frag_word per word of a lookup result collected out of its heap fragment right after the BIF (R13B01; elsewhere gc_word), fault per first-touch fault and carrier per carrier mapped, first written and unmapped less its fault (this machine's probes, experiments/account --fault-probe, --carrier-probe: a carrier of 32L bytes, at least 64 KiB); the account's other units are 0 (eptest --prices reads this format, less the vm column)"
        cat "$tmp/prices.all.csv"
    } >"$prices_out.tmp"
    mv "$prices_out.tmp" "$prices_out"
    say "wrote $prices_out"
fi
say "wrote $out ($(grep -vc '^#' "$out") lines)"
