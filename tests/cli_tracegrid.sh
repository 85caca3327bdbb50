#!/usr/bin/env bash
# experiments/beam/tracediff.sh --grid from the outside: a two-point +S 1:1 grid of eptest's
# tester (ints at L = 10 and 100, 20 calls per pass) prints the header, one row per point
# (shape, L, yes or no, and for a divergent point its process, pass, op, GC kind and the
# fields as name=model/VM; the GCs of both sides) and the summary line, with progress on
# standard error; which points are identical is not asserted (that is the model's fidelity,
# not the command's). Bad arguments exit 2 with one line. --replay, --set and --term first,
# without erl: a kept trace is compared again with the model under a changed policy field,
# and a caller's term's trace with the model's of it; --search-draws finds the dirty-GC race's
# outcomes under which a trace that differs is the model's (--draws, --draws-hint); --vm-flags
# is for a VM run, not a replay. The rest
# skips (77) without erl. $1: build directory root.
set -u
exp="$1/experiments"
here=$(cd "$(dirname "$0")" && pwd)
td="$here/../experiments/beam/tracediff.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }

# --replay: a kept "VM" trace (here the model's own, written as --keep names it) against the
# model again: identical; with --set dirty_gc_first=off the model's strings L = 5000 tester
# starts its long GC of proc1's 12th call after the server's reply is in its queue (two
# fragments of Data where the kept trace, GC first, has one), so the point differs there; a
# point with no kept trace fails with one line and exit 2.
mkdir -p "$tmp/rp" && "$exp/gctrace" --tester --shape strings --len 5000 --iterations 20 --csv "$tmp/rp/vm-strings-5000.csv" >/dev/null 2>&1
check "gctrace --tester writes the trace to replay" $?
"$td" --bin "$exp" --grid --shapes strings --lens 5000 --replay "$tmp/rp" 20 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && awk 'NR == 2 && $1 == "strings" && $2 == 5000 && $3 == "yes"' "$tmp/out" | grep -q . &&
    grep -q "^grid summary (VM traces of $tmp/rp, N 20): 1 points, identical 1, GCs within 3 % 1\$" "$tmp/out" &&
    grep -q "^tracediff.sh: grid point 1: strings L 5000 (VM traces of $tmp/rp)\$" "$tmp/err"
ok=$?; check "--replay with the model's own trace: identical, exit $rc: $(head -c 400 "$tmp/out" "$tmp/err")" $ok
"$td" --bin "$exp" --grid --shapes strings --lens 5000 --replay "$tmp/rp" --set dirty_gc_first=off 20 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && awk 'NR == 2 && $3 == "no" && $4 == "tester" && $5 == "proc1" && $6 == 12 && $8 ~ /^mbuf_size_s=95578\/47789/' "$tmp/out" | grep -q . &&
    grep -q "^grid summary (VM traces of $tmp/rp, N 20; model --set dirty_gc_first=off): 1 points, identical 0," "$tmp/out"
ok=$?; check "--set dirty_gc_first=off: the model's GC at proc1 op 12 has two replies' fragments, exit $rc: $(head -c 600 "$tmp/out" "$tmp/err")" $ok
"$td" --bin "$exp" --grid --shapes strings --lens "5000 6000" --replay "$tmp/rp" 20 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && awk 'NR == 3 && $2 == 6000 && $3 == "failed"' "$tmp/out" | grep -q "no VM trace $tmp/rp/vm-strings-6000.csv" &&
    grep -q ", failed 1\$" "$tmp/out"
