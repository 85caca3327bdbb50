#!/usr/bin/env bash
# The lookup loop's GCs on the real VM and on the model, compared GC by GC: compiles
# gctrace.erl (and eptest.erl, whose helpers it uses) into a temp dir, runs
# `gctrace.erl --rows` and the model's `gctrace` at length L with N lookups, and runs
# `tracediff` on the two CSVs, printing its first divergence and summary.
#
# usage: experiments/beam/tracediff.sh [--bin DIR] [--keep DIR] [--schedulers 1|2] L [N]
#        experiments/beam/tracediff.sh --tester SHAPE [--bin DIR] [--keep DIR] [--schedulers 1|2] L [N]
#        experiments/beam/tracediff.sh --term FILE [--bin DIR] [--keep DIR] [--schedulers 1|2] [N]
#        experiments/beam/tracediff.sh --grid [--shapes "S ..."] [--lens "L ..."] [--bin DIR]
#                                      [--keep DIR] [--schedulers 1|2] [--search-draws] [N]
#   L           the stored list's length (ints, lists:seq(1, L)); --tester: the payload's
#   N           lookups (default 200); --tester and --grid: calls per pass (default 1000)
#   --tester SHAPE  eptest's whole run instead of the lookup loop: the tester's and the
#               server's GCs from spawn to exit, every pass (gctrace.erl --tester --rows and
#               gctrace --tester --shape SHAPE), compared per process and phase
#   --term FILE  --tester's run with Data the term FILE holds as text (as termcopy explain reads
#               it) instead of a shape's payload: the VM decodes it from the external format
#               in a file (gctrace.erl --ext-file; termcopy encode's bytes), as termcopy explain
#               --vm runs a user's term; the model's tester decodes it too (gctrace --tester
#               --term). --keep: vm-term.csv
#   --grid      --tester at every shape and length of a grid, one row per point: shape, L,
#               identical (yes: both processes' traces equal), the first divergent event
#               (process, pass, op, the model's GC kind, the fields that differ as
#               name=model/VM, or gc=model/VM where one side has no GC there), the GCs of both
#               processes (model, VM); then a summary line: identical points and points with
#               the GCs within 3 %. Progress on standard error.
#   --shapes "S ..."  the grid's shapes (default: ints tuple floats strings map)
#   --lens "L ..."    the grid's lengths (default: 10 100 250 500 1000 2000 3000 5000 10000
#               20000 30000, the grid issue 26's +S 1:1 work is measured on)
#   --schedulers S  the VM's +S S:S (default 2, as the benchmark runs; 1: one scheduler)
#   --vm-flags F  more emulator flags for the VM's runs, e.g. "+Mut false" (one allocator
#               instance for every thread); with it a model --set usually names the same
#               mechanism (+Mut false turns off every allocator's thread-preferred
#               instances; the model's ETS store has one in any case, so alloc_instances=1,
#               eheap_alloc's, is the whole of it)
#   --tracer T  --tester and --grid: who keeps the VM's events: nif (the default where --bin
#               holds the gcnif tracer module, experiments/beam/gcnif.c: erts calls it in the
#               traced process, so tracing wakes no process) or process (a tracer process
#               gets every event as a message; the default where gcnif was not built)
#   --bin DIR   where the model's gctrace and tracediff are (default build/release/experiments
#               in the checkout: cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release ...)
#   --keep DIR  also leave the two CSVs there (vm-L.csv, model-L.csv; --grid: also each
#               point's tracediff report, SHAPE-L.txt, and the CSVs as vm-SHAPE-L.csv ...)
#   --set NAME=VALUE  the model's trace with one field of the policy table changed (gctrace
#               --set; repeatable, applied in order), e.g. dirty_gc_first=off, the dirty-GC
#               race's other outcome (heaps/sched.h)
#   --replay DIR  compare with the VM's traces an earlier --keep DIR left (vm-L.csv; --grid:
#               vm-SHAPE-L.csv) instead of running the VM: only the model runs, so a policy
#               field's effect on every point of a measured grid takes a minute; erl is not
#               needed. The VM's trace keeps its own metadata (flags, date, tracer)
#   --draws OUTCOMES  --tester and --term: the model's dirty-GC race outcomes one by one
#               (gctrace --draws: g the GC first, h the GC first and over before the next
#               send, s the server first; heaps/sched.h tc_draw)
#   --search-draws  --tester, --term and --grid: where the traces differ, look for the
#               outcomes of the dirty-GC race under which the model follows the VM's trace:
#               one outcome for every draw first (the base: of g, h and s the one whose
#               trace gets furthest, the era's on a tie), then, at each first divergence
#               left, the last draw of that process at or before it (or one of the two
#               before that) set otherwise, the first change that moves the divergence on
#               kept, until the traces are identical or no change moves it. Prints the base
#               and the draws set otherwise (t118s: the tester's 118th GC's draw, the
#               server first) and what is left. On the VM each draw is the two threads'
#               timing, so this shows whether the model's only departures are those races
#   --search-limit N  --search-draws gives up at a point after N model runs (default 300),
#               leaving the furthest divergence it reached
#   --draws-hint CSV  --search-draws starts from the outcomes an earlier --grid --csv with
#               --search-draws found (its drawn_outcomes column): where the model has not
#               changed since, one run per point confirms them
#   --csv FILE  --grid: also the grid as CSV, one row per point (shape, payload_len,
#               identical, proc, pass, op, kind, fields, model_gcs, vm_gcs; draws: the
#               model's draws with the era's outcomes; with --search-draws identical_drawn,
#               draws_other (the draws set the VM's way), drawn_divergence (proc pass op
#               fields left, '-' for none) and drawn_outcomes (every draw's outcome, in runs:
#               g117 s1), '-' without it; '-' where a point is identical; the ets_lookup
#               pass's minor faults and segments mapped, model and VM,
#               'failed' in identical where it could not run), after metadata: the VM
#               traces' own (date, erts, emulator flags, tracer, machine: the first point's),
#               N, the model's policy changes and the model's git
# Exit status: tracediff's (0 identical, 1 different; --grid: 0 when every point is
# identical), 2 on a failure. Without erl (and without --replay) it prints that it skips and
# exits 0, as run.sh does.
# The VM runs `-noshell +S 2:2` unless --schedulers 1, like run.sh's base runs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin="$root/build/release/experiments" keep="" args=() shape="" scheds=2 grid=0 tracer=""
replay="" sets=() sets_txt="" term="" csv="" draws="" search=0 search_limit=300 limit_given=0 hint_file="" vm_flags=""
shapes="ints tuple floats strings map" lens="10 100 250 500 1000 2000 3000 5000 10000 20000 30000"
# value OPTION WHAT: the option's value, or one line and exit 2 when it has none
value() { [ -n "${2-}" ] || { echo "tracediff.sh: $1 needs $3" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
    case "$1" in
    --bin) value --bin "${2-}" "a directory"; bin=$2; shift ;;
    --keep) value --keep "${2-}" "a directory"; keep=$2; shift ;;
    --tester) value --tester "${2-}" "a shape"; shape=$2; shift ;;
    --term) value --term "${2-}" "a file"; [ -f "$2" ] || { echo "tracediff.sh: --term: no file '$2'" >&2; exit 2; }
        term=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift ;;
    --grid) grid=1 ;;
    --shapes) value --shapes "${2-}" "shapes"; shapes=$2; shift ;;
    --lens) value --lens "${2-}" "lengths"; lens=$2; shift ;;
    --schedulers) value --schedulers "${2-}" "1 or 2"; scheds=$2; shift ;;
    --tracer) value --tracer "${2-}" "nif or process"; tracer=$2; shift ;;
    --vm-flags) value --vm-flags "${2-}" "emulator flags"; [[ "$2" =~ ^[+-][A-Za-z] ]] || { echo "tracediff.sh: --vm-flags takes emulator flags (+Mut false ...), got '$2'" >&2; exit 2; }
        vm_flags=$2; shift ;;
    --set) value --set "${2-}" "NAME=VALUE"; [[ "$2" == ?*=?* ]] || { echo "tracediff.sh: --set needs NAME=VALUE, got '$2'" >&2; exit 2; }
        sets+=(--set "$2") sets_txt="$sets_txt --set $2"; shift ;;
    --csv) value --csv "${2-}" "a file"; csv=$2; shift ;;
    --draws) value --draws "${2-}" "outcomes (letters g, h, s)"; [[ "$2" =~ ^[ghs]+$ ]] || { echo "tracediff.sh: --draws takes letters g, h and s, got '$2'" >&2; exit 2; }
        draws=$2; shift ;;
    --search-draws) search=1 ;;
    --search-limit) value --search-limit "${2-}" "a number of model runs"; [[ "$2" =~ ^[1-9][0-9]*$ ]] || { echo "tracediff.sh: --search-limit must be a positive integer, got '$2'" >&2; exit 2; }
        search_limit=$2 limit_given=1; shift ;;
    --draws-hint) value --draws-hint "${2-}" "a grid CSV"; [ -f "$2" ] || { echo "tracediff.sh: --draws-hint: no file '$2'" >&2; exit 2; }
        hint_file=$2; shift ;;
    --replay) value --replay "${2-}" "a directory"; [ -d "$2" ] || { echo "tracediff.sh: --replay: no directory '$2'" >&2; exit 2; }
        replay=$(cd "$2" && pwd); shift ;;
    --help|-h) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "tracediff.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) args+=("$1") ;;
    esac
    shift
