#!/usr/bin/env bash
# Bad input to every binary: empty, huge (100 MB), binary garbage, invalid UTF-8, unknown and
# missing flags, unwritable output paths. Each must exit 2 with a message, never crash, hang
# or leak (a sanitizer report fails the check): bad data gets exactly one line on stderr, and
# so does a usage error, naming the --help that explains it.
# What cli_termcopy, cli_encode, cli_eptest and cli_experiments already check is not repeated.
# $1: build directory root (termcopy there, the experiments in experiments/); $2: tests/data.
set -u
bin="$1/termcopy"
exp="$1/experiments"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }

# run DESC LINES CMD...: exit 2 within 120 s, stderr non-empty without a sanitizer or crash
# report, and exactly one line when LINES is 1 (else the reason first, naming the program).
run() {
    local desc="$1" lines="$2"; shift 2
    local rc name
    name=$(basename "$(printf '%s' "$*" | awk '{print $1}')")
    timeout 120 "$@" >/dev/null 2>"$tmp/err" </dev/null
    rc=$?
    local n first
    n=$(wc -l <"$tmp/err")
    first=$(head -n 1 "$tmp/err")
    [ "$rc" -eq 2 ] && [ -s "$tmp/err" ] && ! grep -qE 'Sanitizer|runtime error|Assertion|Backtrace' "$tmp/err" &&
        { [ "$lines" != 1 ] || [ "$n" -eq 1 ]; } && [[ "$first" == *"$name"* || "$first" == *termcopy* ]]
    check "$desc (exit $rc, $n lines: ${first:0:100})" $?
}
# The same with standard input from a pipe (sh -c keeps the program's exit status).
run_stdin() { # DESC LINES PRODUCER COMMAND
    local desc="$1" lines="$2" producer="$3" cmd="$4" rc n first
    timeout 120 sh -c "$producer | $cmd" >/dev/null 2>"$tmp/err"
    rc=$?
    n=$(wc -l <"$tmp/err")
    first=$(head -n 1 "$tmp/err")
    [ "$rc" -eq 2 ] && [ "$n" -eq "$lines" ] && ! grep -qE 'Sanitizer|runtime error|Assertion' "$tmp/err"
    check "$desc (exit $rc, $n lines: ${first:0:100})" $?
}

garbage=$(head -c 200 /dev/urandom | tr -d '\000\n' | head -c 100)
badutf8=$(printf '\xc3\x28\xff\xfe')
huge=99999999999999999999999
mb100='head -c 100000000 /dev/zero'

# termcopy: huge and garbage standard input, every command; bad hex on the command line.
run_stdin "termcopy size: 100 MB of '['" 1 "$mb100 | tr '\\000' '['" "'$bin' size -"
run_stdin "termcopy encode: 100 MB of NUL bytes" 1 "$mb100" "'$bin' encode -"
run_stdin "termcopy print: 100 MB of random bytes" 1 "head -c 100000000 /dev/urandom" "'$bin' print -"
run_stdin "termcopy decode: 100 MB of non-hex" 1 "$mb100 | tr '\\000' '['" "'$bin' decode -"
run_stdin "termcopy decode: 100 MB hex of a truncated term" 1 "{ printf 836C7FFFFFFF; $mb100 | tr '\\000' 6; }" "'$bin' decode -"
run_stdin "termcopy decode: empty stdin" 1 "printf ''" "'$bin' decode -"
run_stdin "termcopy decode: random bytes on stdin" 1 "head -c 4096 /dev/urandom" "'$bin' decode -"
run "termcopy decode: invalid UTF-8 argument" 1 "$bin" decode "$badutf8"
run "termcopy decode: garbage argument" 1 "$bin" decode "$garbage"
run "termcopy encode: empty term" 1 "$bin" encode ''
run "termcopy print: invalid UTF-8 in a string" 1 "$bin" print "\"$badutf8\""
run "termcopy encode: --minor without a value" 1 "$bin" encode --minor
run "termcopy encode: --minor garbage" 1 "$bin" encode --minor "$garbage" foo
run "termcopy decode: unknown flag" 1 "$bin" decode --bogus 8361
# Usage errors: one line that names the command's --help, exit 2; after "--", --help is a TERM.
run "termcopy: no command" 1 "$bin"
run "termcopy: unknown command" 1 "$bin" frobnicate 1
run "termcopy size: no TERM" 1 "$bin" size
run "termcopy print: two TERMs" 1 "$bin" print a b
run "termcopy print -- --help: a term, not a request for help" 1 "$bin" print -- --help
run "termcopy encode: unwritable stdout" 1 sh -c "'$bin' encode foo >/dev/full"
run "termcopy decode: unwritable stdout" 1 sh -c "'$bin' decode 836A >/dev/full"