ok=$?; check "--replay without a kept trace for a point: that row failed, exit $rc" $ok
# --csv: the grid as CSV (its rows as the table's, a failed point's too), the kept traces'
# metadata under vm_ names
"$td" --bin "$exp" --grid --shapes strings --lens "5000 6000" --replay "$tmp/rp" --set dirty_gc_first=off --csv "$tmp/g.csv" 20 >/dev/null 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q '^# experiment: tracediff.sh --grid ' "$tmp/g.csv" && grep -q '^# calls_per_pass: 20$' "$tmp/g.csv" &&
    grep -q '^# model: gctrace (termcopy), git .*; policy changes: --set dirty_gc_first=off$' "$tmp/g.csv" &&
    grep -q '^# vm_date: ' "$tmp/g.csv" && [ "$(grep -vc '^#' "$tmp/g.csv")" -eq 3 ] &&
    grep -q '^shape,payload_len,identical,proc,pass,op,kind,fields,model_gcs,vm_gcs,draws,draws_base,identical_drawn,draws_other,drawn_divergence,drawn_outcomes,model_lookup_faults,vm_lookup_faults,model_lookup_segments,vm_lookup_segments$' "$tmp/g.csv" &&
    grep -q '^strings,5000,no,tester,proc1,12,minor,mbuf_size_s=95578/47789;[^,]*,[0-9][0-9]*,[0-9][0-9]*,[1-9][0-9]*,-,-,-,-,-,[0-9][0-9]*,[0-9][0-9]*,[0-9][0-9]*,[0-9][0-9]*$' "$tmp/g.csv" &&
    grep -q '^strings,6000,failed,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-$' "$tmp/g.csv" && grep -q '^# draws_searched: no$' "$tmp/g.csv"
ok=$?; check "--csv: metadata, header and one row per point, exit $rc: $(grep -v '^# vm_' "$tmp/g.csv" | head -c 900)" $ok
# the lookup pass's segments: the kept trace's own count (its metadata) beside the model's
want=$(awk '$1 " " $2 == "# pass_ets_lookup_mseg_create:" { print $3 }' "$tmp/rp/vm-strings-5000.csv")
[ -n "$want" ] && awk -F, -v w="$want" '$1 == "strings" && $2 == 5000 && $20 == w' "$tmp/g.csv" | grep -q .
ok=$?; check "--csv: vm_lookup_segments is the kept trace's pass_ets_lookup_mseg_create ($want)" $ok
"$td" --help | grep -q -- '^  --csv FILE  --grid: also the grid as CSV' && "$td" --help | grep -q '^Exit status: '
check "--help: the whole header, --csv and the exit status among it" $?
"$td" --bin "$exp" --tester ints --replay "$tmp/rp" --csv "$tmp/x.csv" 100 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- '--csv goes with --grid' "$tmp/err"
ok=$?; check "--csv without --grid: exit $rc, $(cat "$tmp/err")" $ok
# --search-draws: a kept trace whose dirty-GC race went the server's way at its second draw
# (gctrace --draws gs) differs from the model's (GC first at every draw); the search finds
# the draws that give it back: the era's outcome (g) but for the tester's draw there, and
# says so in the table and the CSV; given that CSV as --draws-hint, one model run confirms it.
# The options' misuse exits 2 with one line.
mkdir -p "$tmp/sd" && "$exp/gctrace" --tester --shape strings --len 5000 --iterations 20 --draws gs --csv "$tmp/sd/vm-strings-5000.csv" >/dev/null 2>&1 &&
    grep -q "^# draws_given: g1 s1$" "$tmp/sd/vm-strings-5000.csv" && grep -q '^# draws: t[0-9]*g t[0-9]*s t[0-9]*g' "$tmp/sd/vm-strings-5000.csv"
check "gctrace --draws: the outcomes given, and every draw taken in the metadata" $?
second=$(awk '/^# draws:/ { print substr($4, 1, length($4) - 1); exit }' "$tmp/sd/vm-strings-5000.csv")
"$td" --bin "$exp" --grid --shapes strings --lens 5000 --replay "$tmp/sd" --search-draws --csv "$tmp/sd.csv" 20 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && awk 'NR == 2 && $3 == "no"' "$tmp/out" | grep -q . &&
    grep -q "^  draws: [0-9]*; the VM's trace with them g, except ${second}s: identical (model runs: [0-9]*)\$" "$tmp/out" &&
    grep -q ", identical with the draws searched 1\$" "$tmp/out" &&
    grep -q "^strings,5000,no,.*,g,yes,${second}s,-,g1 s1 g[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*\$" "$tmp/sd.csv" && grep -q '^# draws_searched: yes' "$tmp/sd.csv"
