#!/usr/bin/env bash
# experiments/beam/eras/run.sh — the seeds' benchmarks on the seeds' own VMs, beside the model.
#
# usage: experiments/beam/eras/run.sh [OPTIONS] NAME=ROOT ...
#   NAME=ROOT   an already-built VM (this script builds nothing):
#                 r10b-2-32, r10b-2-64   R10B-2 (erts 5.4.3), 32- and 64-bit words: ROOT is the
#                                        source tree it was built in (ROOT/bin/<target>/beam,
#                                        ROOT/bin/<target>/inet_gethost, ROOT/bootstrap/)
#                 r13b01-plain, r13b01-smp   R13B01 (erts 5.7.2): ROOT holds bootstrap/bin/erl
#                                        and the tree's bin/<target>/beam and beam.smp
#               OTP 25 (otp25) is the installed erl, run whenever it is on PATH.
#   --lens "L ..."   eptest payload lengths (default "10 100 1000 3000 10000 30000")
#   --iterations N   eptest calls per pass (default 1000, the seed's)
#   --ets-n N        ets_test / pdict keys (default 1000000, the seed's)
#   --rounds K       rounds; in each, every VM run is followed by the model's run of the
#                    same benchmark, so the pairs run seconds apart (default 3)
#   --repeats R      fresh testers per VM run (default 3; ets_test and pdict: 1 per round)
#   --model DIR      the model's build (DIR/experiments/eptest, etsbench; default build/release)
#   --provenance F   '# key: value' lines about the VMs' builds (source commit, fixes and
#                    their sha256, configure flags, CFLAGS, beam_emu.c's flags), copied into
#                    the output's metadata
#   --out FILE       the CSV (default report/data/eras.csv)
#   --quick          lengths 100 1000, 100 calls, 20000 keys, 1 round, 1 repeat
#   --dry-run        check the arguments and the VMs, print what would run, run nothing
#
# eptest (experiments/beam/eras/eras_ep.erl, the 2005 benchmark reconstructed from the post's
# text) runs on R10B-2 and OTP 25, beside the model's `eptest --era r10b` (R10B-2 rows) and
# `--era otp25`; ets_test and pdict (eras_ets.erl, the 2009 post's loops) run on R13B01 and
# OTP 25 with +h 9999999, beside the model's etsbench. Each VM compiles the Erlang sources with
# its own compiler. Never run by CI or the default ./run report: `./run report --eras NAME=ROOT`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)

die() { printf 'eras: %s\n' "$*" >&2; exit 2; }
need_vms() {
    die "no VM given: pass NAME=ROOT for r10b-2-32 and r10b-2-64 (R10B-2, erts 5.4.3) and r13b01-plain and r13b01-smp (R13B01, erts 5.7.2), each built from the public source (github.com/mfoemmel/erlang-otp commits e4bd6dec3 and 7b734f235, or otp_src_R10B-2.tar.gz and otp_src_R13B01.tar.gz); otp25 is the installed erl"
}

