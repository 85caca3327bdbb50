#!/usr/bin/env bash
# The VM as the oracle, on random input (skipped, exit 77, without erl and escript):
#  - property: TC_VMORACLE_TERMS random terms (default 1000; tests/gen.c: mixed integer and
#    float map keys, atoms above Latin-1, every class of double, pid/port/ref limits), each
#    compared with the installed VM: encode byte for byte, ~w text and flat size
#    (tests/vmoracle.escript check);
#  - differential: the VM's own encodings of the first TC_VMORACLE_CORPUS of them (default 300;
#    minor versions 0, 1 and 2, compressed) and two mutated copies of each, decoded by both:
#    accept <=> accept, the same term (vmoracle.escript corpus, vmterms decode, diff).
# The seed is TC_SEED (printed); set it to repeat a run. $1: directory of the termcopy binary.
set -u
here=$(cd "$(dirname "$0")" && pwd)
vmterms="$1/tests/vmterms"
command -v erl >/dev/null 2>&1 && command -v escript >/dev/null 2>&1 || { echo "cli_vmoracle: no erl/escript, skipped"; exit 77; }
[ -x "$vmterms" ] || { echo "cli_vmoracle: no $vmterms"; exit 1; }
terms=${TC_VMORACLE_TERMS:-1000} corpus=${TC_VMORACLE_CORPUS:-300}
seed=${TC_SEED:-$(date +%s)}
echo "cli_vmoracle: seed $seed (TC_SEED=$seed repeats it), $terms terms, a corpus from $corpus"
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
oracle() { escript "$here/vmoracle.escript" "$@"; }
fails=0 pass=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }

TC_SEED=$seed "$vmterms" gen "$terms" > "$work/terms.tsv" 2>/dev/null; check "vmterms gen" $?
[ "$(wc -l < "$work/terms.tsv")" -eq "$terms" ]; check "vmterms gen wrote $terms terms" $?
oracle check "$work/terms.tsv"; check "print, encode and size against the VM" $?
head -n "$corpus" "$work/terms.tsv" > "$work/some.tsv"
oracle corpus "$work/some.tsv" "$seed" > "$work/corpus.hex"; check "the VM's corpus" $?
"$vmterms" decode < "$work/corpus.hex" > "$work/ours.txt"; check "vmterms decode" $?
oracle diff "$work/corpus.hex" "$work/ours.txt"; check "decode against binary_to_term/1" $?

echo "cli_vmoracle: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