ok=$?; check "--search-draws: the draw that went the server's way found, identical, exit $rc: $(head -c 900 "$tmp/out" "$tmp/err")" $ok
"$td" --bin "$exp" --grid --shapes strings --lens 5000 --replay "$tmp/sd" --search-draws --draws-hint "$tmp/sd.csv" 20 >"$tmp/out" 2>&1
grep -q "except ${second}s: identical (model runs: 1)\$" "$tmp/out"
ok=$?; check "--draws-hint: the outcomes found before, confirmed in one model run: $(head -c 600 "$tmp/out")" $ok
"$td" --bin "$exp" --grid --shapes strings --lens 5000 --replay "$tmp/sd" --search-draws --search-limit 1 20 >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -q "^  draws: [0-9]*; the VM's trace with them g, except -: first divergence tester " "$tmp/out" &&
    grep -q ", identical with the draws searched 0\$" "$tmp/out"
ok=$?; check "--search-limit 1: the search stops before changing a draw, the divergence left shown, exit $rc: $(head -c 600 "$tmp/out")" $ok
cp "$tmp/sd/vm-strings-5000.csv" "$tmp/sd/vm-5000.csv" && "$td" --bin "$exp" --tester strings --replay "$tmp/sd" --draws gs 5000 20 >"$tmp/out" 2>&1
ok=$?; check "--tester --draws gs against that trace: identical: $(tail -c 400 "$tmp/out")" $ok
for bad in "--grid --draws gs 20" "--tester ints --draws gx 100" "--grid --draws-hint $tmp/sd.csv 20" "--search-draws 100" \
    "--grid --vm-flags +Mut 20" "--grid --vm-flags Mut 20" "--grid --search-limit 5 20" "--grid --search-draws --search-limit 0 20"; do
    # shellcheck disable=SC2086 # the options are words
    "$td" --bin "$exp" $bad --replay "$tmp/sd" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ]
    ok=$?; check "tracediff.sh $bad: exit $rc, $(cat "$tmp/err")" $ok
done
"$exp/gctrace" --tester --draws gq --len 100 >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q -- '--draws' "$tmp/err"
ok=$?; check "gctrace --draws with a bad letter: exit $rc, $(cat "$tmp/err")" $ok
"$exp/gctrace" --draws g --len 100 >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q -- '--tester' "$tmp/err"
ok=$?; check "gctrace --draws without --tester: exit $rc, $(cat "$tmp/err")" $ok
# The VM's own traces, committed for the report (report/data/tracegrid-s1-vm.tar.xz, +S 1:1):
# at these points the model's tester and server are the VM's, event for event, for their whole
# lives (the report replays every point)
mkdir -p "$tmp/vm" && tar -xJf "$here/../report/data/tracegrid-s1-vm.tar.xz" -C "$tmp/vm" vm-ints-100.csv vm-tuple-1000.csv vm-map-500.csv
check "the committed VM traces unpack" $?
for pt in ints:100 tuple:1000 map:500; do
    "$td" --bin "$exp" --grid --shapes "${pt%:*}" --lens "${pt#*:}" --replay "$tmp/vm" --csv "$tmp/vm-$pt.csv" >/dev/null 2>&1
