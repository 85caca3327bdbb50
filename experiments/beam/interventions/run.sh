#!/usr/bin/env bash
# The interventions on the real VM: each variant of the VM (build.sh) runs the VM's eptest on
# lists of integers, alternated with the model's matching ablation, the GC trace of the 7.2
# loop and the reproducer report/upstream/light_bif_gc.erl; a CSV row per source, variant, length.
#
# usage: experiments/beam/interventions/run.sh [--rounds R] [--repeats K] [--iterations N]
#                 [--lens "L1 L2 ..."] [--edges FILE|none] [--variants "V1 V2 ..."]
#                 [--model BUILD_DIR] [OUTPUT_CSV]
#   OUTPUT_CSV   default report/data/vm-interventions.csv; every round's rows go beside it
#                (OUTPUT-rounds.csv: side,round,variant or ablation,payload_len,...,source)
#   --rounds R   rounds over all lengths and variants (default 5); per round and length the
#                model's ablate runs once (every switch), then each VM variant in turn
#   --repeats K  fresh testers per VM run, medians (default 3)
#   --model-repeats K  runs per ablation on the model side (default 1: its counts do not vary)
#   --iterations N  calls per pass (default 1000)
#   --lens       the interventions' payload lengths (default "1000 3000 4250 4500 10000 30000":
#                the issue's four and the two sides of a segment-cache band edge)
#   --edges      the band edges measured too (default report/data/fidelity-bands.csv): each
#                row's edge_vm (the first length of a band) and the length before it
#   --variants   [SOURCE:]NAME ...; a bare NAME is of the installed VM's source (build.sh
#                --list), SOURCE:NAME of a newer one (build.sh --source SOURCE --list).
#                Default "shipped rebuilt emu word_gc_test no_long_gc_delay mseg_no_cache
#                shipped_mcs0 debian-27.3.4.1:rebuilt debian-27.3.4.1:word_gc_test debian-27.3.4.1:emu"; shipped
#                is the installed /usr/lib/erlang, shipped_mcs0 the installed VM with +MMmcs 0
#                (the runtime flag beside the mseg_no_cache patch)
#   --model DIR  the model's release build (default build/release, configured and built here)
#
# Each VM variant is paired with the model's ablation of the same mechanism (ablate's rows,
# the model of OTP 25 whatever the source):
#   shipped, rebuilt -> baseline; word_gc_test, emu -> word_gc_test (the interpreter uses the
#   C macro's word test); no_long_gc_delay -> no_long_gc_delay; mseg_no_cache, shipped_mcs0
#   -> fresh_pages. Ratio = lookup / proc, proc the median of the three proc passes (as
#   fidelity.sh), per round; the CSV has the median of the rounds' ratios and counts, and the
#   rounds' smallest and largest ratio and times. source is debian-<upstream> of the variant's
#   source package; lens_set says whether the length is an intervention length or a band edge.
#   Once the emulators are built (build.sh), on the shared 2-core machine: about 9 min for the
#   seven OTP 25 variants at the six lengths, 97 min for the default (ten variants, 24 lengths,
#   load 5-23).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
rounds=5 repeats=3 mrepeats=1 iterations=1000 lens="1000 3000 4250 4500 10000 30000"
edges="$root/report/data/fidelity-bands.csv"
variants="shipped rebuilt emu word_gc_test no_long_gc_delay mseg_no_cache shipped_mcs0 debian-27.3.4.1:rebuilt debian-27.3.4.1:word_gc_test debian-27.3.4.1:emu"
model="$root/build/release" out="$root/report/data/vm-interventions.csv"
usage() { echo "run.sh: $* (see --help)" >&2; exit 2; }
posint() { [[ "$2" =~ ^[1-9][0-9]*$ ]] || usage "$1 needs a positive integer, not '$2'"; }
while [ $# -gt 0 ]; do
    case "$1" in
    --rounds|--repeats|--model-repeats|--iterations)
        [ $# -ge 2 ] || usage "$1 needs a value"; posint "$1" "$2"
        case "$1" in --rounds) rounds=$2 ;; --repeats) repeats=$2 ;; --model-repeats) mrepeats=$2 ;; *) iterations=$2 ;; esac
        shift ;;
    --lens) [ $# -ge 2 ] || usage "--lens needs lengths"; lens="$2"; shift
            for l in $lens; do posint --lens "$l"; done ;;
    --edges) [ $# -ge 2 ] || usage "--edges needs a file or none"; edges="$2"; shift ;;
    --variants) [ $# -ge 2 ] || usage "--variants needs names"; variants="$2"; shift ;;
    --model) [ $# -ge 2 ] || usage "--model needs a directory"; model="$2"; shift ;;
    --help|-h) sed -n '2,38p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) usage "unknown option '$1'" ;;
    *) out="$1" ;;
    esac
    shift
