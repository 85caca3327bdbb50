#!/usr/bin/env bash
# unitcost and the vm_overhead phase from the outside: the CSV has exactly its columns and
# every row their width, every unit is there, bad input exits 2, a missing erl is one line and
# exit 2 for --vm and --vm-overhead, and without the flag the phase is said to be absent. With
# erl installed, --vm fills the VM's columns and eptest --vm-overhead charges the phase; without
# erl those checks are skipped (exit 77 once the others passed). Nothing here times anything.
# $1: build directory root (binaries in experiments/); $2: tests/data (unused).
set -u
dir="$1/experiments"
lib=$(cat "$(dirname "$0")/../report/csv.awk") # columns by name
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }
header="unit,shape,words,model_ns,vm_ns,model_over_vm,floor_ns"
per_word="size_object copy_struct copy_shallow gc_copy encode decode memcpy load_chain"
fixed="round_trip_fixed lookup_fixed insert_fixed pt_get_fixed"

# The CSV on standard output alone: '#' lines, the header, rows of its width.
"$dir/unitcost" --quick --shape tuple --csv - >"$tmp/u.csv" 2>"$tmp/u.err"
ok=$?; check "unitcost --quick --csv - runs (exit $ok)" "$ok"
[ "$(grep -v '^#' "$tmp/u.csv" | head -n 1)" = "$header" ]; check "unitcost: the header is $header" $?
awk 'f && /^#/ {bad = 1} !/^#/ {f = 1} END {exit bad}' "$tmp/u.csv"; ok=$?
check "unitcost: metadata only before the header" "$ok"
bad=$(grep -v '^#' "$tmp/u.csv" | awk -F, 'NF != 7' | wc -l)
[ "$bad" -eq 0 ]; check "unitcost: $bad lines not 7 columns wide" $?
grep -q '^# vm: not run' "$tmp/u.csv"; check "unitcost: says the VM did not run" $?
for u in $per_word; do
    n=$(grep -c "^$u,tuple," "$tmp/u.csv")
    [ "$n" -eq 3 ]; check "unitcost: $u at 3 sizes of tuple (got $n)" $?
done
for u in $fixed; do
    grep -q "^$u,nil,0," "$tmp/u.csv"; check "unitcost: $u row" $?
done
awk "$lib"'!csv_row() { next }
    csv_get("model_ns") !~ /^-?[0-9.]+$/ || csv_get("vm_ns") != "n/a" || csv_get("model_over_vm") != "n/a" { bad = 1 }
    END { exit bad }' "$tmp/u.csv"
ok=$?; check "unitcost: model_ns numeric, vm_ns and model_over_vm n/a without --vm" "$ok"
grep -q '^words ' "$tmp/u.csv"; [ $? -ne 0 ]; check "unitcost: the table is not in the CSV" $?
grep -q 'model_ns' "$tmp/u.err"; check "unitcost: the table went to standard error" $?
# The binary shape: only the per-byte units and the memcpy floor.
"$dir/unitcost" --quick --shape binary --repeats 3 --csv "$tmp/b.csv" >/dev/null
ok=$?; check "unitcost --shape binary runs (exit $ok)" "$ok"
[ "$(grep -v '^#' "$tmp/b.csv" | tail -n +2 | cut -d, -f1 | grep -v _fixed | sort -u | tr '\n' ' ')" = "decode encode memcpy " ]
check "unitcost: binary has encode, decode and memcpy only" $?

for args in "--bogus" "--shape nope" "--repeats 0" "--repeats x" "--len 100" "stray" \
            "--quick --csv /nonexistent/x.csv"; do
    # shellcheck disable=SC2086 # words by design
    "$dir/unitcost" $args >/dev/null 2>"$tmp/bad.err"; ok=$?
    [ "$ok" -eq 2 ]; check "unitcost $args exits 2 (got $ok)" $?
    [ "$(wc -l <"$tmp/bad.err")" -eq 1 ]; check "unitcost $args: one line on stderr" $?
done
"$dir/unitcost" --help | grep -q -- '--vm'; check "unitcost --help names --vm" $?

# No erl on PATH: --vm and --vm-overhead are one line and exit 2.
for cmd in "unitcost --quick --vm" "eptest --vm-overhead" "crossover --quick --vm-overhead" \
           "breakdown --quick --vm-overhead"; do
    # shellcheck disable=SC2086 # words by design
    PATH=/nonexistent "$dir"/$cmd >/dev/null 2>"$tmp/noerl.err"; ok=$?
    [ "$ok" -eq 2 ]; check "$cmd without erl exits 2 (got $ok)" $?
    grep -q 'erl' "$tmp/noerl.err"; check "$cmd without erl says so" $?
