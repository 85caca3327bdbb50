#!/usr/bin/env bash
# Every experiment binary's out-of-memory exits: a tiny run of each with the Nth library
# allocation failing (TC_MEM_FAIL_AT=N), for every N up to 64 and then in steps of a
# quarter, until the run succeeds. Each failing run must end with status 1 and a message on
# stderr, never a crash, a hang or a sanitizer report (in the ASan build LeakSanitizer
# checks that no exit path leaks). Each run writes its CSV over a file holding GOOD: every
# failing run must leave GOOD in place (experiments/output.h), the run that succeeds must
# replace it with its own CSV. $1: build directory root; $2: tests/data.
set -u
exp="$1/experiments"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }

sweep() { # NAME ARGS...
    local name="$1" n=1 runs=0 rc ok
    shift
    [ -x "$exp/$name" ] || { echo "cli_enomem: $name not built: skipped"; return; }
    echo GOOD > "$tmp/keep.csv"
    while :; do
        TC_MEM_FAIL_AT=$n timeout 120 "$exp/$name" "$@" --csv "$tmp/keep.csv" >/dev/null 2>"$tmp/err" </dev/null
        rc=$?
        runs=$((runs + 1))
        if [ "$rc" -eq 0 ]; then
            grep -q '^# git' "$tmp/keep.csv"; check "$name's successful run replaced the CSV" $?
            break
        fi
        [ "$rc" -eq 1 ] && [ -s "$tmp/err" ] && ! grep -qE 'Sanitizer|runtime error|Assertion|Backtrace' "$tmp/err" &&
            [ "$(cat "$tmp/keep.csv")" = GOOD ] && [ "$(find "$tmp" -name '.keep.csv.*' | wc -l)" -eq 0 ]
        ok=$?
        check "$name with allocation $n failing: exit $rc, the CSV '$(head -c 20 "$tmp/keep.csv")', $(head -c 200 "$tmp/err" | tr '\n' ' ')" "$ok"
        [ "$ok" -eq 0 ] || break
        if [ "$n" -lt 64 ]; then n=$((n + 1)); else n=$((n + n / 4)); fi
        [ "$n" -le 100000000 ] || { check "$name never succeeded" 1; break; }
    done
    echo "cli_enomem: $name: $runs runs, the last with allocation $n failing succeeded (exit $rc)"
}

# A level-0 build has no fault injection (terms/base.h): the binaries refuse TC_MEM_FAIL_AT.
if [ -x "$exp/eptest" ] && ! TC_MEM_FAIL_AT=1000000000 "$exp/eptest" --len 10 --iterations 1 --repeats 1 \
    >/dev/null 2>"$tmp/err" </dev/null; then
    grep -q 'no fault injection' "$tmp/err" && { echo "cli_enomem: $(cat "$tmp/err"): skipped"; exit 77; }
fi

sweep eptest --len 10 --iterations 2 --repeats 1
sweep ablate --quick --era otp25 --len 10 --iterations 2 --repeats 1
sweep crossover --quick --shape ints --era otp25 --iterations 2 --repeats 1
sweep breakdown --quick --era otp25 --len 10 --iterations 2 --repeats 1
sweep heaptrace --len 100 --iterations 5
sweep gctrace --len 100 --iterations 5
sweep etsbench --iterations 100 --repeats 1
sweep copysweep --quick

echo "cli_enomem: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