done
case "$scheds" in 1|2) ;; *) echo "tracediff.sh: --schedulers must be 1 or 2, got '$scheds'" >&2; exit 2 ;; esac
case "$tracer" in '' | nif | process) ;; *) echo "tracediff.sh: --tracer must be nif or process, got '$tracer'" >&2; exit 2 ;; esac
good_shape() { case "$1" in ints|floats|tuple|nested|strings|binary|map) return 0 ;; esac; return 1; }
good_count() { [[ "$1" =~ ^[1-9][0-9]*$ ]]; }
[ -z "$csv" ] || [ "$grid" -eq 1 ] || { echo "tracediff.sh: --csv goes with --grid" >&2; exit 2; }
[ -z "$draws" ] || { [ "$grid" -eq 0 ] && { [ -n "$shape" ] || [ -n "$term" ]; }; } \
    || { echo "tracediff.sh: --draws goes with --tester or --term (a grid's points take different draws)" >&2; exit 2; }
[ -z "$vm_flags" ] || [ -z "$replay" ] || { echo "tracediff.sh: --vm-flags goes with a VM run, not --replay (the kept traces name their flags)" >&2; exit 2; }
[ "$limit_given" -eq 0 ] || [ "$search" -eq 1 ] || { echo "tracediff.sh: --search-limit goes with --search-draws" >&2; exit 2; }
[ -z "$hint_file" ] || [ "$search" -eq 1 ] || { echo "tracediff.sh: --draws-hint goes with --search-draws" >&2; exit 2; }
[ "$search" -eq 0 ] || [ "$grid" -eq 1 ] || [ -n "$shape" ] || [ -n "$term" ] \
    || { echo "tracediff.sh: --search-draws goes with --tester, --term or --grid (the lookup loop runs alone: no race)" >&2; exit 2; }