done
say() { echo "interventions: $*" >&2; }
die() { echo "interventions: $*" >&2; exit 1; }
[ -n "$(echo $lens)" ] || usage "--lens: no length"
[ -n "$(echo $variants)" ] || usage "--variants: no variant"

# The variants: an id per [SOURCE:]NAME, checked against build.sh's lists before anything runs.
label_of() { local u=${1#*:}; u=${u%-*}; echo "debian-${u%%[+~]*}"; }
installed_version=$(dpkg-query -W -f='${Version}' erlang-base 2>/dev/null) || installed_version=""
installed=$(label_of "${installed_version:-0:unknown-0}")
declare -A vsrc vname vroot vflavor vflags vmodel vkey vsecs vbeams
ids=() 
for id in $variants; do
    case "$id" in
    *:*) s=${id%%:*} n=${id#*:}
         [[ "$s" =~ ^debian-[0-9]+(\.[0-9]+)*$ ]] || usage "--variants: '$id': the source is not debian-UPSTREAM"
         [ "$s" != "$installed" ] || usage "--variants: '$id': $s is the installed VM's source (name it without a source)"
         bash "$here/build.sh" --source "$s" --list 2>/dev/null | grep -qx "$n" ||
             usage "--variants: '$id': no variant $n of $s (build.sh --source $s --list)" ;;
    *) s=$installed n=$id
       case "$n" in shipped|shipped_mcs0) ;; *)
           bash "$here/build.sh" --list 2>/dev/null | grep -qx "$n" || usage "--variants: no variant '$n' (build.sh --list)" ;;
       esac ;;
    esac
    [ -z "${vsrc[$id]:-}" ] || usage "--variants: '$id' twice"
    vsrc[$id]=$s vname[$id]=$n; ids+=("$id")
done
# The lengths: the interventions', then each band edge and the length before it.
declare -A lset
all_lens=""
for l in $lens; do [ -n "${lset[$l]:-}" ] || { lset[$l]=interventions; all_lens="$all_lens $l"; }; done
if [ "$edges" != none ]; then
    [ -r "$edges" ] || usage "--edges: cannot read '$edges'"
    elens=$(awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        (c["edge_vm"] && $c["edge_vm"] ~ /^[0-9]+$/) { print $c["edge_vm"] - 1; print $c["edge_vm"] }' "$edges") ||
        die "cannot read the band edges of $edges"
    [ -n "$elens" ] || usage "--edges: $edges has no edge_vm column or no edge"
    for l in $elens; do [ -n "${lset[$l]:-}" ] || { lset[$l]=band_edges; all_lens="$all_lens $l"; }; done
fi
command -v erl >/dev/null && command -v erlc >/dev/null || die "erl not found: apt-get install erlang-nox"
started=$SECONDS

# The model.
say "building the model ($model)"
cmake -S "$root" -B "$model" -DCMAKE_BUILD_TYPE=Release -DTC_BUILD_TESTS=OFF -DTC_DEBUG_LEVEL=0 >"$model.configure.log" 2>&1 ||
    die "cmake configure failed (see $model.configure.log)"
cmake --build "$model" -j2 >"$model.build.log" 2>&1 || die "the model build failed (see $model.build.log)"
ablate="$model/experiments/ablate"

# The VM variants: root, flavor, extra emulator flags, model ablation; build.sh once per source.
declare -A wanted
for id in "${ids[@]}"; do
    case "${vname[$id]}" in shipped|shipped_mcs0) ;; *) wanted[${vsrc[$id]}]="${wanted[${vsrc[$id]}]:-} ${vname[$id]}" ;; esac
done
for s in "${!wanted[@]}"; do
    srcflag=()
    [ "$s" = "$installed" ] || srcflag=(--source "$s")
    say "building the VM variants of $s:${wanted[$s]}"
    # shellcheck disable=SC2086 # the names are words
    lines=$("$here/build.sh" "${srcflag[@]}" ${wanted[$s]}) || die "build.sh failed ($s)"
    while read -r name r fl key secs; do
        id=$name; [ "$s" = "$installed" ] || id="$s:$name"
        vroot[$id]=$r vflavor[$id]=$fl vkey[$id]=$key vsecs[$id]=$secs
    done <<<"$lines"