# The experiments: unknown and missing flags, empty / huge / garbage / invalid UTF-8 values,
# stray operands, unwritable and full output files. Those committed in git; each is skipped
# when it is not built.
have() { [ -x "$exp/$1" ] || { echo "skip: $exp/$1 not built"; return 1; }; }
if have copysweep; then
    run "copysweep: unknown flag" 1 "$exp/copysweep" --bogus
    run "copysweep: --csv without a value" 1 "$exp/copysweep" --csv
    run "copysweep: empty --csv path" 1 "$exp/copysweep" --quick --csv ''
    run "copysweep: unwritable --csv" 1 "$exp/copysweep" --quick --csv /nonexistent/x.csv
    run "copysweep: garbage --profile name" 1 "$exp/copysweep" --quick --profile "$garbage"
    run "copysweep: invalid UTF-8 --profile name" 1 "$exp/copysweep" --quick --profile "$badutf8"
    run "copysweep: empty --profile name" 1 "$exp/copysweep" --quick --profile ''
    run "copysweep: stray operand" 1 "$exp/copysweep" stray
fi
if have codecpeer; then
    run "codecpeer: unknown flag" 1 "$exp/codecpeer" --bogus
    run "codecpeer: --csv without a value" 1 "$exp/codecpeer" --csv
    run "codecpeer: unwritable --csv" 1 "$exp/codecpeer" --quick --csv /nonexistent/x.csv
    run "codecpeer: stray operand" 1 "$exp/codecpeer" stray
fi
if have heaptrace; then
    run "heaptrace: unknown flag" 1 "$exp/heaptrace" --bogus
    run "heaptrace: --len without a value" 1 "$exp/heaptrace" --len
    run "heaptrace: huge --len" 1 "$exp/heaptrace" --len "$huge"
    run "heaptrace: garbage --iterations" 1 "$exp/heaptrace" --iterations "$garbage"
    run "heaptrace: empty --sbct" 1 "$exp/heaptrace" --sbct ''
    run "heaptrace: negative --segment-cache" 1 "$exp/heaptrace" --segment-cache -5
    run "heaptrace: invalid UTF-8 --era" 1 "$exp/heaptrace" --era "$badutf8"
    run "heaptrace: unwritable --csv" 1 "$exp/heaptrace" --quick --csv /nonexistent/x.csv
    run "heaptrace: full --csv" 1 "$exp/heaptrace" --len 100 --iterations 5 --csv /dev/full
    run "heaptrace: stray operand" 1 "$exp/heaptrace" stray
fi
if have etsbench; then
    run "etsbench: unknown flag" 1 "$exp/etsbench" --bogus
    run "etsbench: --iterations without a value" 1 "$exp/etsbench" --iterations
    run "etsbench: huge --iterations" 1 "$exp/etsbench" --iterations "$huge"
    run "etsbench: garbage --repeats" 1 "$exp/etsbench" --repeats "$garbage"
    run "etsbench: empty --min-heap" 1 "$exp/etsbench" --min-heap ''
    run "etsbench: invalid UTF-8 --bucket-locks" 1 "$exp/etsbench" --bucket-locks "$badutf8"
    run "etsbench: unwritable --csv" 1 "$exp/etsbench" --quick --csv /nonexistent/x.csv
    run "etsbench: full --csv" 1 "$exp/etsbench" --iterations 1000 --repeats 1 --csv /dev/full
    run "etsbench: stray operand" 1 "$exp/etsbench" stray