if [ -n "$term" ]; then
    [ "$grid" -eq 0 ] && [ -z "$shape" ] || { echo "tracediff.sh: --term excludes --grid and --tester" >&2; exit 2; }
    [ ${#args[@]} -le 1 ] || { echo "tracediff.sh: usage: tracediff.sh --term FILE [N] (see --help)" >&2; exit 2; }
    shape=term len=10 n=${args[0]:-1000} # the length is not read with a term
    good_count "$n" || { echo "tracediff.sh: N must be a positive integer, got '$n'" >&2; exit 2; }
elif [ "$grid" -eq 1 ]; then
    [ -z "$shape" ] || { echo "tracediff.sh: --grid and --tester exclude each other" >&2; exit 2; }
    [ -z "$csv" ] || : >"$csv" 2>/dev/null || { echo "tracediff.sh: --csv: cannot write '$csv'" >&2; exit 2; }
    [ ${#args[@]} -le 1 ] || { echo "tracediff.sh: usage: tracediff.sh --grid [--shapes S] [--lens L] [N] (see --help)" >&2; exit 2; }
    n=${args[0]:-1000}
    if [ -z "${shapes// /}" ] || [ -z "${lens// /}" ]; then
        echo "tracediff.sh: --shapes and --lens need at least one value" >&2; exit 2
    fi
    for s in $shapes; do good_shape "$s" || { echo "tracediff.sh: bad shape '$s' in --shapes" >&2; exit 2; }; done
    for l in $lens; do good_count "$l" || { echo "tracediff.sh: --lens must be positive integers, got '$l'" >&2; exit 2; }; done
    good_count "$n" || { echo "tracediff.sh: N must be a positive integer, got '$n'" >&2; exit 2; }
else
    [ ${#args[@]} -ge 1 ] && [ ${#args[@]} -le 2 ] || { echo "tracediff.sh: usage: tracediff.sh [--bin DIR] L [N] (see --help)" >&2; exit 2; }
    [ -z "$shape" ] || good_shape "$shape" || { echo "tracediff.sh: bad --tester shape '$shape'" >&2; exit 2; }
    len=${args[0]} n=${args[1]:-$([ -n "$shape" ] && echo 1000 || echo 200)}
    good_count "$len" && good_count "$n" || { echo "tracediff.sh: L and N must be positive integers, got '$len' '$n'" >&2; exit 2; }
fi
if [ -z "$replay" ] && { ! command -v erl >/dev/null 2>&1 || ! command -v erlc >/dev/null 2>&1; }; then
    echo "erl not found: skipping the real-VM trace; apt-get install erlang-nox"
    exit 0
fi
for b in gctrace tracediff; do
    [ -x "$bin/$b" ] || { echo "tracediff.sh: $bin/$b not built (see --help)" >&2; exit 2; }
done
if [ -n "$replay" ]; then
    [ -z "$tracer" ] || { echo "tracediff.sh: --tracer and --replay exclude each other (the kept traces say which tracer)" >&2; exit 2; }
elif [ -z "$tracer" ]; then
    tracer=process
    [ -f "$bin/gcnif.so" ] && tracer=nif
elif [ "$tracer" = nif ] && [ ! -f "$bin/gcnif.so" ]; then
    echo "tracediff.sh: --tracer nif: $bin/gcnif.so not built (apt-get install erlang-dev, then rebuild)" >&2; exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$replay" ]; then
    erlc -o "$tmp" "$here/gctrace.erl" "$here/eptest.erl" "$here/gcnif.erl" || { echo "tracediff.sh: erlc failed" >&2; exit 2; }
fi
flags="-noshell +S $scheds:$scheds${vm_flags:+ $vm_flags}"
# The headings' account of both sides: this run's flags, N (N: empty to leave it out) and
# tracer, or the kept traces; then the model's policy changes.
label() {
    local n=${1:+, N $1}
    if [ -n "$replay" ]; then printf 'VM traces of %s%s' "$replay" "$n"; else printf '+S %s%s%s, tracer %s' "$scheds:$scheds" "${vm_flags:+ $vm_flags}" "$n" "$tracer"; fi
    [ -z "$sets_txt" ] || printf '; model%s' "$sets_txt"
}

# One comparison: both traces of SHAPE (empty: the lookup loop) at L with N into $tmp, then
# tracediff's report on standard output; its status (2 on a failure).
point() {
    local shape=$1 len=$2 n=$3 tester_vm=() tester_model=()
    if [ "$shape" = term ]; then
        # the bytes as a file, as termcopy explain --vm hands them to eptest.erl
        tester_vm=(--ext-file "$tmp/term.ext") tester_model=(--tester --term "$term")
        if [ -z "$replay" ]; then
            "$bin/../termcopy" encode - <"$term" >"$tmp/term.hex" \
                || { echo "tracediff.sh: --term: termcopy encode failed (is $bin/../termcopy built?)" >&2; return 2; }
            perl -e 'local $/; my $h = <STDIN>; $h =~ s/\s+//g; print pack("H*", $h)' <"$tmp/term.hex" >"$tmp/term.ext" || return 2
        fi
    elif [ -n "$shape" ]; then
        tester_vm=(--tester "$shape") tester_model=(--tester --shape "$shape")
    fi
    [ -n "$shape" ] && [ "$tracer" = nif ] && tester_vm+=(--nif "$(cd "$bin" && pwd)")
    local tag=$len
    [ "$grid" -eq 1 ] && tag="$shape-$len"
    [ "$shape" = term ] && tag=term
    if [ -n "$replay" ]; then
        cp "$replay/vm-$tag.csv" "$tmp/vm.csv" 2>/dev/null || { echo "tracediff.sh: --replay: no VM trace $replay/vm-$tag.csv" >&2; return 2; }
    else
        # shellcheck disable=SC2086 # the emulator flags are words
        (cd "$tmp" && erl $flags -pa "$tmp" -s gctrace main -extra --len "$len" --lookups "$n" "${tester_vm[@]}" --rows --flags "$flags" --csv "$tmp/vm.csv") \
            || { echo "tracediff.sh: gctrace.erl failed" >&2; return 2; }
    fi
    model_args=("${tester_model[@]}" --len "$len" --iterations "$n" "${sets[@]}")
    "$bin/gctrace" "${model_args[@]}" ${draws:+--draws "$draws"} --csv "$tmp/model.csv" >/dev/null || { echo "tracediff.sh: gctrace failed" >&2; return 2; }
    if [ -n "$keep" ]; then
        mkdir -p "$keep" && cp "$tmp/vm.csv" "$keep/vm-$tag.csv" && cp "$tmp/model.csv" "$keep/model-$tag.csv" || return 2
    fi
    if [ "$shape" = term ]; then
        echo "tracediff.sh: eptest's tester, the term of $term, N $n, $(label "")"
    elif [ -n "$shape" ]; then
        echo "tracediff.sh: eptest's tester, $shape L $len, N $n, $(label "")"
    else
        echo "tracediff.sh: L $len, $n lookups, $(label "")"
    fi
    "$bin/tracediff" --vm "$tmp/vm.csv" --model "$tmp/model.csv"
}

# How far a tracediff report ($1) gets before its first divergence: the GCs matched of the
# tester (of the server, plus a million, when the tester's are identical; two million when
# both are), then the divergent process's initial (t, s) and the seq of its divergent GC (the
# model's, or the VM's where the model has none there).
reach() {
    awk '/^(tester|server): first divergence: / && p == "" {
            p = substr($1, 1, 1)
            if (match($0, /model GC [0-9]+/)) n = substr($0, RSTART + 9, RLENGTH - 9)
            else if (match($0, /VM GC [0-9]+/)) n = substr($0, RSTART + 6, RLENGTH - 6)
         }
         /^tester: identical/ { t = 1 }
         END { if (p == "") print 2000000, "-", 0; else print (p == "s" && t ? 1000000 : 0) + n - 1, p, n }' "$1"
}

# The model's draws in a gctrace CSV ($1): one per line, "role seq outcome" (t118g: t 118 g).
draw_list() {
    awk '/^# draws:/ { for (i = 3; i <= NF; i++) print substr($i, 1, 1), substr($i, 2, length($i) - 2), substr($i, length($i)) }' "$1"
}

# One model run with the draws $1 against $tmp/vm.csv: its trace in $tmp/try.csv, its report
# in $tmp/try.out; prints its reach.
spare=20000 # outcomes given past a run's last draw (a run takes one per long GC: fewer)
try_draws() {
    "$bin/gctrace" "${model_args[@]}" --draws "$1" --csv "$tmp/try.csv" >/dev/null || return 2
    "$bin/tracediff" --vm "$tmp/vm.csv" --model "$tmp/try.csv" >"$tmp/try.out"
    reach "$tmp/try.out" | cut -d ' ' -f 1
}

# --search-draws on the point point() left in $tmp (vm.csv, model.csv; its report in $1).
# A draw where nothing reaches the process during its GC leaves the trace the same whichever
# way it goes, so many outcome strings can give the VM's trace; the search looks for a short
# one to state: one outcome for every draw (the base: whichever of g, h, s reaches furthest,
# the era's on a tie), then exceptions one draw at a time, at the first divergence, each the
# first change that moves it (the outcome the exceptions so far took most often tried first).
# Leaves the best model trace in $tmp/model.csv and its report in $1; sets drawn_total (the
# model's draws with the era's outcomes), drawn_era (their outcome), drawn_base, drawn_other
# (the exceptions as t118s tokens: the tester's 118th GC's draw, the server first; '-' for
# none), drawn_outcomes and drawn_tries (model runs); with no draw, the counts 0 and the
# rest '-'.
search_draws() {
    local out=$1 cur key k alt all b r p q t i order tries=0 taken cand hint
    mapfile -t taken < <(draw_list "$tmp/model.csv")
    drawn_total=${#taken[@]} drawn_tries=0
    if [ "$drawn_total" -eq 0 ]; then # no race in this run: nothing to set otherwise
        drawn_era=- drawn_base=- drawn_other=- drawn_outcomes=-
        return 0
    fi
    drawn_era=${taken[0]##* }
    read -r cur _ _ < <(reach "$out")
    drawn_base=$drawn_era
    # a previous search's outcomes for this point (--draws-hint): where the model has not
    # changed they give the VM's trace at once; else they are a start, kept if they reach
    # further than the era's outcomes
    hint=$(hint_for "$2" "$3")
    if [ -n "$hint" ]; then
        r=$(try_draws "${hint#* }$(printf "%${spare}s" "" | tr ' ' "${hint%% *}")") || return 2
        tries=$((tries + 1))
        if [ "$r" -gt "$cur" ]; then
            cur=$r drawn_base=${hint%% *}
            cp "$tmp/try.csv" "$tmp/model.csv" && cp "$tmp/try.out" "$out" || return 2
        fi
    fi
    for b in g h s; do
        [ "$cur" -lt 2000000 ] || break
        [ "$b" = "$drawn_era" ] && continue
        r=$(try_draws "$(printf "%${spare}s" "" | tr ' ' "$b")") || return 2
        tries=$((tries + 1))
        if [ "$r" -gt "$cur" ]; then
            cur=$r drawn_base=$b
            cp "$tmp/try.csv" "$tmp/model.csv" && cp "$tmp/try.out" "$out" || return 2
        fi
    done
    while [ "$cur" -lt 2000000 ] && [ "$tries" -lt "$search_limit" ]; do
        read -r _ p q < <(reach "$out")
        mapfile -t taken < <(draw_list "$tmp/model.csv")
        all=""
        for t in "${taken[@]}"; do all+=${t##* }; done
        all+=$(printf "%${spare}s" "" | tr ' ' "$drawn_base") # draws a change adds take the base too
        # the draws of the divergent process at or before its divergent GC, latest first
        mapfile -t cand < <(for i in "${!taken[@]}"; do read -r r t _ <<<"${taken[$i]}"; [ "$r" = "$p" ] && [ "$t" -le "$q" ] && echo "$i"; done | tail -n 3 | tac)
        # the outcomes to try, the exceptions found so far first (the most frequent first)
        order=$(printf '%s' "${all:0:${#taken[@]}}" | fold -w 1 | grep -v "^$drawn_base\$" | sort | uniq -c | sort -k1,1nr -k2 | awk '{ printf "%s", $2 }')
        order=$(printf '%sghs' "$order" | fold -w 1 | awk '!seen[$0]++ { printf "%s ", $0 }')
        key=""
        for k in "${cand[@]}"; do
            for alt in $order; do
                [ "$alt" = "${all:$k:1}" ] && continue
                r=$(try_draws "${all:0:$k}$alt${all:$((k + 1))}") || return 2
                tries=$((tries + 1))
                if [ "$r" -gt "$cur" ]; then # the first change that moves the divergence
                    key=$k cur=$r
                    cp "$tmp/try.csv" "$tmp/model.csv" && cp "$tmp/try.out" "$out" || return 2
                    break 2
                fi
            done
        done
        [ -n "$key" ] || break
    done
    drawn_tries=$tries
    drawn_outcomes=$(draw_list "$tmp/model.csv" | awk '$3 != c { if (n) printf "%s%s%d", (k++ ? " " : ""), c, n; c = $3; n = 0 } { n++ }
        END { if (n) printf "%s%s%d", (k ? " " : ""), c, n; else printf "-" }')
    drawn_other=$(draw_list "$tmp/model.csv" | awk -v d="$drawn_base" '$3 != d { printf "%s%s%s%s", (n++ ? " " : ""), $1, $2, $3 } END { if (!n) printf "-" }')
    return 0
}

# The outcomes --draws-hint's grid CSV holds for SHAPE at L: "BASE OUTCOMES" (the draws' base
# letter, then their outcomes one letter each, expanded from its drawn_outcomes column's runs,
# g117 s1: 117 g, then one s); nothing when it has none.
hint_for() {
    [ -n "$hint_file" ] || return 0
    awk -F, -v shape="$1" -v len="$2" '
        /^#/ { next }
        !h { for (i = 1; i <= NF; i++) col[$i] = i; h = 1; next }
        $1 == shape && $2 == len && col["drawn_outcomes"] && $col["drawn_outcomes"] ~ /^[ghs][0-9]/ {
            n = split($col["drawn_outcomes"], run, " "); s = ""
            for (i = 1; i <= n; i++) for (j = 0; j < substr(run[i], 2) + 0; j++) s = s substr(run[i], 1, 1)
            print $col["draws_base"], s; exit
        }' "$hint_file"
}

# The search's account of one point, after its report.
drawn_summary() {
    local how
    how=$(grep -m 1 -E '^(tester|server): first divergence: ' "$1" || true)
    echo "draws (--search-draws, model runs: $drawn_tries): the model's run takes $drawn_total; set to $drawn_base (the era's: $drawn_era), except $drawn_other"
    if [ -z "$how" ]; then echo "draws: with them the traces are identical"; else echo "draws: with them still different: $how"; fi
}

if [ "$grid" -eq 0 ]; then
    point "$shape" "$len" "$n" >"$tmp/point.out"
    rc=$?
    cat "$tmp/point.out"
    if [ "$rc" -eq 1 ] && [ "$search" -eq 1 ]; then
        search_draws "$tmp/point.out" "$shape" "$len" || { echo "tracediff.sh: the draws' search failed" >&2; exit 2; }
        echo
        echo "tracediff.sh: the same, with the draws the search set:"
        cat "$tmp/point.out"
        drawn_summary "$tmp/point.out"
        [ -z "$keep" ] || cp "$tmp/model.csv" "$keep/model-$([ "$shape" = term ] && echo term || echo "$len")-drawn.csv" || exit 2
    fi
    exit "$rc"
fi

# The grid's row of one point from tracediff's report: the first process (tester, then
# server) that diverges, where (pass, op), the kind of the model's GC there (the VM's where the
# model has none), the fields that differ, and the GCs of both processes.
row() {
    awk -v shape="$1" -v len="$2" '
        function strip(s) { gsub(/,/, "", s); return s }
        /^(tester|server): first divergence: / && proc == "" {
            proc = $1; sub(/:$/, "", proc); rest = $0; sub(/^[a-z]+: first divergence: /, "", rest)
            pass = rest; sub(/ .*/, "", pass)
            if (match(rest, /op [0-9]+/)) op = substr(rest, RSTART + 3, RLENGTH - 3)
            if (rest ~ /: gc: model none/) {
                match(rest, /VM GC [0-9]+ \((minor|major)\)/); s = substr(rest, RSTART, RLENGTH)
                kind = s; sub(/.*\(/, "", kind); sub(/\)/, "", kind)
                sub(/ \(.*/, "", s); sub(/VM GC /, "", s); fields = "gc=none/" s
            } else if (rest ~ /: gc: model GC/) {
                match(rest, /model GC [0-9]+ \((minor|major)\)/); s = substr(rest, RSTART, RLENGTH)
                kind = s; sub(/.*\(/, "", kind); sub(/\)/, "", kind)
                sub(/ \(.*/, "", s); sub(/model GC /, "", s); fields = "gc=" s "/none"
            } else if (rest ~ /\): kind: /) {
                match(rest, /kind: model [a-z]+, VM [a-z]+/); s = substr(rest, RSTART, RLENGTH); split(s, k, /[ ,]+/)
                kind = k[3]; fields = "kind=" k[3] "/" k[5]
            } else {
                s = rest; sub(/^.*\): /, "", s); split(s, k, /[:, ]+/)
                fields = k[1] "=" k[3] "/" k[5]; want_kind = 1
            }
            next
        }
        proc != "" && fields !~ /^(gc|kind)=/ && /^  also differing in this GC/ && also == "" {
            s = $0; sub(/^[^:]*: */, "", s); n = split(s, parts, /, /)
            for (i = 1; i <= n; i++) { split(parts[i], k, / /); fields = fields ";" k[1] "=" k[2] "/" k[4] }
            also = 1
        }
        want_kind && /^  model (tester|server) GC / { split($0, k, /[ :]+/); kind = k[9] }
        want_kind && /^  VM    / { want_kind = 0 }
        /^  GCs [0-9]+ \/ [0-9]+/ { m = $2; v = $4 }
        END {
            if (m == "") { printf "%-8s %6s %-9s %s\n", shape, len, "failed", "-"; exit }
            if (proc == "") printf "%-8s %6s %-9s %-6s %-14s %6s %-5s %-40s %6s %6s\n", shape, len, "yes", "-", "-", "-", "-", "-", m, v
            else printf "%-8s %6s %-9s %-6s %-14s %6s %-5s %-40s %6s %6s\n", shape, len, "no", proc, pass, op, kind, fields, m, v
        }'
}

# KEY of the ets_lookup pass's counters in a trace's metadata (# pass_ets_lookup_KEY: N), or -
lookup_meta() { awk -v k="# pass_ets_lookup_$2:" '$1 " " $2 == k { print $3; f = 1; exit } END { if (!f) print "-" }' "$1"; }

printf "%-8s %6s %-9s %-6s %-14s %6s %-5s %-40s %6s %6s\n" shape L identical proc pass op kind "fields (name=model/VM)" gcs_m gcs_vm
total=0 same=0 near=0 failed=0 drawn_same=0
for s in $shapes; do
    for l in $lens; do
        total=$((total + 1))
        echo "tracediff.sh: grid point $total: $s L $l ($(label ""))" >&2
        point "$s" "$l" "$n" >"$tmp/out" 2>"$tmp/err"
        rc=$?
        [ -n "$keep" ] && cp "$tmp/out" "$keep/$s-$l.txt"
        if [ "$rc" -eq 2 ]; then
            failed=$((failed + 1))
            printf "%-8s %6s %-9s %s\n" "$s" "$l" failed "$(head -n 1 "$tmp/err")"
            [ -z "$csv" ] || echo "$s,$l,failed,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-" >>"$tmp/csvrows"
            continue
        fi
        line=$(row "$s" "$l" <"$tmp/out")
        printf '%s\n' "$line"
        [ "$rc" -eq 0 ] && same=$((same + 1))
        read -r -a col <<<"$line"
        ndraws=$(draw_list "$tmp/model.csv" | wc -l)
        dcols="-,-,-,-,-" # draws_base, identical_drawn, draws_other, drawn_divergence, drawn_outcomes
        if [ "$search" -eq 1 ] && [ "$rc" -eq 0 ]; then
            dcols="-,yes,-,-,-" drawn_same=$((drawn_same + 1))
        elif [ "$search" -eq 1 ] && [ "$rc" -eq 1 ]; then
            search_draws "$tmp/out" "$s" "$l" || { echo "tracediff.sh: the draws' search failed at $s L $l" >&2; exit 2; }
            read -r -a dcol <<<"$(row "$s" "$l" <"$tmp/out")"
            if [ "${dcol[2]}" = yes ]; then
                drawn_same=$((drawn_same + 1)) div="-"
            else
                div="${dcol[3]} ${dcol[4]} ${dcol[5]} ${dcol[7]}"
            fi
            echo "  draws: $ndraws; the VM's trace with them $drawn_base, except $drawn_other: $([ "$div" = - ] && echo identical || echo "first divergence $div") (model runs: $drawn_tries)"
            dcols="$drawn_base,${dcol[2]},$drawn_other,$div,$drawn_outcomes"
            if [ -n "$keep" ]; then
                cp "$tmp/out" "$keep/$s-$l-drawn.txt" && cp "$tmp/model.csv" "$keep/model-$s-$l-drawn.csv" || exit 2
            fi
        fi
        if [ -n "$csv" ]; then
            # the VM traces' own account of themselves, from the first point that ran
            [ -s "$tmp/vmmeta" ] || grep -E '^# (date|otp_release|erts|emulator_flags|emu_flavor|tracer|cpu|kernel|loadavg):' "$tmp/vm.csv" \
                | sed 's/^# /# vm_/' >"$tmp/vmmeta"
            if [ "${col[2]}" = failed ]; then # tracediff gave no summary
                echo "$s,$l,failed,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-" >>"$tmp/csvrows"
            else
                lcols="$(lookup_meta "$tmp/model.csv" faults),$(lookup_meta "$tmp/vm.csv" faults),$(lookup_meta "$tmp/model.csv" mseg_create),$(lookup_meta "$tmp/vm.csv" mseg_create)"
                echo "$s,$l,${col[2]},${col[3]},${col[4]},${col[5]},${col[6]},${col[7]},${col[8]},${col[9]},$ndraws,$dcols,$lcols" >>"$tmp/csvrows"
            fi
        fi
        m=${col[8]:-} v=${col[9]:-}
        [[ "$m" =~ ^[0-9]+$ && "$v" =~ ^[0-9]+$ ]] && awk -v m="$m" -v v="$v" 'BEGIN { d = m - v; if (d < 0) d = -d; exit !(d <= 0.03 * v) }' && near=$((near + 1))
    done
done
echo "grid summary ($(label "$n")): $total points, identical $same, GCs within 3 % $near$([ "$search" -eq 0 ] || echo ", identical with the draws searched $drawn_same")$([ "$failed" -eq 0 ] || echo ", failed $failed")"
if [ -n "$csv" ]; then
    {
        echo "# experiment: tracediff.sh --grid (eptest's tester and server, spawn to exit: the VM's GC trace against the model's, event by event)"
        echo "# vm_traces: $([ -n "$replay" ] && echo "kept traces ($replay)" || echo "this run ($flags)")"
        cat "$tmp/vmmeta" 2>/dev/null
        echo "# model: gctrace (termcopy), git $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD 2>/dev/null || echo -dirty)${sets_txt:+; policy changes:$sets_txt}"
        echo "# calls_per_pass: $n"
        echo "# draws_searched: $([ "$search" -eq 1 ] && echo "yes (--search-draws)" || echo "no")"
        echo "# columns: identical = every GC event of both processes equal; proc, pass, op, kind, fields = the first divergent event (fields as name=model/VM; gc=model/VM where one side has no GC there); model_gcs, vm_gcs = both processes' GCs; draws = the model's dirty-GC race draws with the era's outcomes; with --search-draws, where the traces differ: draws_base, draws_other = the outcomes the search set (all draws draws_base, except draws_other: t118s = the tester's 118th GC's draw, the server first), identical_drawn, drawn_divergence = the result (proc pass op fields of the first divergence left), drawn_outcomes = every draw's outcome in runs (g117 s1: 117 GC first, then one server first); model_lookup_faults, vm_lookup_faults, model_lookup_segments, vm_lookup_segments = the ets_lookup pass's minor faults and segments mapped (mseg creates), each side's own count"
        echo "shape,payload_len,identical,proc,pass,op,kind,fields,model_gcs,vm_gcs,draws,draws_base,identical_drawn,draws_other,drawn_divergence,drawn_outcomes,model_lookup_faults,vm_lookup_faults,model_lookup_segments,vm_lookup_segments"
        cat "$tmp/csvrows" 2>/dev/null
    } >"$csv"
fi
[ "$failed" -eq 0 ] || exit 2
[ "$same" -eq "$total" ]