done
for id in "${ids[@]}"; do
    case "$id" in
    shipped) vroot[$id]=/usr/lib/erlang vflavor[$id]=jit vkey[$id]=- vsecs[$id]=0 ;;
    shipped_mcs0) vroot[$id]=/usr/lib/erlang vflavor[$id]=jit vflags[$id]="+MMmcs 0" vkey[$id]=- vsecs[$id]=0 ;;
    esac
    [ -n "${vroot[$id]:-}" ] || die "no root for variant $id"
    [ "${vflavor[$id]}" = emu ] && vflags[$id]="-emu_flavor emu"
    case "${vname[$id]}" in
    shipped|rebuilt) vmodel[$id]=baseline ;;
    emu|word_gc_test) vmodel[$id]=word_gc_test ;;
    no_long_gc_delay) vmodel[$id]=no_long_gc_delay ;;
    mseg_no_cache|shipped_mcs0) vmodel[$id]=fresh_pages ;;
    *) vmodel[$id]=baseline ;;
    esac
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/termcopy-interventions.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
export ERL_CRASH_DUMP="$tmp/erl_crash.dump"
# The VM's modules, compiled by each source's own compiler (a newer OTP's erlc in its root).
for id in "${ids[@]}"; do
    s=${vsrc[$id]} d="$tmp/beams-${vsrc[$id]}"
    if [ ! -d "$d" ]; then
        mkdir -p "$d"
        c=erlc; [ "$s" = "$installed" ] || c="${vroot[$id]}/bin/erlc"
        "$c" -o "$d" "$here/../eptest.erl" "$here/../gctrace.erl" "$root/report/upstream/light_bif_gc.erl" || die "erlc failed ($s: $c)"
    fi
    vbeams[$id]=$d
done
base="+S 2:2"

# vmrow ROUND ID CSV: round,id,len,proc_us,lookup_us,ratio,gcs,faults,carriers from one VM
# eptest CSV (proc = the median of proc1..3, as fidelity.sh).
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

: >"$tmp/vm.rows"; : >"$tmp/model.rows"; : >"$tmp/trace.rows"; : >"$tmp/byte.rows"; : >"$tmp/load"
nlens=$(echo $all_lens | wc -w)
k=0 total=$((rounds * nlens))
for r in $(seq 1 "$rounds"); do
    for l in $all_lens; do
        k=$((k + 1))
        say "round $r of $rounds, L = $l ($k of $total; load $(cut -d' ' -f1 /proc/loadavg); $((SECONDS - started)) s)"
        cut -d' ' -f1 /proc/loadavg >>"$tmp/load"
        "$ablate" --era otp25 --len "$l" --iterations "$iterations" --repeats "$mrepeats" --csv "$tmp/m.csv" >/dev/null 2>"$tmp/m.err" ||
            { cat "$tmp/m.err" >&2; die "ablate failed at L = $l"; }
        awk -F, -v round="$r" '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
            { printf "%d,%s,%s,%s,%s,%s,%s,%s,%s\n", round, $c["ablation"], $c["payload_len"], $c["proc_us"], $c["lookup_us"],
                     $c["ratio"], $c["lookup_gcs"], $c["lookup_faults"], $c["lookup_carriers_mapped"] }' "$tmp/m.csv" >>"$tmp/model.rows"
        for id in "${ids[@]}"; do
            flags="$base ${vflags[$id]:-}" erl="${vroot[$id]}/bin/erl" pa="${vbeams[$id]}"
            # shellcheck disable=SC2086 # flags are words by design
            "$erl" -noshell $flags -pa "$pa" -s eptest main -extra --flags "-noshell $flags" \
                --len "$l" --iterations "$iterations" --repeats "$repeats" --csv "$tmp/v.csv" >/dev/null 2>"$tmp/v.err" ||
                { cat "$tmp/v.err" >&2; die "the VM's eptest failed: $id at L = $l"; }
            vmrow "$r" "$id" "$tmp/v.csv" >>"$tmp/vm.rows" || die "bad eptest output: $id at L = $l"
            if [ "$r" -eq 1 ]; then
                # The 7.2 loop in a fresh process: its own GCs and mseg_alloc's counters; and the
                # reproducer's GCs and fragments / free heap at each GC's start.
                # shellcheck disable=SC2086
                "$erl" -noshell $flags -pa "$pa" -s gctrace main -extra --len "$l" --lookups "$iterations" --summary \
                    2>/dev/null | awk -F, -v v="$id" '$1 == "summary" { print v "," $0 }' >>"$tmp/trace.rows"
                # shellcheck disable=SC2086
                "$erl" -noshell $flags -pa "$pa" -s light_bif_gc main -extra "$l" 2>/dev/null |
                    awk -F, -v v="$id" -v l="$l" '$1 == l { print v "," $1 "," $3 "," $4 }' >>"$tmp/byte.rows"
            fi
        done
    done
