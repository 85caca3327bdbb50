#!/usr/bin/env bash
# The interventions on the real VM: each variant of the installed VM (build.sh) runs the
# VM's eptest on lists of integers, alternated with the model's matching ablation, and the
# GC trace of the 7.2 loop; one CSV row per variant and length.
#
# usage: experiments/beam/interventions/run.sh [--rounds R] [--repeats K] [--iterations N]
#                 [--lens "L1 L2 ..."] [--variants "V1 V2 ..."] [--model BUILD_DIR] [OUTPUT_CSV]
#   OUTPUT_CSV   default report/data/vm-interventions.csv; every round's rows go beside it
#                (OUTPUT-rounds.csv: side,round,variant or ablation,payload_len,... )
#   --rounds R   rounds over all lengths and variants (default 5); per round and length the
#                model's ablate runs once (every switch), then each VM variant in turn
#   --repeats K  fresh testers per VM run, medians (default 3)
#   --model-repeats K  runs per ablation on the model side (default 1: its counts do not vary)
#   --iterations N  calls per pass (default 1000)
#   --lens       payload lengths (default "1000 3000 4250 4500 10000 30000": the issue's four
#                and the two sides of a segment-cache band edge)
#   --variants   default "shipped rebuilt emu word_gc_test no_long_gc_delay mseg_no_cache
#                shipped_mcs0"; shipped is the installed /usr/lib/erlang, shipped_mcs0 the
#                installed VM with +MMmcs 0 (the runtime flag beside the mseg_no_cache patch)
#   --model DIR  the model's release build (default build/release, configured and built here)
#
# Each VM variant is paired with the model's ablation of the same mechanism (ablate's rows):
#   shipped, rebuilt -> baseline; word_gc_test, emu -> word_gc_test (the interpreter uses the
#   C macro's word test); no_long_gc_delay -> no_long_gc_delay; mseg_no_cache, shipped_mcs0
#   -> fresh_pages. Ratio = lookup / proc, proc the median of the three proc passes (as
#   fidelity.sh), per round; the CSV has the median of the rounds' ratios and counts. Takes
#   about 8 min on the shared 2-core machine once the emulators are built (build.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
rounds=5 repeats=3 mrepeats=1 iterations=1000 lens="1000 3000 4250 4500 10000 30000"
variants="shipped rebuilt emu word_gc_test no_long_gc_delay mseg_no_cache shipped_mcs0"
model="$root/build/release" out="$root/report/data/vm-interventions.csv"
while [ $# -gt 0 ]; do
    case "$1" in
    --rounds) rounds="${2:?}"; shift ;;
    --repeats) repeats="${2:?}"; shift ;;
    --model-repeats) mrepeats="${2:?}"; shift ;;
    --iterations) iterations="${2:?}"; shift ;;
    --lens) lens="${2:?}"; shift ;;
    --variants) variants="${2:?}"; shift ;;
    --model) model="${2:?}"; shift ;;
    --help|-h) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) out="$1" ;;
    esac
    shift
done
say() { echo "interventions: $*" >&2; }
die() { echo "interventions: $*" >&2; exit 1; }
command -v erl >/dev/null && command -v erlc >/dev/null || die "erl not found: apt-get install erlang-nox"
started=$SECONDS

# The model.
say "building the model ($model)"
cmake -S "$root" -B "$model" -DCMAKE_BUILD_TYPE=Release -DTC_BUILD_TESTS=OFF -DTC_DEBUG_LEVEL=0 >"$model.configure.log" 2>&1 ||
    die "cmake configure failed (see $model.configure.log)"
cmake --build "$model" -j2 >"$model.build.log" 2>&1 || die "the model build failed (see $model.build.log)"
ablate="$model/experiments/ablate"

# The VM variants: name, root, flavor, extra emulator flags, model ablation.
declare -A vroot vflavor vflags vmodel vkey vsecs
built=()
for v in $variants; do
    case "$v" in shipped|shipped_mcs0) ;; *) built+=("$v") ;; esac
done
if [ ${#built[@]} -gt 0 ]; then
    say "building the VM variants: ${built[*]}"
    lines=$("$here/build.sh" "${built[@]}") || die "build.sh failed"
    while read -r name r fl key secs; do
        vroot[$name]=$r vflavor[$name]=$fl vkey[$name]=$key vsecs[$name]=$secs
    done <<<"$lines"
fi
for v in $variants; do
    case "$v" in
    shipped) vroot[$v]=/usr/lib/erlang vflavor[$v]=jit vkey[$v]=- vsecs[$v]=0 ;;
    shipped_mcs0) vroot[$v]=/usr/lib/erlang vflavor[$v]=jit vflags[$v]="+MMmcs 0" vkey[$v]=- vsecs[$v]=0 ;;
    esac
    [ -n "${vroot[$v]:-}" ] || die "no root for variant $v"
    [ "${vflavor[$v]}" = emu ] && vflags[$v]="-emu_flavor emu"
    case "$v" in
    shipped|rebuilt) vmodel[$v]=baseline ;;
    emu|word_gc_test) vmodel[$v]=word_gc_test ;;
    no_long_gc_delay) vmodel[$v]=no_long_gc_delay ;;
    mseg_no_cache|shipped_mcs0) vmodel[$v]=fresh_pages ;;
    *) vmodel[$v]=baseline ;;
    esac
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/termcopy-interventions.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
export ERL_CRASH_DUMP="$tmp/erl_crash.dump"
erlc -o "$tmp" "$here/../eptest.erl" "$here/../gctrace.erl" || die "erlc failed"
base="+S 2:2"