done
[ "$(cat "$tmp"/vm-*:*.csv | grep -c '^ints,100,yes,\|^tuple,1000,yes,\|^map,500,yes,')" -eq 3 ] && grep -q '^# vm_emulator_flags: -noshell +S 1:1$' "$tmp/vm-ints:100.csv"
ok=$?; check "the committed VM traces at ints 100, tuple 1000, map 500: identical to the model's: $(cat "$tmp"/vm-*:*.csv | grep -v '^#' | head -c 600)" $ok
# A committed point where the VM's race went otherwise (tuple L = 30000: one draw the server
# first): the model differs with the era's outcomes and is the VM's with those the last search
# found (report/data/tracegrid-s1-draws.csv), which one model run confirms. If this fails
# after a model change, the search still finds outcomes (./run report does), but the committed
# ones are stale: rerun the search (the file's made_by line) and commit them.
tar -xJf "$here/../report/data/tracegrid-s1-vm.tar.xz" -C "$tmp/vm" vm-tuple-30000.csv
"$td" --bin "$exp" --grid --shapes tuple --lens 30000 --replay "$tmp/vm" --search-draws \
    --draws-hint "$here/../report/data/tracegrid-s1-draws.csv" >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -q "^  draws: [0-9]*; the VM's trace with them g, except t[0-9]*s: identical (model runs: 1)\$" "$tmp/out"
ok=$?; check "the committed VM trace at tuple 30000: the model's with the committed draws, confirmed in one run, exit $rc: $(grep -v '^tracediff.sh: grid point' "$tmp/out" | head -c 600)" $ok
# A point that differs where the model's run takes no draw (ints L = 100 has no long GC; the
# kept trace's first GC altered by a word): the search has nothing to set, says so and goes
# on to the summary.
mkdir -p "$tmp/nd" && awk -F, -v OFS=, '/^#/ { print; next }
    !h { for (i = 1; i <= NF; i++) if ($i == "heap_size_e") c = i; h = 1; print; next } !done { $c += 1; done = 1 } { print }' \
    "$tmp/vm/vm-ints-100.csv" >"$tmp/nd/vm-ints-100.csv"
"$td" --bin "$exp" --grid --shapes ints --lens 100 --replay "$tmp/nd" --search-draws --csv "$tmp/nd.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "^  draws: 0; the VM's trace with them -, except -: first divergence tester spawn 0 " "$tmp/out" &&
    grep -q ', identical with the draws searched 0$' "$tmp/out" && grep -q '^ints,100,no,.*,0,-,no,-,tester spawn 0 ' "$tmp/nd.csv"
ok=$?; check "--search-draws at a point that differs with no draw: none set, exit $rc: $(head -c 900 "$tmp/out" "$tmp/err")" $ok
# --term FILE: the tester's run on a caller's term (termcopy explain's), replayed against the
# model's own trace of it: identical; the same trace against another term's run fails as a
# comparison of different loops. gctrace --term reads the term's text, and says why it cannot.
printf '{user, 42, <<"ann@example.org">>, [admin, dev], 1.5e3}\n' >"$tmp/rec.txt"
printf '[1, 2, 3, 4]\n' >"$tmp/other.txt"
mkdir -p "$tmp/rt" && "$exp/gctrace" --tester --term "$tmp/rec.txt" --iterations 20 --csv "$tmp/rt/vm-term.csv" >/dev/null 2>&1 &&
    grep -q '^# loop_shape: term$' "$tmp/rt/vm-term.csv"
check "gctrace --tester --term writes a trace of the term" $?
"$td" --bin "$exp" --term "$tmp/rec.txt" --replay "$tmp/rt" 20 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && grep -q "^tracediff.sh: eptest's tester, the term of $tmp/rec.txt, N 20, VM traces of $tmp/rt\$" "$tmp/out" &&
    grep -q '^tester: identical: ' "$tmp/out"
ok=$?; check "--term --replay with the model's own trace: identical, exit $rc: $(head -c 400 "$tmp/out" "$tmp/err")" $ok
"$td" --bin "$exp" --term "$tmp/other.txt" --replay "$tmp/rt" 20 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'different loops' "$tmp/out" "$tmp/err"
ok=$?; check "--term --replay with another term's trace: not comparable, exit $rc: $(head -c 400 "$tmp/out" "$tmp/err")" $ok
printf '{unclosed, 1\n' >"$tmp/bad.txt"
for bad in "--term $tmp/rec.txt" "--tester --term $tmp/none.txt" "--tester --term $tmp/bad.txt"; do
    "$exp/gctrace" $bad --iterations 5 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ]
    ok=$?; check "gctrace $bad: exit $rc, one line: $(cat "$tmp/err")" $ok
