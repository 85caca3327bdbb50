#!/usr/bin/env bash
# Bounded resources for any input: small adversarial inputs to termcopy, each measured with
# /usr/bin/time. Peak RSS must stay under 64 times the bytes in and out plus 64 MiB, and
# the wall time under LIMIT_S seconds; the exit status is the expected one (2 for a refused
# input). Skipped (77) in a sanitizer build, whose shadow memory is not the program's.
# $1: directory of the termcopy binary; $2: tests/data.
set -u
bin="$1/termcopy"
LIMIT_S=10
if ldd "$bin" 2>/dev/null | grep -qE 'libasan|libtsan' || nm "$bin" 2>/dev/null | grep -q '__asan_init'; then
    echo "cli_resources: a sanitizer build; RSS is not the program's own: skipped"
    exit 77
fi
[ -x /usr/bin/time ] || { echo "cli_resources: /usr/bin/time missing (apt-get install time)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }

# measure DESC RC INPUT_FILE ARGS...: runs termcopy ARGS with INPUT_FILE on stdin.
measure() {
    local desc="$1" want="$2" input="$3"; shift 3
    /usr/bin/time -f '%e %M' -o "$tmp/time" "$bin" "$@" <"$input" >"$tmp/out" 2>"$tmp/err"
    local rc=$? secs kb in out bound ok
    # GNU time puts "Command exited with non-zero status N" first when the status is not 0
    read -r secs kb < <(tail -n 1 "$tmp/time")
    in=$(($(stat -c %s "$input") + $(printf '%s' "$*" | wc -c)))
    out=$(($(stat -c %s "$tmp/out") + $(stat -c %s "$tmp/err")))
    bound=$(((64 * (in + out)) / 1024 + 65536))
    [ "$rc" -eq "$want" ] && [ "$kb" -le "$bound" ] && awk -v s="$secs" -v l="$LIMIT_S" 'BEGIN { exit !(s <= l) }'
    ok=$?
    check "$desc: exit $rc (want $want), ${secs} s, ${kb} KiB peak (bound ${bound} KiB; in $in, out $out bytes) $(head -c 120 "$tmp/err")" "$ok"
    printf '%-62s exit %s  %6s s  %8s KiB  (bound %s KiB)\n' "$desc" "$rc" "$secs" "$kb" "$bound"
}

: >"$tmp/empty"
big=$((1 << 31))
measure "size of four 2^31-bit segments (60 bytes)" 2 "$tmp/empty" size "<<-1:$big,-1:$big,-1:$big,-1:$big>>"
measure "print of one 2^31-bit segment" 2 "$tmp/empty" print "<<-1:$big>>"
measure "binaries over the bound across a list" 2 "$tmp/empty" size "[<<0:100000000>>, <<0:100000000>>]"
measure "print of the largest binary text may build (16 MiB)" 0 "$tmp/empty" print "<<-1:134217728>>"
awk 'BEGIN { printf "1"; for (i = 0; i < 999999; i++) printf "0"; print "" }' >"$tmp/digits"
measure "size of a 1,000,000-digit integer" 0 "$tmp/digits" size -
measure "print of a 1,000,000-digit integer" 0 "$tmp/digits" print -
# LARGE_BIG_EXT of 100,000 words (800,000 bytes of 0xFF), as hex: decode prints it.
awk 'BEGIN { printf "836F000C350000"; for (i = 0; i < 800000; i++) printf "FF"; print "" }' >"$tmp/big.hex"
measure "decode and print of a 100,000-word LARGE_BIG_EXT" 0 "$tmp/big.hex" decode -
# One word over the VM's largest bignum (524,288 words): refused before it is built.
awk 'BEGIN { printf "836F0040000000"; for (i = 0; i < 4194304; i++) printf "01"; print "" }' >"$tmp/over.hex"
measure "decode of a bignum one word over the VM's limit" 2 "$tmp/over.hex" decode -
awk 'BEGIN { printf "1"; for (i = 0; i < 10200000; i++) printf "0"; print "" }' >"$tmp/huge"
measure "size of an integer past the VM's limit (10.2 M digits)" 2 "$tmp/huge" size -
awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "["; print "" }' >"$tmp/deep"
measure "size of 1,000,000 unclosed '['" 2 "$tmp/deep" size -
head -c 4096 /dev/urandom >"$tmp/random"
measure "print of 4 KiB of random bytes" 2 "$tmp/random" print -

# Memory estimated before it is spent (scenarios/workload.h tc_ep_estimate_memory): a run whose
# ETS table alone cannot fit is refused in one line naming the estimate and the machine's
# memory (TC_MEM_BYTES stands for it, so the edge is the same on any machine); the run at the
# edge goes ahead.
ep="$1/experiments/eptest"
if [ -x "$ep" ]; then
    out=$(TC_MEM_BYTES=25769803776 "$ep" --len 30000 --iterations 100000 --repeats 1 2>&1 >/dev/null); rc=$?
    [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && printf '%s' "$out" | grep -q 'machine has 24.00 GiB'
    check "eptest --len 30000 --iterations 100000 refused on 24 GiB (exit $rc: $out)" $?
    need=$(TC_MEM_BYTES=1 "$ep" --len 10 --iterations 5 --repeats 1 2>&1 | sed -nE 's/.*at least [0-9.]+ GiB \(([0-9]+) bytes.*/\1/p')
    [ -n "$need" ]; check "the estimate is said in bytes" $?
    TC_MEM_BYTES=$((need - 1)) "$ep" --len 10 --iterations 5 --repeats 1 >/dev/null 2>&1
    [ $? -eq 2 ]; check "a run one byte past the machine's memory refused" $?
    TC_MEM_BYTES=$need "$ep" --len 10 --iterations 5 --repeats 1 >/dev/null 2>&1
    check "a run that just fits goes ahead" $?
fi
list=$(seq -s, 1 1000)
out=$(TC_MEM_BYTES=1000000000 "$bin" explain --iterations 100000 "[$list]" 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] && printf '%s' "$out" | grep -q 'lower --iterations'
check "explain --iterations 100000 of 1000 integers refused on 1 GB (exit $rc: $out)" $?

echo "cli_resources: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
