#!/usr/bin/env bash
# experiments/beam/eras/run.sh --quick on old VMs a user built: TC_ERAS_VMS="NAME=ROOT ..." (see
# run.sh --help). Without it: a note and exit 77 (skipped): no old VM is built by the tests.
# $1: build directory root; $2: unused.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${TC_ERAS_VMS:-}" ]; then
    echo "TC_ERAS_VMS not set: no old VM to run (TC_ERAS_VMS='r10b-2-64=ROOT ...')"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }
# shellcheck disable=SC2086
bash "$here/../experiments/beam/eras/run.sh" --quick --model "$1" --out "$tmp/eras.csv" $TC_ERAS_VMS 2>"$tmp/e"
ok=$?; check "run.sh --quick: exit $ok ($(tail -n 2 "$tmp/e" | tr '\n' ' '))" $ok
for v in $TC_ERAS_VMS; do
    grep -q "^${v%%=*},base," "$tmp/eras.csv"; check "${v%%=*}: its rows" $?
done
# R13B01 collects after every lookup that left its result in a fragment, [{I, Data}]: each
# collection of the lookup pass at L = 1000 starts with 2005 fragment words
case " $TC_ERAS_VMS" in *" r13b01-plain="*)
    awk "$(cat "$here/../report/csv.awk")"'BEGIN { csv_who = "cli_eras_vms" } !csv_row() { next }
        csv_get("vm") == "r13b01-plain" && csv_get("variant") == "base" && csv_get("test") == "ets_lookup" && csv_get("payload_len") == 1000 {
            n++; g = csv_get("gcs"); w = csv_get("frag_words"); if (w != g * 2005) { print "frag_words " w " in " g " GCs"; bad = 1 } }
        END { exit (n == 1 && !bad) ? 0 : 1 }' "$tmp/eras.csv"
    check "r13b01-plain: 2005 fragment words a lookup collection at L = 1000" $? ;;
esac
echo "cli_eras_vms: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