# vmrow ROUND VARIANT CSV: round,variant,len,proc_us,lookup_us,ratio,gcs,faults,carriers from
# one VM eptest CSV (proc = the median of proc1..3, as fidelity.sh).
vmrow() {
    awk -F, -v round="$1" -v v="$2" '
        /^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        $c["test"] ~ /^proc[123]$/ { p[++n] = $c["median_us"] + 0 }
        $c["test"] == "ets_lookup" { l = $c["median_us"] + 0; g = $c["gcs"]; f = $c["faults"]; m = $c["carriers_mapped"]; len = $c["payload_len"] }
        END {
            if (n != 3 || l == "") { print "interventions: incomplete eptest output" > "/dev/stderr"; exit 1 }
            for (i = 2; i <= 3; i++) { t = p[i]; for (j = i - 1; j >= 1 && p[j] > t; j--) p[j + 1] = p[j]; p[j + 1] = t }
            printf "%d,%s,%d,%.1f,%.1f,%.4f,%s,%s,%s\n", round, v, len, p[2], l, l / p[2], g, f, m
        }' "$3"
}

: >"$tmp/vm.rows"; : >"$tmp/model.rows"; : >"$tmp/trace.rows"; : >"$tmp/load"
nlens=$(echo $lens | wc -w); nvar=$(echo $variants | wc -w)
k=0 total=$((rounds * nlens))
for r in $(seq 1 "$rounds"); do
    for l in $lens; do
        k=$((k + 1))
        say "round $r of $rounds, L = $l ($k of $total; load $(cut -d' ' -f1 /proc/loadavg); $((SECONDS - started)) s)"
        cut -d' ' -f1 /proc/loadavg >>"$tmp/load"
        "$ablate" --era otp25 --len "$l" --iterations "$iterations" --repeats "$mrepeats" --csv "$tmp/m.csv" >/dev/null 2>"$tmp/m.err" ||
            { cat "$tmp/m.err" >&2; die "ablate failed at L = $l"; }
        awk -F, -v round="$r" '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
            { printf "%d,%s,%s,%s,%s,%s,%s,%s,%s\n", round, $c["ablation"], $c["payload_len"], $c["proc_us"], $c["lookup_us"],
                     $c["ratio"], $c["lookup_gcs"], $c["lookup_faults"], $c["lookup_carriers_mapped"] }' "$tmp/m.csv" >>"$tmp/model.rows"
        for v in $variants; do
            flags="$base ${vflags[$v]:-}"
            # shellcheck disable=SC2086 # flags are words by design
            "${vroot[$v]}/bin/erl" -noshell $flags -pa "$tmp" -s eptest main -extra --flags "-noshell $flags" \
                --len "$l" --iterations "$iterations" --repeats "$repeats" --csv "$tmp/v.csv" >/dev/null 2>"$tmp/v.err" ||
                { cat "$tmp/v.err" >&2; die "the VM's eptest failed: $v at L = $l"; }
            vmrow "$r" "$v" "$tmp/v.csv" >>"$tmp/vm.rows" || die "bad eptest output: $v at L = $l"
            if [ "$r" -eq 1 ]; then
                # The 7.2 loop in a fresh process: its own GCs and mseg_alloc's counters.
                # shellcheck disable=SC2086
                "${vroot[$v]}/bin/erl" -noshell $flags -pa "$tmp" -s gctrace main -extra --len "$l" --lookups "$iterations" --summary \
                    2>/dev/null | awk -F, -v v="$v" '$1 == "summary" { print v "," $0 }' >>"$tmp/trace.rows"
            fi
        done
    done
done
say "all runs done in $((SECONDS - started)) s; writing $out"