lens="10 100 1000 3000 10000 30000" iterations=1000 ets_n=1000000 rounds=3 repeats=3
model="$top/build/release" prov="" out="$top/report/data/eras.csv" dry=0
vms=() roots=()
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
    -h | --help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *=*)
        name=${1%%=*} root=${1#*=}
        case "$name" in
        r10b-2-32 | r10b-2-64 | r13b01-plain | r13b01-smp) ;;
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
[ ${#vms[@]} -gt 0 ] || need_vms
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

# launcher NAME ROOT HEAP: the command that starts NAME with a min heap of HEAP words (0: the
# default), without a shell, -noshell; arguments for init follow it.
launcher() {
    local name=$1 root=$2 heap=$3 bin
    case "$name" in
    r10b-*)
        bin=$(ls -d "$root"/bin/*-linux-gnu 2>/dev/null | head -n 1)
        [ -n "$bin" ] && [ -x "$bin/beam" ] || die "$name: no $root/bin/<target>/beam (the tree's emulator)"
        [ -x "$bin/inet_gethost" ] || die "$name: no $bin/inet_gethost (the kernel needs it to boot)"
        [ -r "$root/bootstrap/bin/start_clean.boot" ] || die "$name: no $root/bootstrap/bin/start_clean.boot"
        # R10B's beam takes emulator flags with '-' before the first '--' (erl would turn +h into -h)
        cmd=(env BINDIR="$bin" EMU=beam PROGNAME=erl ROOTDIR="$root/bootstrap" PATH="$bin:$PATH" "$bin/beam")
        [ "$heap" -gt 0 ] && cmd+=(-h "$heap")
        cmd+=(-- -root "$root/bootstrap" -progname erl -- -home "${HOME:-/tmp}" -boot "$root/bootstrap/bin/start_clean" -noshell)
        ;;
    r13b01-*)
        [ -x "$root/bootstrap/bin/erl" ] || die "$name: no $root/bootstrap/bin/erl (the tree's launcher)"
        cmd=("$root/bootstrap/bin/erl")
        case "$name" in r13b01-plain) cmd+=(-smp disable) ;; *) cmd+=(-smp enable +S 2) ;; esac
        [ "$heap" -gt 0 ] && cmd+=(+h "$heap")
        cmd+=(-noshell)
        ;;
    otp25)
        cmd=(erl +S 2:2)
        [ "$heap" -gt 0 ] && cmd+=(+h "$heap")
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
        R = [compile:file(F, [{outdir, "'"$dir"'"}, report_errors]) || F <- ["eras_ep.erl", "eras_ets.erl"]],
        io:format("~s ~w ~w~n", [erlang:system_info(version), erlang:system_info(wordsize), R]),
        halt().' 2>&1 | tail -n 1) || die "$name: the VM did not start ($got)"
    case "$got" in
    *"{ok,eras_ep},{ok,eras_ets}"*) ;;
    *) die "$name: compiling the benchmarks failed: $got" ;;
    esac
    set -- $got
    [ -z "$want_v" ] || [ "$1" = "$want_v" ] || die "$name: erts $1, not $want_v"
    [ "$2" = "$want_w" ] || die "$name: word size $2 bytes, not $want_w"
    checked="erts $1, $2-byte words"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/termcopy-eras.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export ERL_CRASH_DUMP="$tmp/erl_crash.dump"
for i in "${!vms[@]}"; do
    check_and_compile "${vms[$i]}" "${roots[$i]}" "$tmp/${vms[$i]}"
    echo "eras: ${vms[$i]}: $checked, the benchmarks compiled" >&2
done
plan() {
    local v
    for v in "${vms[@]}"; do
        case "$v" in
        r10b-*) echo "eptest $v" ;;
        r13b01-*) echo "ets $v" ;;
        otp25) echo "eptest otp25"; echo "ets otp25" ;;
        esac
    done
}
if [ $dry -eq 1 ]; then
    echo "rounds $rounds, repeats $repeats; eptest L = $lens, N = $iterations; ets_test N = $ets_n"
    plan
    exit 0
fi

load() { cut -d' ' -f1-3 /proc/loadavg; }
started=$(date +%s) load0=$(load)
say() { printf 'eras: [%4ss] %s\n' "$(($(date +%s) - started))" "$*" >&2; }
raw_vm="$tmp/vm.csv" raw_model="$tmp/model.csv"
echo "round,source,benchmark,test,payload_len,iterations,median_us,min_us,max_us,ratio,gcs,ops_per_s,ns_per_op,cpu_ms" >"$raw_model"
lib="$(cat "$top/report/csv.awk") BEGIN { csv_who = \"eras\" }"
vm_of() { local i; for i in "${!vms[@]}"; do [ "${vms[$i]}" != "$1" ] || { echo "${roots[$i]}"; return; }; done; }

# model_eptest ROUND ERA L: the model's eptest, its round's rows into raw_model
model_eptest() {
    "$model/experiments/eptest" --era "$2" --len "$3" --iterations "$iterations" --repeats "$repeats" \
        --csv "$tmp/m.csv" >/dev/null 2>"$tmp/m.err" || { cat "$tmp/m.err" >&2; die "the model's eptest failed"; }
    awk -v round="$1" -v src="model-$2" "$lib"'
        !csv_row() { next }
        { t = csv_get("test"); us[t] = csv_get("median_us"); g[t] = csv_get("tester_gcs"); L = csv_get("payload_len"); n = csv_get("iterations") }
        END {
            a = us["proc1"]; b = us["proc2"]; c = us["proc3"]
            m = (a > b) ? ((b > c) ? b : (a > c ? c : a)) : ((a > c) ? a : (b > c ? c : b))
            split("proc1 proc2 proc3 ets_insert ets_overwrite ets_lookup empty", ts, " ")
            for (i = 1; i <= 7; i++) {
                t = ts[i]
                printf "%s,%s,eptest,%s,%s,%s,%s,,,%s,%s,,,\n", round, src, t, L, n, us[t], \
                    (t == "ets_lookup" && m > 0) ? sprintf("%.4f", us[t] / m) : "", g[t]
            }
        }' "$tmp/m.csv" >>"$raw_model"
}

# model_ets ROUND: the model's etsbench (one repeat), its rows into raw_model
model_ets() {
    "$model/experiments/etsbench" --iterations "$ets_n" --repeats 1 --meta-lock --csv "$tmp/e.csv" \
        >/dev/null 2>"$tmp/e.err" || { cat "$tmp/e.err" >&2; die "the model's etsbench failed"; }
    awk -v round="$1" -v n="$ets_n" "$lib"'
        !csv_row() { next }
        { printf "%s,%s/%s,etsbench,%s,0,%s,%.1f,,,,,%s,%s,\n", round, csv_get("lock_mode"), csv_get("threads"),
              csv_get("op"), n, csv_get("ns_per_op") * n / 1000, csv_get("ops_per_s"), csv_get("ns_per_op") }' \
        "$tmp/e.csv" >>"$raw_model"
}

for r in $(seq 1 "$rounds"); do
    for l in $lens; do
        for v in "${vms[@]}"; do
            case "$v" in r10b-* | otp25) ;; *) continue ;; esac
            say "round $r/$rounds: eptest L = $l on $v"
            launcher "$v" "$(vm_of "$v")" 0
            "${cmd[@]}" -pa "$tmp/$v" -run eras_ep main "$v" "$l" "$iterations" "$repeats" "$tmp/$v.ep.$r.csv" \
                >"$tmp/run.log" 2>&1 || { cat "$tmp/run.log" >&2; die "$v: eras_ep failed"; }
        done
        for era in r10b otp25; do
            case "$era: ${vms[*]} " in "r10b:"*" r10b-2-"* | "otp25:"*" otp25 "*) ;; *) continue ;; esac
            say "round $r/$rounds: the model's eptest --era $era --len $l"
            model_eptest "$r" "$era" "$l"
        done
    done
    for v in "${vms[@]}"; do
        case "$v" in r13b01-* | otp25) ;; *) continue ;; esac
        say "round $r/$rounds: ets_test and pdict, N = $ets_n, on $v (+h 9999999)"
        launcher "$v" "$(vm_of "$v")" 9999999
        "${cmd[@]}" -pa "$tmp/$v" -run eras_ets main "$v" "$ets_n" 1 "$tmp/$v.ets.$r.csv" \
            >"$tmp/run.log" 2>&1 || { cat "$tmp/run.log" >&2; die "$v: eras_ets failed"; }
    done
    case " ${vms[*]} " in
    *" r13b01-"*) say "round $r/$rounds: the model's etsbench, N = $ets_n"; model_ets "$r" ;;
    esac
done
load1=$(load)

# Every VM round's rows, with the round and the columns both benchmarks share.
{
    echo "round,vm,benchmark,test,payload_len,iterations,median_us,min_us,max_us,ops_per_s,ratio,gcs,ns_per_op,cpu_ms"
    for f in "$tmp"/*.ep.*.csv "$tmp"/*.ets.*.csv; do
        [ -f "$f" ] || continue
        r=${f%.csv}; r=${r##*.}
        awk -v round="$r" "$lib"'
            !csv_row() { next }
            { printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", round, csv_get("vm"), csv_get("benchmark"),
                  csv_get("test"), csv_get("payload_len"), csv_get("iterations"), csv_get("median_us"),
                  csv_get("min_us"), csv_get("max_us"), csv_get("ops_per_s"),
                  csv_has("ratio") ? csv_get("ratio") : "", csv_get("gcs"),
                  csv_has("ns_per_op") ? csv_get("ns_per_op") : "", csv_has("cpu_ms") ? csv_get("cpu_ms") : "" }' "$f"
    done
} >"$raw_vm"

# The VM rows over the rounds (medians; min and max over every run), each beside the model's
# run of the same benchmark: R10B-2 beside --era r10b, OTP 25's eptest beside --era otp25,
# R13B01's loops beside etsbench (-smp disable: no locks; smp: write_concurrency with R13B's
# meta-table lock, the update's two writers on two threads; pdict: put, get, put).
meta() { # the VM's own header lines, once per VM
    local v f
    for v in "${vms[@]}"; do
        f=$(ls "$tmp/$v".*.1.csv 2>/dev/null | head -n 1)
        [ -n "$f" ] || continue
        sed -n "s/^# \(system_version\|table\): /# ${v}_\1: /p" "$f" | sort -u
    done
}
mkdir -p "$(dirname "$out")"
{
    echo "# experiment: the seeds' benchmarks on the seeds' own VMs (experiments/beam/eras/run.sh), beside the model"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# git: $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "# machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1) ($(nproc) online), $(uname -sr)"
    echo "# load: load average $load0 at the start, $load1 at the end ($(($(date +%s) - started)) s); times on a shared machine"
    echo "# command: experiments/beam/eras/run.sh --lens \"$lens\" --iterations $iterations --ets-n $ets_n --rounds $rounds --repeats $repeats"
    echo "# model: $("$model/experiments/eptest" --version 2>/dev/null | head -n 1); eptest tester_gcs, etsbench --meta-lock"
    echo "# vms: ${vms[*]}"
    meta
    [ -n "$prov" ] && grep '^# ' "$prov"
    echo "# eptest: 2005 post, reconstructed from its text (the attachment was scrubbed from the archive); gcs: the tester's own collections per pass (erlang:trace garbage_collection, an extra untimed run); ratio: ets_lookup over the median of the three proc passes, per run, median of the runs"
    echo "# ets_test: the 2009 post's loops, +h 9999999, insert/lookup/update of N keys; pdict: the same loops on the process dictionary; ops_per_s = N / wall time as the post"
    echo "# rounds: medians over the rounds of each round's median; min_us and max_us over every run"
    echo "vm,benchmark,test,payload_len,iterations,median_us,min_us,max_us,ops_per_s,ratio,gcs,ns_per_op,cpu_ms,rounds,model_era,model_config,model_median_us,model_ratio,model_gcs,model_ns_per_op"
    awk -v rounds="$rounds" "$lib"'
        function med(list,    a, n, i, j, t) {
            n = split(list, a, " "); if (n == 0 || list == "") return ""
            for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
            return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        function add(arr, k, v) { if (v != "") arr[k] = (k in arr) ? arr[k] " " v : v }
        function f4(x) { return x == "" ? "" : sprintf("%.4f", x) }
        function f1(x) { return x == "" ? "" : sprintf("%.1f", x) }
        !csv_row() { next }
        csv_file == 1 {
            k = csv_get("vm") SUBSEP csv_get("benchmark") SUBSEP csv_get("test") SUBSEP csv_get("payload_len")
            if (!(k in seen)) { seen[k] = 1; order[++nk] = k; its[k] = csv_get("iterations") }
            add(us, k, csv_get("median_us")); add(ra, k, csv_get("ratio")); add(gc, k, csv_get("gcs"))
            add(ns, k, csv_get("ns_per_op")); add(cp, k, csv_get("cpu_ms")); add(op, k, csv_get("ops_per_s"))
            if (!(k in lo) || csv_get("min_us") + 0 < lo[k]) lo[k] = csv_get("min_us") + 0
            if (!(k in hi) || csv_get("max_us") + 0 > hi[k]) hi[k] = csv_get("max_us") + 0
            nr[k]++
            next
        }
        {   m = csv_get("source") SUBSEP csv_get("test") SUBSEP csv_get("payload_len")
            add(mus, m, csv_get("median_us")); add(mra, m, csv_get("ratio")); add(mgc, m, csv_get("gcs")); add(mns, m, csv_get("ns_per_op")) }
        END {
            for (i = 1; i <= nk; i++) {
                k = order[i]; split(k, p, SUBSEP); vm = p[1]; b = p[2]; t = p[3]; L = p[4]
                era = ""; cfg = ""; mt = t
                if (b == "eptest") { era = (vm ~ /^r10b/) ? "r10b" : (vm == "otp25" ? "otp25" : ""); cfg = era == "" ? "" : "eptest --era " era; src = "model-" era }
                else if (vm ~ /^r13b01/) {
                    thr = (vm == "r13b01-smp" && t == "update") ? 2 : 1
                    if (b == "ets_test") src = (vm == "r13b01-plain" ? "none" : "write_concurrency") "/" thr
                    else { src = "pdict/" thr; mt = (t == "lookup") ? "get" : "put" }
                    era = "otp25"; cfg = "etsbench " src (src ~ /^write/ ? " --meta-lock" : "")
                }
                mk = src SUBSEP mt SUBSEP L
                mm = (cfg != "" && (mk in mus)) ? med(mus[mk]) : ""
                printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d,%s,%s,%s,%s,%s,%s\n", vm, b, t, L, its[k],
                    f1(med(us[k])), lo[k], hi[k], f4(med(op[k])), f4(med(ra[k])), med(gc[k]) == "" ? "" : sprintf("%d", med(gc[k])),
                    f4(med(ns[k])), f1(med(cp[k])), nr[k], era, cfg, f1(mm),
                    (cfg != "" && (mk in mra)) ? f4(med(mra[mk])) : "",
                    (cfg != "" && (mk in mgc) && mgc[mk] != "") ? sprintf("%d", med(mgc[mk])) : "",
                    (cfg != "" && (mk in mns)) ? f4(med(mns[mk])) : ""
            }
        }' "$raw_vm" "$raw_model"
} >"$out.tmp"
mv "$out.tmp" "$out"
say "wrote $out ($(grep -vc '^#' "$out") lines)"
