#!/usr/bin/env bash
# experiments/beam/schedraw.sh: a bad argument is one message and exit 2; on the installed VM a
# run of each +scl setting writes one row each, whose instances are the normal schedulers' (1 or
# 2), whose `moved` says whether proc1's and proc3's differ, and whose carriers and faults are
# counts; report/derive.sh's summary of it has a row per setting that adds up. No erl: a note
# and exit 77 (skipped).
# $1: build directory root (unused: the script builds nothing); $2: unused.
set -u
here=$(cd "$(dirname "$0")" && pwd)
script="$here/../experiments/beam/schedraw.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }

while IFS='|' read -r what args; do
    # shellcheck disable=SC2086 # args are words by design
    bash "$script" $args --out "$tmp/bad.csv" >"$tmp/o" 2>"$tmp/e"; rc=$?
    [ $rc -eq 2 ] && grep -q '^schedraw.sh: ' "$tmp/e" && [ ! -e "$tmp/bad.csv" ]; ok=$?
    check "$what: exit 2 with a message, nothing written (rc $rc: $(head -c 200 "$tmp/e"))" $ok
done <<EOT
unknown option|--bogus
runs not a number|--runs x
zero runs|--runs 0
length not a number|--len 1000x
EOT
bash "$script" --help >"$tmp/o" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q -- '--runs N' "$tmp/o"; check "--help: exit 0 with the usage (rc $rc)" $?

if ! command -v erl >/dev/null 2>&1; then
    echo "erl not found: skipping the VM part; apt-get install erlang-nox"
    echo "cli_schedraw: $pass passed, $fails failed"
    [ "$fails" -eq 0 ] || exit 1
    exit 77
fi
bash "$script" --runs 1 --len 1000 --iterations 100 --out "$tmp/schedraw.csv" 2>"$tmp/e"; ok=$?
check "one run of each setting (stderr: $(tail -c 200 "$tmp/e"))" $ok
lib=$(cat "$here/../report/csv.awk")
awk "$lib"'
    BEGIN { csv_who = "cli_schedraw" }
    /^# payload: strings, L = 1000, 100 calls per pass/ { payload = 1 }
    !csv_row() { next }
    { n++; seen[csv_get("scl")]++
      a = csv_get("start_instance"); b = csv_get("end_instance")
      if (a !~ /^[12]$/ || b !~ /^[12]$/) { print "an instance not a normal scheduler: " $0; bad = 1 }
      if ((csv_get("moved") == "yes") != (a != b)) { print "moved not the instances differing: " $0; bad = 1 }
      split("proc1_carriers proc2_carriers proc3_carriers proc1_faults proc2_faults proc3_faults", k, " ")
      for (i = 1; i <= 6; i++) if (csv_get(k[i]) !~ /^[0-9]+$/) { print k[i] " not a count: " $0; bad = 1 } }
    END { if (n != 2 || seen["true"] != 1 || seen["false"] != 1) { print n " rows, not one per setting"; bad = 1 }
          if (!payload) { print "no payload line"; bad = 1 }; exit bad }' "$tmp/schedraw.csv"
check "the CSV: a row per setting, instances 1 or 2, moved as they differ, counts" $?

# report/derive.sh's summary of it (the section alone, as the pipeline runs it)
mkdir -p "$tmp/der"
(
    # shellcheck disable=SC2034 # read by the derive.sh section eval runs
    res="$tmp" der="$tmp/der"
    lib="$(cat "$here/../report/csv.awk" "$here/../report/stats.awk")
BEGIN { csv_who = \"derive\" }
"
    eval "$(sed -n '/^# ---- which scheduler runs the tester/,/^fi$/p' "$here/../report/derive.sh")"
)
awk -F, 'NR > 1 { n++; r += $2; if ($3 > $2) bad = 1 } END { exit !(n == 2 && r == 2 && !bad) }' "$tmp/der/schedraw-summary.csv"
check "derive.sh: one summary row per setting, its runs and moved adding up" $?

echo "cli_schedraw: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