# One row per variant and length: medians over the rounds.
agg='
function med(s,    a, n, i, j, t) { n = split(s, a, " ")
    for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
FILENAME ~ /model.rows$/ { k = $2 SUBSEP $3; for (i = 4; i <= 9; i++) M[k, i] = M[k, i] " " $i; next }
FILENAME ~ /trace.rows$/ { T[$1, $3] = $5 "," $8 "," $10 "," $13; next }
FILENAME ~ /map$/ { model[$1] = $2; flags[$1] = $3; next }
{ k = $2 SUBSEP $3; if (!(k in seen)) { seen[k] = 1; order[++n] = k }; for (i = 4; i <= 9; i++) V[k, i] = V[k, i] " " $i }
END {
    for (o = 1; o <= n; o++) {
        k = order[o]; split(k, kk, SUBSEP); v = kk[1]; l = kk[2]; m = model[v] SUBSEP l
        tr = (v SUBSEP l) in T ? T[v, l] : ",,,"
        printf "%s,%s,%.3f,%s,%s,%s,%.3f,%s,%s,%s,%s,%s,%.0f,%.0f,%.0f,%.0f,%s,%d\n", v, l,
            med(V[k, 6]), med(V[k, 7]), med(V[k, 8]), med(V[k, 9]),
            med(M[m, 6]), med(M[m, 7]), med(M[m, 8]), med(M[m, 9]),
            model[v], flags[v], med(V[k, 4]), med(V[k, 5]), med(M[m, 4]), med(M[m, 5]), tr, split(V[k, 6], junk, " ")
    }
}'
for v in $variants; do echo "$v,${vmodel[$v]},${vflags[$v]:-}"; done | sed 's/,$/,-/' >"$tmp/map"
{
    echo "# experiment: interventions on the real VM (experiments/beam/interventions/run.sh): each variant's eptest (ints, +S 2:2) alternated with the model's matching ablation"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# git: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "# source_package: erlang $(dpkg-query -W -f='${Version}' erlang-base 2>/dev/null) (apt-get source; Debian's patches applied by dpkg-source -x)"
    echo "# installed_vm: erlang-base $(dpkg-query -W -f='${Version}' erlang-base 2>/dev/null), $(cd /usr/lib/erlang && ls -d erts-*), OTP $(erl -noshell -eval 'io:put_chars(erlang:system_info(otp_release)), halt().')"
    for p in "$here"/patches/*.patch; do
        echo "# patch: $(basename "$p") sha256 $(sha256sum "$p" | cut -d' ' -f1)"
    done
    echo "# configure: $(cat "$root/build/vm-src/configure.flags" 2>/dev/null || echo 'n/a (no variant built)')"
    echo "# make: make -C erts/emulator FLAVOR=jit|emu TYPE=opt GEN_OPT_FLGS='-O2 -fno-strict-aliasing' (the emulator only)"
    for v in $variants; do
        echo "# variant: $v: root ${vroot[$v]#$root/}, flavor ${vflavor[$v]}, flags '$base ${vflags[$v]:-}', model ablation ${vmodel[$v]}, emulator key ${vkey[$v]}, build ${vsecs[$v]} s"
    done
    echo "# lens: $lens"
    echo "# runs: $rounds rounds; per round and length ablate --era otp25 once, then each variant; $iterations calls per pass, $repeats fresh testers per VM run, $mrepeats run(s) per model ablation; values are medians over the rounds"
    echo "# ratio: ets_lookup / median(proc1, proc2, proc3) per round (VM: eptest.erl medians over the testers; model: ablate's proc and lookup medians)"
    echo "# counts: per 1000 lookups of the ets_lookup pass; VM gcs = statistics(garbage_collection) delta, faults = minor faults of the OS process, carriers = mseg_create calls; vm_trace_*: gctrace.erl --summary (a fresh process, $iterations lookups of key 1), round 1"
    echo "# machine: $(uname -srvmo)"
    echo "# cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1) ($(nproc) online)"
    echo "# load: 1-min load average at each step $(sort -n "$tmp/load" | awk '{a[NR] = $1} END {printf "min %s, median %s, max %s", a[1], a[int((NR + 1) / 2)], a[NR]}') (shared machine)"
    echo "# duration: $((SECONDS - started)) s (build and runs)"
    echo "variant,payload_len,vm_ratio,vm_lookup_gcs,vm_lookup_faults,vm_carriers,model_ratio,model_lookup_gcs,model_lookup_faults,model_carriers,model_ablation,vm_extra_flags,vm_proc_us,vm_lookup_us,model_proc_us,model_lookup_us,vm_trace_gcs,vm_trace_mseg_create,vm_trace_mseg_cache_hits,vm_trace_mseg_destroy,rounds"
    awk -F, "$agg" "$tmp/map" "$tmp/model.rows" "$tmp/trace.rows" "$tmp/vm.rows"
} >"$tmp/out.csv" || die "cannot build the CSV"
# Every round's rows beside it, for the spread behind the medians.
rounds_out="${out%.csv}-rounds.csv"
{
    grep -E '^# (experiment|date|git|machine|cpu|lens|runs|load):' "$tmp/out.csv"
    echo "side,round,variant,payload_len,proc_us,lookup_us,ratio,lookup_gcs,lookup_faults,carriers"
    sed 's/^/vm,/' "$tmp/vm.rows"
    sed 's/^/model,/' "$tmp/model.rows"
} >"$tmp/rounds.csv" || die "cannot build the per-round CSV"
mkdir -p "$(dirname "$out")" && mv "$tmp/out.csv" "$out" && mv "$tmp/rounds.csv" "$rounds_out" || die "cannot write $out"
say "wrote $out in $((SECONDS - started)) s"
