#!/usr/bin/env bash
# The band edges of the lookup loop (ints, lists:seq(1, L)), on the VM and on the model, each
# found by bisection on its own side: an edge is the first length where eptest's ets_lookup
# pass falls into the next band, its GCs per 1000 lookups dropping sharply (below 80 % of the
# length before) as minor faults appear (over 1000 more per 1000 lookups). The coarse
# intervals come from a sweep CSV (experiments/beam/sweep.sh, every 250); each side's own
# columns give its own intervals, and each is bisected down to one element by running that
# side's eptest (1000 lookups, 1 tester) at the midpoint, which belongs to the band whose GC
# count it is nearer. Prints one row per edge: edge_vm, edge_model, difference % (model
# against VM; "-" where one side has no edge in that interval).
#
# usage: experiments/beam/bands.sh [--sweep FILE] [--bin DIR] [--from L] [--to L] [--csv FILE]
#                                  [--model-only BANDS_CSV]
#   --sweep FILE  the coarse grid (default report/data/fidelity-sweep.csv)
#   --bin DIR     where the model's eptest is (default build/release/experiments)
#   --from, --to  only intervals within [from, to] (default the whole sweep)
#   --csv FILE    also write the table as CSV (with '#' metadata lines)
#   --model-only BANDS_CSV  bisect the model's side only (no erl needed); the VM's edges are
#                 BANDS_CSV's edge_vm column, as measured (report/recompute.sh: the model's
#                 column of a committed table from the current code)
# About 5 s per bisection step on the shared machine, 8 steps per interval and side.
# Progress goes to standard error. Without erl it says so and exits 0.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sweep="$root/report/data/fidelity-sweep.csv" bin="$root/build/release/experiments" from=0 to=1000000 csv="" vm_edges=""
while [ $# -gt 0 ]; do
    case "$1" in
    --sweep) sweep="${2:?--sweep needs a file}"; shift ;;
    --bin) bin="${2:?--bin needs a directory}"; shift ;;
    --from) from="${2:?--from needs a length}"; shift ;;
    --to) to="${2:?--to needs a length}"; shift ;;
    --csv) csv="${2:?--csv needs a file}"; shift ;;
    --model-only) vm_edges="${2:?--model-only needs the bands CSV}"; shift ;;
    --help|-h) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bands.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done
for v in "$from" "$to"; do
    case "$v" in '' | *[!0-9]*) echo "bands.sh: --from/--to must be lengths, not '$v'" >&2; exit 2 ;; esac
done
[ -r "$sweep" ] || { echo "bands.sh: cannot read $sweep (run experiments/beam/sweep.sh first)" >&2; exit 2; }
[ -x "$bin/eptest" ] || { echo "bands.sh: $bin/eptest not built (cmake --build build/release)" >&2; exit 2; }
[ -z "$vm_edges" ] || [ -r "$vm_edges" ] || { echo "bands.sh: cannot read $vm_edges" >&2; exit 2; }
if [ -z "$vm_edges" ] && { ! command -v erl >/dev/null 2>&1 || ! command -v erlc >/dev/null 2>&1; }; then
    echo "erl not found: skipping the band bisection; apt-get install erlang-nox"
    exit 0
fi
lib="$(cat "$root/report/csv.awk") BEGIN { csv_who = \"bands.sh\" }" || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/termcopy-bands.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
export ERL_CRASH_DUMP="$tmp/erl_crash.dump"
[ -n "$vm_edges" ] || erlc -o "$tmp" "$here/eptest.erl" || exit 1

# The coarse intervals of one side: "a b gcs_a gcs_b" where the lookup loop changes band.
intervals() {
    awk -v side="$1" -v from="$from" -v to="$to" "$lib"'
        !csv_row() { next }
        csv_get("shape") == "ints" {
            l = csv_get("payload_len") + 0
            if (l < from || l > to) next
            g = csv_get(side "_lookup_gcs") + 0; f = csv_get(side "_lookup_faults") + 0
            if (n && g < 0.8 * pg && f > pf + 1000) print pl, l, pg, g
            pl = l; pg = g; pf = f; n++
        }' "$sweep"
}

