#!/usr/bin/env bash
# termcopy encode/decode from the outside: golden vectors both ways, minor versions, and bad
# input -> exactly one line on stderr, exit 2.
# $1: directory of the termcopy binary; $2: tests/data.
set -u
bin="$1/termcopy"
vectors="$2/terms.tsv"
fails=0
pass=0
check() { # description, then the condition's exit status
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi
}

# Every row: encode gives the VM's bytes (or its byte count where the hex is elided), and
# decode of those bytes prints the row's ~w text.
mask() { sed -E 's/(^|[^<])<([1-9][0-9]*)\./\1<C./g'; } # a remote node's channel: see cli_termcopy.sh
while IFS=$'\t' read -r expr lit _flat _shared bytes hex zhex _instance; do
    [ "$expr" = expr ] && continue
    # A hashmap keyed by atoms has the shape of the atom table's indices, the VM's there and
    # termcopy's here (terms/hashmap.h): the Check suites compare its value and byte count.
    case "$expr" in *list_to_atom*) continue ;; esac
    if "$bin" encode "$lit" >/dev/null 2>&1; then
        src=("$lit")
    else
        src=(--ext "$hex") # a fun, a remote pid, port or ref: re-encode what binary_to_term built
        lit=$(printf '%s' "$lit" | mask)
    fi
    out=$("$bin" encode "${src[@]}")
    if [ "$hex" = "-" ]; then
        [ "${#out}" -eq $((2 * bytes)) ]; ok=$?; check "encode of $expr gave ${#out} hex digits, want $((2 * bytes))" "$ok"
    else
        [ "$out" = "$hex" ]; check "encode of $expr gave '${out:0:60}'" $?
    fi
    back=$(printf '%s\n' "$out" | "$bin" decode - | mask)
    [ "$back" = "$(printf '%s' "$lit" | mask)" ]; check "decode of $expr gave '${back:0:60}'" $?
    # term_to_binary(T, [compressed, {minor_version, 2}]): the same bytes, and they decode back.
    z=$("$bin" encode --compressed "${src[@]}")
    if [ "$zhex" = "-" ]; then
        [ "${#z}" -gt 0 ]; check "encode --compressed of $expr" $?
    else
        [ "$z" = "$zhex" ]; check "encode --compressed of $expr gave '${z:0:60}', the VM '${zhex:0:60}'" $?
        back=$("$bin" decode "$zhex" | mask)
        [ "$back" = "$(printf '%s' "$lit" | mask)" ]; check "decode of compressed $expr gave '${back:0:60}'" $?
    fi
done < "$vectors"

# Minor versions: 2 by default (the vectors' form), 1 is OTP 25's term_to_binary/1.
[ "$("$bin" encode foo)" = "837703666F6F" ]; check "default minor is 2" $?
[ "$("$bin" encode --minor 2 foo)" = "837703666F6F" ]; check "--minor 2" $?
[ "$("$bin" encode --minor 1 foo)" = "83640003666F6F" ]; check "--minor 1" $?
[ "$("$bin" encode --minor=1 "'é'")" = "83640001E9" ]; check "--minor=1 Latin-1 atom" $?
[ "$("$bin" encode --minor 1 "'Ω'")" = "837702CEA9" ]; check "--minor 1 non-Latin-1 atom" $?
[ "$("$bin" decode 83640003666F6F)" = "foo" ]; check "decode ATOM_EXT" $?
[ "$(printf '{a, "b"}.\n' | "$bin" encode -)" = "8368027701616B000162" ]; check "encode - reads stdin" $?
[ "$("$bin" decode '83 6c 00 00 00 01 77 01 61 77 01 62')" = "[a|b]" ]; check "decode lowercase hex with spaces" $?
[ "$("$bin" encode '<0.5.7>')" = "8358770D6E6F6E6F6465406E6F686F7374000000050000000700000000" ]; check "local pid" $?
[ "$("$bin" decode "$("$bin" encode '{<0.5.7>,#{a => <<1:3>>},-1.5}')")" = "{<0.5.7>,#{a => <<1:3>>},-1.5}" ]
check "round trip through both commands" $?
"$bin" encode --help | grep -q 'minor_version, 2'; check "encode --help" $?
"$bin" decode --help | grep -q 'binary_to_term'; check "decode --help" $?
"$bin" --help | grep -q 'decode \[--strict\] \[--ext\] HEX'; check "--help lists decode" $?
"$bin" decode --help | grep -q -- '--strict'; check "decode --help says what --strict refuses" $?

# Bad input and bad usage: exit 2 and exactly one line on stderr.
one_line_exit2() { # description, command...
    local desc="$1"; shift
    local err rc
    err=$("$@" 2>&1 >/dev/null); rc=$?
    [ "$rc" -eq 2 ] && [ -n "$err" ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]
    check "$desc (exit $rc, stderr: $err)" $?
}
one_line_exit2 "bad hex digit" "$bin" decode 83XY
one_line_exit2 "odd-length hex" "$bin" decode 836
one_line_exit2 "empty hex" "$bin" decode ''
one_line_exit2 "wrong version byte" "$bin" decode 8261
one_line_exit2 "truncated term" "$bin" decode 836C0000
one_line_exit2 "huge declared list" "$bin" decode 836CFFFFFFFF6A
one_line_exit2 "trailing bytes under --strict" "$bin" decode --strict 836A6A
# binary_to_term/1's answers: bytes after the term are ignored, any nonzero sign byte is negative.
[ "$("$bin" decode 83612700)" = "39" ]; check "a byte after the term, as binary_to_term/1" $?
[ "$("$bin" decode 836F0000000107FF)" = "-255" ]; check "LARGE_BIG sign byte 7, as binary_to_term/1" $?
one_line_exit2 "sign byte 7 under --strict" "$bin" decode --strict 836F0000000107FF
one_line_exit2 "compressed term" "$bin" decode 8350000000107801
one_line_exit2 "bad --minor value" "$bin" encode --minor 3 foo
one_line_exit2 "bad term to encode" "$bin" encode '{1,'
one_line_exit2 "bad hex on stdin" sh -c "printf 'zz' | '$bin' decode -"
err=$("$bin" decode 836CFFFFFFFF6A 2>&1 >/dev/null); case "$err" in *"byte 2"*) true;; *) false;; esac
check "decode error names the byte offset ($err)" $?

# Usage errors print the usage after the one-line reason; still exit 2.
"$bin" encode --bogus foo >/dev/null 2>&1; [ $? -eq 2 ]; check "unknown flag exits 2" $?
"$bin" encode --minor >/dev/null 2>&1; [ $? -eq 2 ]; check "--minor without a value exits 2" $?
"$bin" decode >/dev/null 2>&1; [ $? -eq 2 ]; check "missing HEX exits 2" $?
"$bin" decode 836A 836A >/dev/null 2>&1; [ $? -eq 2 ]; check "two operands exit 2" $?

echo "cli_encode: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