fi
if have eptest; then
    run "eptest: --csv without a value" 1 "$exp/eptest" --csv
    run "eptest: huge --iterations" 1 "$exp/eptest" --iterations "$huge"
    run "eptest: garbage --len" 1 "$exp/eptest" --len "$garbage"
    run "eptest: empty --repeats" 1 "$exp/eptest" --repeats ''
    run "eptest: invalid UTF-8 --shape" 1 "$exp/eptest" --shape "$badutf8"
    run "eptest: full --csv" 1 "$exp/eptest" --len 10 --iterations 5 --repeats 1 --csv /dev/full
    run "eptest: stray operand" 1 "$exp/eptest" stray
fi
for b in ablate crossover breakdown; do
    have $b || continue
    run "$b: --csv without a value" 1 "$exp/$b" --csv
    run "$b: huge --repeats" 1 "$exp/$b" --repeats "$huge"
    run "$b: garbage --repeats" 1 "$exp/$b" --repeats "$garbage"
    run "$b: empty --repeats" 1 "$exp/$b" --repeats ''
    run "$b: invalid UTF-8 --era" 1 "$exp/$b" --era "$badutf8"
    run "$b: stray operand" 1 "$exp/$b" stray
done
if have ablate; then
    run "ablate: huge --len" 1 "$exp/ablate" --len "$huge"
    run "ablate: full --csv" 1 "$exp/ablate" --quick --era otp25 --len 10 --iterations 2 --repeats 1 --csv /dev/full
fi
if have crossover; then
    run "crossover: invalid UTF-8 --shape" 1 "$exp/crossover" --shape "$badutf8"
    run "crossover: unwritable --summary" 1 "$exp/crossover" --quick --summary /nonexistent/x.csv
    run "crossover: full --csv" 1 "$exp/crossover" --quick --shape ints --era otp25 --csv /dev/full
fi
if have breakdown; then
    run "breakdown: huge --len" 1 "$exp/breakdown" --len "$huge"
    run "breakdown: full --csv" 1 "$exp/breakdown" --quick --era otp25 --len 10 --iterations 2 --csv /dev/full
fi

# A table that cannot reach standard output is an error too: exit 2 and one line saying so.
full_stdout() { # DESC COMMAND...
    local desc="$1" name rc
    shift
    name=$(basename "$1")
    timeout 120 "$@" >/dev/full 2>"$tmp/err" </dev/null
    rc=$?
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^$name: cannot write standard output" "$tmp/err"
    ok=$?; check "$desc (exit $rc: $(head -c 100 "$tmp/err"))" "$ok"
}
# The largest sbct the help allows (1 TiB) runs as the VM under +MHsbct runs: every heap in a
# multiblock carrier of its own size (alloc/mseg.c next_mbc_bytes), never a 1 TiB mapping.
if have eptest; then
    timeout 120 "$exp/eptest" --sbct 1099511627776 --len 10 --iterations 5 --repeats 1 >/dev/null 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 0 ] && ! grep -qE 'Sanitizer|runtime error' "$tmp/err"
    ok=$?; check "eptest --sbct 1 TiB runs (exit $rc: $(head -c 100 "$tmp/err"))" $ok
fi
have eptest && full_stdout "eptest: unwritable stdout" "$exp/eptest" --len 10 --iterations 5 --repeats 1
have ablate && full_stdout "ablate: unwritable stdout" "$exp/ablate" --quick --era otp25 --len 10 --iterations 2
have crossover && full_stdout "crossover: unwritable stdout" "$exp/crossover" --quick --shape ints --era otp25
have breakdown && full_stdout "breakdown: unwritable stdout" "$exp/breakdown" --quick --era otp25 --len 10 --iterations 2
have heaptrace && full_stdout "heaptrace: unwritable stdout" "$exp/heaptrace" --len 100 --iterations 5
have etsbench && full_stdout "etsbench: unwritable stdout" "$exp/etsbench" --iterations 1000 --repeats 1

echo "cli_badinput: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