done
say "all runs done in $((SECONDS - started)) s; writing $out"

# One row per variant and length: medians over the rounds (and the rounds' extremes).
agg='
function sorted(s, a,    n, i, j, t) { n = split(s, a, " ")
    for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n }
function med(s,    a, n) { n = sorted(s, a); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
function lo(s,    a) { sorted(s, a); return a[1] }
function hi(s,    a, n) { n = sorted(s, a); return a[n] }
FILENAME ~ /model.rows$/ { k = $2 SUBSEP $3; for (i = 4; i <= 9; i++) M[k, i] = M[k, i] " " $i; next }
FILENAME ~ /trace.rows$/ { T[$1, $3] = $5 "," $8 "," $10 "," $13; next }
FILENAME ~ /byte.rows$/ { B[$1, $2] = $3 "," $4; next }
FILENAME ~ /lset$/ { set[$1] = $2; next }
FILENAME ~ /map$/ { model[$1] = $2; flags[$1] = $3; src[$1] = $4; name[$1] = $5; next }
{ k = $2 SUBSEP $3; if (!(k in seen)) { seen[k] = 1; order[++n] = k }; for (i = 4; i <= 9; i++) V[k, i] = V[k, i] " " $i }
END {
    for (o = 1; o <= n; o++) {
        k = order[o]; split(k, kk, SUBSEP); v = kk[1]; l = kk[2]; m = model[v] SUBSEP l
        tr = (v SUBSEP l) in T ? T[v, l] : ",,,"
        bt = (v SUBSEP l) in B ? B[v, l] : ","
        printf "%s,%s,%.3f,%s,%s,%s,%.3f,%s,%s,%s,%s,%s,%.0f,%.0f,%.0f,%.0f,%s,%d,", name[v], l,
            med(V[k, 6]), med(V[k, 7]), med(V[k, 8]), med(V[k, 9]),
            med(M[m, 6]), med(M[m, 7]), med(M[m, 8]), med(M[m, 9]),
            model[v], flags[v], med(V[k, 4]), med(V[k, 5]), med(M[m, 4]), med(M[m, 5]), tr, split(V[k, 6], junk, " ")
        printf "%.3f,%.3f,%.0f,%.0f,%.0f,%.0f,%s,%s,%s\n", lo(V[k, 6]), hi(V[k, 6]), lo(V[k, 5]), hi(V[k, 5]),
            lo(V[k, 4]), hi(V[k, 4]), bt, set[l], src[v]
    }
}'
for id in "${ids[@]}"; do echo "$id,${vmodel[$id]},${vflags[$id]:-},${vsrc[$id]},${vname[$id]}"; done | sed 's/,,/,-,/' >"$tmp/map"
for l in $all_lens; do echo "$l,${lset[$l]}"; done >"$tmp/lset"
{
    echo "# experiment: interventions on the real VM (experiments/beam/interventions/run.sh): each variant's eptest (ints, +S 2:2) alternated with the model's matching ablation"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# git: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "# source_package: erlang $installed_version (apt-get source; Debian's patches applied by dpkg-source -x)"
    echo "# installed_vm: erlang-base $installed_version, $(cd /usr/lib/erlang && ls -d erts-*), OTP $(erl -noshell -eval 'io:put_chars(erlang:system_info(otp_release)), halt().')"
    for s in $(printf '%s\n' "${vsrc[@]}" | sort -u); do
        [ "$s" = "$installed" ] && continue
        for id in "${ids[@]}"; do
            [ "${vsrc[$id]}" = "$s" ] || continue
            echo "# source: $s: $(cat "$root/build/vm-src/$s/PROVENANCE" 2>/dev/null || echo 'provenance unknown'); $("${vroot[$id]}/bin/erl" -noshell -eval 'io:format("erts-~s, OTP ~s", [erlang:system_info(version), erlang:system_info(otp_release)]), halt().' 2>/dev/null); libraries: the source's bootstrap kernel, stdlib, compiler"
            break
        done
    done
    for p in "$here"/patches/*.patch; do
        echo "# patch: $(basename "$p") sha256 $(sha256sum "$p" | cut -d' ' -f1)"
    done
    echo "# configure: $(cat "$root/build/vm-src/configure.flags" 2>/dev/null || echo 'n/a (no variant built)')"
    echo "# make: make -C erts/emulator FLAVOR=jit|emu TYPE=opt GEN_OPT_FLGS='-O2 -fno-strict-aliasing' (the emulator only; a newer source: make -C erts FLAVOR=jit opt once)"
    for id in "${ids[@]}"; do
        echo "# variant: ${vname[$id]} (${vsrc[$id]}): root ${vroot[$id]#$root/}, flavor ${vflavor[$id]}, flags '$base ${vflags[$id]:-}', model ablation ${vmodel[$id]}, emulator key ${vkey[$id]}, build ${vsecs[$id]} s"
    done
    echo "# lens: $lens"
    if [ "$edges" = none ]; then echo "# edges: none"
    else echo "# edges: $(for l in $all_lens; do [ "${lset[$l]}" = band_edges ] && printf '%s ' "$l"; done)(each edge_vm of ${edges#$root/} and the length before it)"; fi
    echo "# runs: $rounds rounds; per round and length ablate --era otp25 once, then each variant; $iterations calls per pass, $repeats fresh testers per VM run, $mrepeats run(s) per model ablation; values are medians over the rounds, *_min and *_max the rounds' extremes"
    echo "# ratio: ets_lookup / median(proc1, proc2, proc3) per round (VM: eptest.erl medians over the testers; model: ablate's proc and lookup medians)"
    echo "# counts: per 1000 lookups of the ets_lookup pass; VM gcs = statistics(garbage_collection) delta, faults = minor faults of the OS process, carriers = mseg_create calls; vm_trace_*: gctrace.erl --summary (a fresh process, $iterations lookups of key 1), round 1; vm_repro_gcs, vm_min_mbuf_per_free: report/upstream/light_bif_gc.erl (a fresh process, 1000 lookups, traced: its GCs and the smallest fragments / free heap at a GC's start), round 1"
    echo "# machine: $(uname -srvmo)"
    echo "# cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1) ($(nproc) online)"
    echo "# load: 1-min load average at each step $(sort -n "$tmp/load" | awk '{a[NR] = $1} END {printf "min %s, median %s, max %s", a[1], a[int((NR + 1) / 2)], a[NR]}') (shared machine)"
    echo "# duration: $((SECONDS - started)) s (build and runs)"
    echo "variant,payload_len,vm_ratio,vm_lookup_gcs,vm_lookup_faults,vm_carriers,model_ratio,model_lookup_gcs,model_lookup_faults,model_carriers,model_ablation,vm_extra_flags,vm_proc_us,vm_lookup_us,model_proc_us,model_lookup_us,vm_trace_gcs,vm_trace_mseg_create,vm_trace_mseg_cache_hits,vm_trace_mseg_destroy,rounds,vm_ratio_min,vm_ratio_max,vm_lookup_us_min,vm_lookup_us_max,vm_proc_us_min,vm_proc_us_max,vm_repro_gcs,vm_min_mbuf_per_free,lens_set,source"
    awk -F, "$agg" "$tmp/map" "$tmp/lset" "$tmp/model.rows" "$tmp/trace.rows" "$tmp/byte.rows" "$tmp/vm.rows"
} >"$tmp/out.csv" || die "cannot build the CSV"
# Every round's rows beside it, for the spread behind the medians.
rounds_out="${out%.csv}-rounds.csv"
{
    grep -E '^# (experiment|date|git|machine|cpu|lens|edges|runs|load):' "$tmp/out.csv"
    echo "side,round,variant,payload_len,proc_us,lookup_us,ratio,lookup_gcs,lookup_faults,carriers,source"
    awk -F, -v OFS=, 'FILENAME ~ /map$/ { src[$1] = $4; name[$1] = $5; next }
        { id = $2; $2 = name[id]; print "vm", $0, src[id] }' "$tmp/map" "$tmp/vm.rows"
    sed 's/^/model,/; s/$/,model/' "$tmp/model.rows"
} >"$tmp/rounds.csv" || die "cannot build the per-round CSV"
mkdir -p "$(dirname "$out")" && mv "$tmp/out.csv" "$out" && mv "$tmp/rounds.csv" "$rounds_out" || die "cannot write $out"
say "wrote $out in $((SECONDS - started)) s"
