#!/usr/bin/env bash
# ETS `compressed` as the VM stores it (skipped, exit 77, without erl and escript): for the
# named shapes (tests/vmets.escript shapes, at length 100) and TC_ETSCOMP_TERMS random terms
# (default 300, tests/gen.c; the seed is TC_SEED, printed), the model's words per object of a
# plain and of a compressed set, the compressed lookup's flat size and the words it leaves on
# a process heap ('vmterms ets') must equal the VM's (ets:info(T, memory) per object,
# erts_debug:flat_size, garbage_collection_info around the lookup: vmets.escript check).
# Sizes that follow the instance's atom or node tables are not compared (vmets.escript).
# $1: directory of the termcopy binary.
set -u
here=$(cd "$(dirname "$0")" && pwd)
vmterms="$1/tests/vmterms"
command -v erl >/dev/null 2>&1 && command -v escript >/dev/null 2>&1 || { echo "cli_etscompressed: no erl/escript, skipped"; exit 77; }
[ -x "$vmterms" ] || { echo "cli_etscompressed: no $vmterms"; exit 1; }
terms=${TC_ETSCOMP_TERMS:-300}
# A fixed seed by default, so a run is the same on any machine: with TC_SEED=1796197562 the
# installed VM itself crashes (segmentation fault) in vmets.escript check on term gen112, a
# negative 64-bit bignum (836E0801B0D13826035E27B9), not yet diagnosed. TC_SEED picks others.
seed=${TC_SEED:-1796180383}
echo "cli_etscompressed: seed $seed (TC_SEED=$seed repeats it), $terms random terms"
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
fails=0 pass=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }

escript "$here/vmets.escript" shapes 100 >"$work/shapes.tsv"; check "the VM's shapes" $?
"$vmterms" ets <"$work/shapes.tsv" >"$work/shapes.model"; check "vmterms ets on the shapes" $?
[ "$(wc -l <"$work/shapes.model")" -eq "$(wc -l <"$work/shapes.tsv")" ]; check "a model line per shape" $?
escript "$here/vmets.escript" check "$work/shapes.model" --table; check "the shapes against the VM" $?

TC_SEED=$seed "$vmterms" gen "$terms" 2>/dev/null | awk -F'\t' '{ printf "gen%d\t%s\n", NR, $1 }' >"$work/terms.tsv"
[ "$(wc -l <"$work/terms.tsv")" -eq "$terms" ]; check "vmterms gen wrote $terms terms" $?
"$vmterms" ets <"$work/terms.tsv" >"$work/terms.model"; check "vmterms ets on the random terms" $?
escript "$here/vmets.escript" check "$work/terms.model"; check "the random terms against the VM" $?

echo "cli_etscompressed: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
