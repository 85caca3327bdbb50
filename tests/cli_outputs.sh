#!/usr/bin/env bash
# Result files survive a failed run (experiments/output.h): two outputs that are one file are
# refused before anything is written; SIGINT keeps the previous CSV and says so; every binary's
# --help to a full disk exits non-zero. (Out-of-memory failures: cli_enomem.sh.)
# $1: build directory root; $2: tests/data.
set -u
exp="$1/experiments"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }
cd "$tmp" || exit 1

echo GOOD > f.csv
"$exp/crossover" --quick --shape ints --iterations 2 --repeats 1 --csv f.csv --summary f.csv >/dev/null 2>err
[ $? -eq 2 ] && grep -q 'same file' err && [ "$(cat f.csv)" = GOOD ]; check "--csv f --summary f refused, f kept" $?
"$exp/crossover" --quick --shape ints --iterations 2 --repeats 1 --csv f.csv --summary ./f.csv >/dev/null 2>err
[ $? -eq 2 ] && grep -q 'same file' err; check "--csv f --summary ./f refused" $?
ln -s f.csv g.csv
"$exp/crossover" --quick --shape ints --iterations 2 --repeats 1 --csv f.csv --summary g.csv >/dev/null 2>err
[ $? -eq 2 ] && grep -q 'same file' err && [ "$(cat f.csv)" = GOOD ]; check "a symlink to the other output refused" $?
"$exp/crossover" --quick --shape ints --iterations 2 --repeats 1 --csv f.csv --summary s.csv >/dev/null 2>err
[ $? -eq 0 ] && grep -q '^# git' f.csv && grep -q '^# git' s.csv; check "two distinct outputs written" $?

echo GOOD > keep.csv
"$exp/etsbench" --csv keep.csv >/dev/null 2>err &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -ne 0 ] && [ "$(cat keep.csv)" = GOOD ] && grep -q "previous 'keep.csv' is kept" err &&
    [ "$(find . -name '.keep.csv.*' | wc -l)" -eq 0 ]; check "SIGINT keeps the previous CSV and says so (exit $rc)" $?

"$exp/gctrace" --len 100 --iterations 5 --csv /dev/full >/dev/null 2>&1; [ $? -ne 0 ] && [ -c /dev/full ]
check "--csv /dev/full fails and /dev/full stays a device (a non-regular file is written in place)" $?
for b in eptest ablate crossover breakdown copysweep etsbench heaptrace gctrace unitcost tracediff codecpeer; do
    [ -x "$exp/$b" ] || continue
    "$exp/$b" --help > /dev/full 2>/dev/null; [ $? -ne 0 ]; check "$b --help > /dev/full exits non-zero" $?
done

echo "cli_outputs: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