done
for bad in "--grid --replay $tmp/none" "--grid --set dirty_gc_first" "--grid --set =on" "--grid --replay $tmp/rp --tracer nif" \
    "--term $tmp/none.txt" "--term $tmp/rec.txt --grid" "--term $tmp/rec.txt --tester ints" "--term $tmp/rec.txt 5 6"; do
    "$td" --bin "$exp" $bad >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ]
    ok=$?; check "bad arguments '$bad': exit $rc, $(cat "$tmp/err")" $ok
done

if ! command -v erl >/dev/null 2>&1 || ! command -v erlc >/dev/null 2>&1; then
    echo "cli_tracegrid: $pass passed, $fails failed; the rest skipped: erl not found"
    [ "$fails" -eq 0 ] || exit 1
    exit 77
fi

"$td" --bin "$exp" --grid --schedulers 1 --shapes ints --lens "10 100" --keep "$tmp/keep" 20 >"$tmp/out" 2>"$tmp/err"
rc=$?
{ [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; } && [ "$(wc -l <"$tmp/out")" -eq 4 ] && head -n 1 "$tmp/out" | grep -q '^shape  *L identical proc'
ok=$?; check "grid of two points: exit $rc, a header, two rows and a summary: $(head -c 400 "$tmp/out" "$tmp/err")" $ok
rows=$(awk 'NR > 1 && NR < 4 && $1 == "ints" && ($2 == 10 || $2 == 100) &&
            (($3 == "yes" && $4 == "-" && NF == 10) ||
             ($3 == "no" && ($4 == "tester" || $4 == "server") && $6 ~ /^[0-9]+$/ && ($7 == "minor" || $7 == "major") && $8 ~ /=/ && NF == 10)) &&
            $9 ~ /^[0-9]+$/ && $10 ~ /^[0-9]+$/' "$tmp/out" | wc -l)
[ "$rows" -eq 2 ]; check "each row: shape, L, yes/no, the divergence's columns, both GC counts" $?
same=$(awk 'NR > 1 && $3 == "yes"' "$tmp/out" | wc -l)
grep -q "^grid summary (+S 1:1, N 20, tracer \(nif\|process\)): 2 points, identical $same, GCs within 3 % [0-2]\$" "$tmp/out"
check "the summary counts the rows' identical points" $?
{ [ "$same" -eq 2 ] && [ "$rc" -eq 0 ]; } || { [ "$same" -lt 2 ] && [ "$rc" -eq 1 ]; }
check "exit $rc: 0 only when every point is identical ($same of 2)" $?
[ "$(grep -c '^tracediff.sh: grid point [12]: ints L [0-9]* (+S 1:1, tracer \(nif\|process\))$' "$tmp/err")" -eq 2 ]
check "progress on standard error, a line per point" $?
[ -s "$tmp/keep/ints-10.txt" ] && [ -s "$tmp/keep/vm-ints-100.csv" ] && [ -s "$tmp/keep/model-ints-100.csv" ]
check "--keep leaves each point's report and CSVs" $?

for bad in "--grid --shapes cubes" "--grid --lens 0" "--grid --lens x1" "--grid --shapes ''" \
    "--grid --tester ints" "--grid --schedulers 3" "--grid 10 20" "--grid 0" "--grid --bogus" "--grid --tracer file"; do
    eval "\"\$td\" --bin \"\$exp\" $bad" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ]
    ok=$?; check "bad arguments '$bad': exit $rc, $(cat "$tmp/err")" $ok
done

echo "cli_tracegrid: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
