#!/usr/bin/env bash
# termcopy predict from the outside: with the fixture calibration it prints the sizes and the
# costs interpolated (and extrapolated) from the calibration's grid, exactly; without a
# calibration it says how to make one and exits 2; a broken calibration exits 2.
# $1: build directory root (termcopy in it); $2: tests/data.
set -u
tool="$(cd "$1" && pwd)/termcopy" cal="$2/report/calibration.tsv"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }

list() { echo "[$(seq -s, 1 "$1")]"; }

# lists:seq(1, 1000): 2000 words, a grid point of OTP 25, between R10B's two points.
"$tool" predict --calibration "$cal" "$(list 1000)" >"$tmp/out" 2>"$tmp/err"
check "predict runs (exit $?)" $?
cat >"$tmp/want" <<EOT
calibration:      $cal (mode: fixture, date: 2026-01-01T00:00:00Z)
flat size:        2000 words (16000 bytes)
shared size:      2000 words (16000 bytes)
ETS stored size:  2003 words: the object {1, TERM} as one compact block (node header not counted)
external format:  4242 bytes (term_to_binary, minor_version 2)
predicted cost on this machine, us per operation (modelled VM; the per-operation costs
were measured on lists of integers of 20 to 20000 words, here read at 2000 words):
  send (size_object + copy_struct)        5.00
  round trip, R10B                        6.22
  round trip, OTP 25                      4.00
  ets:lookup/2, R10B                      9.05
  ets:lookup/2, OTP 25                    3.00
  persistent_term:get/1                   0.02
EOT
diff "$tmp/want" "$tmp/out" >"$tmp/diff"; ok=$?; check "predict output, lists:seq(1, 1000) ($(cat "$tmp/diff"))" "$ok"

# 40000 words: beyond the grid, the last point's cost per word (100000 ns x 40000 / 20000).
echo "$(list 20000)" | "$tool" predict --calibration="$cal" - >"$tmp/big"
check "predict reads TERM from stdin" $?
grep -q '^  round trip, OTP 25  *200\.00$' "$tmp/big"; check "extrapolated beyond the grid" $?
grep -q 'here read at 40000 words, extrapolated):$' "$tmp/big"; check "says it extrapolated" $?

# A tuple and a binary: sizes from the library (heap binary: 2 + 2 words; ext: 131 104 2 ...).
"$tool" predict --calibration "$cal" '{a, <<"abcdefghij">>}' >"$tmp/tb"
grep -q '^flat size:        7 words (56 bytes)$' "$tmp/tb"; check "tuple with a heap binary: flat size" $?
grep -q '^ETS stored size:  10 words' "$tmp/tb"; check "tuple with a heap binary: stored {1, T}" $?
[ "$(grep '^external format:' "$tmp/tb")" = "external format:  $(( $("$tool" encode '{a, <<"abcdefghij">>}' | tr -d '\n' | wc -c) / 2 )) bytes (term_to_binary, minor_version 2)" ]
check "external size equals the encoder's byte count" $?

# No calibration: how to make one, exit 2.
(cd "$tmp" && "$tool" predict '[1]' >"$tmp/none.out" 2>"$tmp/none.err")
[ $? -eq 2 ]; check "no calibration exits 2" $?
grep -q "no calibration at results/calibration.tsv" "$tmp/none.err"; check "names the default path" $?
grep -q "./run report" "$tmp/none.err"; check "says how to make one" $?
[ ! -s "$tmp/none.out" ]; check "nothing on stdout without calibration" $?
"$tool" predict --calibration "$tmp/nope.tsv" '[1]' 2>&1 | grep -q "no calibration at $tmp/nope.tsv"
check "--calibration names the missing file" $?

# A calibration without a needed key, or with a bad line, exits 2.
grep -v '^lookup_ns.r10b' "$cal" >"$tmp/partial.tsv"
"$tool" predict --calibration "$tmp/partial.tsv" '[1]' >/dev/null 2>"$tmp/partial.err"
[ $? -eq 2 ] && grep -q 'has no lookup_ns.r10b' "$tmp/partial.err"; check "missing key exits 2 and names it" $?
printf 'key\twords\tvalue\tsource\ngarbage\n' >"$tmp/bad.tsv"
"$tool" predict --calibration "$tmp/bad.tsv" '[1]' >/dev/null 2>"$tmp/bad.err"
[ $? -eq 2 ] && grep -q 'bad.tsv:2:' "$tmp/bad.err"; check "bad line exits 2 with its line number" $?
"$tool" predict --calibration "$cal" '{1,' >/dev/null 2>&1; [ $? -eq 2 ]; check "bad term exits 2" $?
"$tool" predict --help | grep -q 'usage: termcopy predict'; check "predict --help" $?
"$tool" --help | grep -q 'predict \[--calibration FILE\] \[--ext\] TERM'; check "listed in termcopy --help" $?

echo "cli_predict: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