done
# Without the flag the phase is absent, and said to be.
"$dir/eptest" --len 10 --iterations 20 --repeats 1 --csv "$tmp/ep.csv" >"$tmp/ep.txt"
ok=$?; check "eptest runs (exit $ok)" "$ok"
grep -q '^# vm_overhead: absent' "$tmp/ep.csv"; check "eptest csv: vm_overhead absent" $?
[ "$(wc -l <"$tmp/ep.txt")" -eq 1 ]; check "eptest without the phase prints the seed's line alone" $?

if ! command -v erl >/dev/null 2>&1 || ! command -v erlc >/dev/null 2>&1; then
    echo "cli_unitcost: $pass passed, $fails failed; erl not found: the --vm checks skipped"
    [ "$fails" -eq 0 ] || exit 1
    exit 77
fi

# The sessions' modules compiled into TC_BEAM_CACHE (made when missing), and nothing left in TMPDIR.
mkdir "$tmp/t"
TMPDIR="$tmp/t" TC_BEAM_CACHE="$tmp/beams" "$dir/unitcost" --quick --vm --shape ints --repeats 3 --csv "$tmp/vm.csv" >"$tmp/vm.txt"
ok=$?; check "unitcost --quick --vm runs (exit $ok)" "$ok"
[ "$(ls "$tmp/beams"/*.beam 2>/dev/null | wc -l)" -eq 4 ]; check "unitcost --vm: four modules in TC_BEAM_CACHE" $?
[ -z "$(ls -A "$tmp/t")" ]; check "unitcost --vm with TC_BEAM_CACHE: no temporary directory left" $?
grep -q '^# vm: erl' "$tmp/vm.csv"; check "unitcost --vm: says the VM ran" $?
awk "$lib"'!csv_row() { next }
    { u = csv_get("unit"); vm = u != "memcpy" && u != "load_chain" }
    vm && (csv_get("vm_ns") !~ /^-?[0-9.]+$/ || csv_get("model_over_vm") !~ /^-?[0-9.]+$/) { bad = 1; print > "/dev/stderr" }
    !vm && csv_get("vm_ns") != "n/a" { bad = 1; print > "/dev/stderr" }
    END { exit bad }' "$tmp/vm.csv"
ok=$?; check "unitcost --vm: vm_ns and model_over_vm numeric for every unit the VM has" "$ok"
grep -q '^vm_overhead: ns per operation' "$tmp/vm.txt"; check "unitcost --vm prints the vm_overhead phase" $?
# A second session reuses the cache's modules; one older than its source is compiled again.
before=$(stat -c %Y "$tmp/beams/eptest.beam")
sleep 1 # a compile would give eptest.beam a later second
TMPDIR="$tmp/t" TC_BEAM_CACHE="$tmp/beams" "$dir/eptest" --len 10 --iterations 20 --repeats 1 --vm-overhead --csv "$tmp/epo.csv" >"$tmp/epo.txt"
ok=$?; check "eptest --vm-overhead runs (exit $ok)" "$ok"
[ "$(stat -c %Y "$tmp/beams/eptest.beam")" -eq "$before" ]; check "TC_BEAM_CACHE: current modules reused" $?
[ -z "$(ls -A "$tmp/t")" ]; check "eptest --vm-overhead: no temporary directory left" $?
touch -d '2000-01-01' "$tmp/beams/account.beam"
TMPDIR="$tmp/t" TC_BEAM_CACHE="$tmp/beams" "$dir/eptest" --len 10 --iterations 20 --repeats 1 --vm-overhead --csv /dev/null >/dev/null
[ "$(stat -c %Y "$tmp/beams/account.beam")" -gt "$before" ]; check "TC_BEAM_CACHE: a module older than its source compiled again" $?
TMPDIR="$tmp/t" "$dir/eptest" --len 10 --iterations 20 --repeats 1 --vm-overhead --csv /dev/null >/dev/null
ok=$?; check "eptest --vm-overhead without TC_BEAM_CACHE runs (exit $ok)" "$ok"
[ -z "$(ls -A "$tmp/t")" ]; check "without TC_BEAM_CACHE the session's temporary directory is removed" $?
grep -q '^# vm_overhead: ns per operation: round trip' "$tmp/epo.csv"; check "eptest csv: the phase measured" $?
grep -q '^# vm_overhead_included' "$tmp/epo.csv"; check "eptest csv: says median_us includes it" $?
grep -q '^with vm_overhead: \[{proc,' "$tmp/epo.txt"; check "eptest prints the seed line with the phase" $?

echo "cli_unitcost: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