# The lookup pass's GCs per 1000 lookups at length L on one side.
gcs_at() {
    if [ "$1" = vm ]; then
        # </dev/null: the loop over the intervals reads its file on standard input
        erl -noshell +S 2:2 -pa "$tmp" -s eptest main -extra --len "$2" --repeats 1 --csv "$tmp/p.csv" </dev/null >/dev/null 2>&1
    else
        "$bin/eptest" --era otp25 --len "$2" --repeats 1 --csv "$tmp/p.csv" </dev/null >/dev/null 2>&1
    fi || { echo "bands.sh: the $1 eptest failed at L = $2" >&2; return 1; }
    awk "$lib"' !csv_row() { next } csv_get("test") == "ets_lookup" { print csv_get("gcs") * 1000 / csv_get("iterations") }' "$tmp/p.csv"
}

# bisect SIDE A B GA GB: the first length of B's band.
bisect() {
    local side=$1 a=$2 b=$3 ga=$4 gb=$5 mid g
    while [ $((b - a)) -gt 1 ]; do
        mid=$(((a + b) / 2))
        g=$(gcs_at "$side" "$mid") || return 1
        echo "bands.sh: $side L = $mid: $g GCs (bands $ga / $gb; interval $a..$b)" >&2
        if awk -v g="$g" -v ga="$ga" -v gb="$gb" 'BEGIN { d1 = g - ga; d2 = g - gb; exit !((d2 < 0 ? -d2 : d2) < (d1 < 0 ? -d1 : d1)) }'; then
            b=$mid
        else
            a=$mid
        fi
    done
    echo "$b"
}

intervals vm >"$tmp/vm.iv" && intervals model >"$tmp/model.iv" || exit 1
: >"$tmp/edges"
sides="vm model"
if [ -n "$vm_edges" ]; then
    # the VM's edges as measured: "vm A B EDGE" from each row with one
    awk "$lib"'!csv_row() { next } csv_get("edge_vm") ~ /^[0-9]+$/ { i = csv_get("interval"); split(i, ab, /[.][.]/)
        if (ab[1] + 0 >= from && ab[2] + 0 <= to) print "vm", ab[1], ab[2], csv_get("edge_vm") }' from="$from" to="$to" "$vm_edges" >"$tmp/edges" || exit 1
    sides=model
fi
for side in $sides; do
    while read -r a b ga gb; do
        e=$(bisect "$side" "$a" "$b" "$ga" "$gb") || exit 1
        echo "$side $a $b $e" >>"$tmp/edges"
    done <"$tmp/$side.iv"
done
# Pair the edges by coarse interval (a model edge one interval away still pairs).
awk '
    { side[NR] = $1; a[NR] = $2; b[NR] = $3; e[NR] = $4 }
    END {
        print "interval,edge_vm,edge_model,difference_pct"
        for (i = 1; i <= NR; i++) if (side[i] == "vm") {
            best = 0
            for (j = 1; j <= NR; j++)
                if (side[j] == "model" && !used[j] && a[j] >= a[i] - 250 && a[j] <= a[i] + 250) { best = j; break }
            if (best) { used[best] = 1; printf "%d..%d,%d,%d,%.2f\n", a[i], b[i], e[i], e[best], 100 * (e[best] - e[i]) / e[i] }
            else printf "%d..%d,%d,-,-\n", a[i], b[i], e[i]
        }
        for (j = 1; j <= NR; j++) if (side[j] == "model" && !used[j]) printf "%d..%d,-,%d,-\n", a[j], b[j], e[j]
    }' "$tmp/edges" >"$tmp/table.csv"
column -t -s, "$tmp/table.csv"
if [ -n "$csv" ]; then
    {
        echo "# experiment: band edges of the lookup loop (ints), bisected on each side (experiments/beam/bands.sh)"
        echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "# git: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
        echo "# machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1) ($(nproc) online); $(uname -sr)"
        echo "# sweep: $sweep ($(sed -n 's/^# git: //p' "$sweep" | head -1))"
        [ -z "$vm_edges" ] || echo "# edge_vm: as measured in $vm_edges; edge_model bisected here (--model-only)"
        echo "# edge: the first length of the next band (lookup GCs down to under 80 %, faults up by over 1000 per 1000 lookups)"
        cat "$tmp/table.csv"
    } >"$csv" || { echo "bands.sh: cannot write $csv" >&2; exit 2; }
fi
