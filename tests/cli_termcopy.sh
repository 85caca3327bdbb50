#!/usr/bin/env bash
# termcopy size/print from the outside: every golden vector, and bad input -> one line, exit 2.
# $1: directory of the termcopy binary; $2: tests/data.
set -u
bin="$1/termcopy"
tmp_err=$(mktemp)
trap 'rm -f "$tmp_err"' EXIT
vectors="$2/terms.tsv"
fails=0
pass=0
check() { # description, then the condition's exit status
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi
}

# A remote node's dist channel (the first number of <C.N.S>, #Port<C.N>, #Ref<C...>) is the
# atom index of its name: each program's own, so it is masked before comparing.
mask() { sed -E 's/(^|[^<])<([1-9][0-9]*)\./\1<C./g'; }

# Every row: from its text, or (a fun, a remote pid, port or ref: text cannot carry them) from
# its external bytes with --ext, both as the argument and as raw bytes on standard input.
while IFS=$'\t' read -r expr lit flat shared _bytes hex _zhex _instance; do
    [ "$expr" = expr ] && continue
    # A hashmap keyed by atoms has the shape of the atom table's indices, the VM's there and
    # termcopy's here (terms/hashmap.h): the Check suites compare its value and byte count.
    case "$expr" in *list_to_atom*) continue ;; esac
    if "$bin" size --tsv "$lit" >/dev/null 2>&1; then
        out=$("$bin" size --tsv "$lit")
        [ "$out" = "$flat	$flat" ]; check "size --tsv of $expr gave '$out'" $?
        out=$(printf '%s' "$lit" | "$bin" print -)
        [ "$out" = "$lit" ]; check "print - of $expr gave '${out:0:60}'" $?
    else
        "$bin" size "$lit" 2>&1 | grep -q -- '--ext'; check "text of $expr refused naming --ext" $?
        out=$("$bin" size --ext --tsv "$hex")
        [ "$out" = "$flat	$shared" ]; check "size --ext --tsv of $expr gave '$out'" $?
        out=$(printf '%s' "$hex" | sed 's/../\\x&/g' | xargs -0 printf | "$bin" print --ext - | mask)
        [ "$out" = "$(printf '%s' "$lit" | mask)" ]; check "print --ext - (raw bytes) of $expr gave '${out:0:60}'" $?
    fi
done < "$vectors"
out=$(printf '%s' 836A | "$bin" size --ext --tsv -)
[ "$out" = "0	0" ]; check "size --ext --tsv - of 836A gave '$out'" $?
out=$(printf '\x83\x6a' | "$bin" print --ext -)
[ "$out" = "[]" ]; check "print --ext - of raw bytes gave '$out'" $?
out=$("$bin" predict 836A 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ]; ok=$?; check "predict is gone: one line, exit 2 (got $rc: $out)" "$ok"

# Bad input and bad usage: exit 2 and exactly one line on stderr.
one_line_exit2() { # description, command...
    local desc="$1"; shift
    local err rc
    err=$("$@" 2>&1 >/dev/null); rc=$?
    [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | head -c 1)" != "" ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]
    check "$desc (exit $rc, stderr: $err)" $?
}
one_line_exit2 "unterminated tuple" "$bin" size '{1,2'
one_line_exit2 "variable" "$bin" print 'X'
one_line_exit2 "empty stdin" sh -c "printf '' | '$bin' size -"
one_line_exit2 "binary garbage" sh -c "head -c 64 /dev/urandom | tr -d '\\000' | sed 's/^/\\x01/' | '$bin' print -"
one_line_exit2 "invalid UTF-8" "$bin" print "$(printf "'\\xc3'")"
one_line_exit2 "too long atom" "$bin" size "$(printf 'a%.0s' $(seq 1 256))"
one_line_exit2 "two terms" "$bin" size 1 2

# Usage errors print the usage after the one-line reason; still exit 2.
"$bin" size --bogus 1 >/dev/null 2>&1; [ $? -eq 2 ]; check "unknown flag exits 2" $?
"$bin" frobnicate >/dev/null 2>&1; [ $? -eq 2 ]; check "unknown command exits 2" $?
"$bin" >/dev/null 2>&1; [ $? -eq 2 ]; check "no command exits 2" $?
"$bin" size >/dev/null 2>&1; [ $? -eq 2 ]; check "missing TERM exits 2" $?
"$bin" --help | grep -q 'usage: termcopy'; check "--help" $?
"$bin" size --help | grep -q 'FLAT<TAB>SHARED'; check "size --help" $?
[ "$("$bin" size --tsv -- -5)" = "0	0" ]; check "negative number after --" $?
[ "$("$bin" size --tsv -576460752303423489)" = "2	2" ]; check "negative bignum operand" $?
[ "$("$bin" size '{1.0, [a]}')" = "flat size:   7 words (56 bytes)
shared size: 7 words (56 bytes)" ]; check "size human output" $?
out=$("$bin" print '<<1:3>>' > /dev/full 2>&1); [ $? -eq 2 ]; check "unwritable stdout exits 2" $?
for cmd in --help "size --help" "decode --help" --version; do
    # shellcheck disable=SC2086 # the command's words
    "$bin" $cmd > /dev/full 2>/dev/null; [ $? -eq 2 ]; check "$cmd to a full disk exits 2" $?
done
for v in " 5" "+5" "-0"; do
    "$bin" explain --iterations "$v" a >/dev/null 2>"$tmp_err"; [ $? -eq 2 ] && grep -q 'must be an integer' "$tmp_err"
    check "explain --iterations '$v' refused" $?
done
"$bin" decode 837000000030000000000000000000000000000000000000000001FFFFFFFF 2>&1 | grep -q 'count 4294967295 '
check "a fun's free-variable count 0xFFFFFFFF said as 4294967295" $?
"$bin" --version | grep -Eq '^termcopy [0-9]+\.[0-9]+\.[0-9]+$'; check "--version" $?

echo "cli_termcopy: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
