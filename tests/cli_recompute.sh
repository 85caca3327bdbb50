#!/usr/bin/env bash
# report/recompute.sh from the outside, on a small committed-style CSV (the interventions'
# schema, 20 calls per pass): a model count that is not the current code's is listed with its
# row, column, committed and current value, and the exit status is 1; --out writes the copy the
# report reads, with the current count; --stamp leaves a file that differs alone, and stamps one
# whose counts all equal the current code's, which --check then takes as current without
# rerunning the model; --write rewrites the model columns and adds the model's git and date, and
# leaves a file already stamped with the current fingerprint alone.
# And report/compare.sh: two runs' results, counts and headline ratios.
# $1: build directory root ($1/experiments/ablate); $2: tests/data (unused).
set -u
here=$(cd "$(dirname "$0")" && pwd)
rc=$here/../report/recompute.sh cmp=$here/../report/compare.sh
bin="$1/experiments"
[ -x "$bin/ablate" ] && [ -x "$bin/eptest" ] && [ -x "$bin/etsbench" ] && [ -x "$bin/unitcost" ] ||
    { echo "cli_recompute: no ablate, eptest, etsbench or unitcost in $bin"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TC_RECOMPUTE_CACHE="$tmp/cache"
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }

# The current code's counts for the configuration of the rows below.
"$bin/ablate" --era otp25 --len 100 --iterations 20 --repeats 1 --csv "$tmp/a.csv" >/dev/null 2>&1
read -r gcs faults carriers < <(awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
    $c["ablation"] == "word_gc_test" { print $c["lookup_gcs"], $c["lookup_faults"], $c["lookup_carriers_mapped"] }' "$tmp/a.csv")
[ -n "$carriers" ]; check "ablate gives word_gc_test's lookup GCs, faults and carriers ($gcs $faults $carriers)" $?
mk() { # MODEL_GCS_OF_ROW_1: the committed CSV, row 2 with the current count
    cat <<CSV
# experiment: a committed measurement (test)
# date: 2026-01-01T00:00:00Z
# git: abc1234
# machine: test machine
# runs: 1 rounds; 20 calls per pass, 1 fresh testers per VM run, 1 run(s) per model ablation
variant,payload_len,vm_ratio,vm_lookup_gcs,vm_lookup_faults,vm_carriers,model_ratio,model_lookup_gcs,model_lookup_faults,model_carriers,model_ablation,vm_extra_flags,vm_proc_us,vm_lookup_us,model_proc_us,model_lookup_us,rounds
shipped,100,0.5,5,0,0,0.5,$1,$faults,$carriers,word_gc_test,-,1,1,1,1,1
word_gc_test,100,0.5,5,0,0,0.5,$gcs,$faults,$carriers,word_gc_test,-,1,1,1,1,1
CSV
}
mkdir -p "$tmp/data"
mk 9999 >"$tmp/data/vm-interventions.csv"
cp "$tmp/data/vm-interventions.csv" "$tmp/committed.csv"
bash "$rc" --check --bin "$bin" --out "$tmp/out" "$tmp/data/vm-interventions.csv" >"$tmp/log" 2>&1
r=$?
[ $r -eq 1 ] && grep -q "row 1 (variant=shipped payload_len=100 model_ablation=word_gc_test): model_lookup_gcs: 9999 -> $gcs" "$tmp/log" &&
    ! grep -q 'row 2 ' "$tmp/log"
ok=$?; check "--check: exit $r, the differing cell listed, the equal one not ($(cat "$tmp/log"))" $ok
cmp -s "$tmp/data/vm-interventions.csv" "$tmp/committed.csv"; check "--check leaves the committed file as it was" $?
[ "$(awk -F, '$1 == "shipped" { print $8 }' "$tmp/out/vm-interventions.csv")" = "$gcs" ]
check "--out: the copy has the current count" $?
grep -q '^vm-interventions.csv,1 counts differ' "$tmp/out/recompute-state.csv"; check "--out: the state says which file differs" $?
bash "$rc" --stamp --bin "$bin" "$tmp/data/vm-interventions.csv" >/dev/null 2>&1
r=$?
[ $r -eq 1 ] && ! grep -q '^# model_sources:' "$tmp/data/vm-interventions.csv"; check "--stamp: a file that differs is not stamped (exit $r)" $?
mk "$gcs" >"$tmp/data/vm-interventions.csv"
bash "$rc" --stamp --bin "$bin" "$tmp/data/vm-interventions.csv" >/dev/null 2>&1
r=$?
fp=$(bash "$rc" --fingerprint)
[ $r -eq 0 ] && grep -q "^# model_sources: $fp " "$tmp/data/vm-interventions.csv"; check "--stamp: an equal file is stamped with the fingerprint (exit $r)" $?
rm -rf "$tmp/cache"
bash "$rc" --check --bin "$bin" "$tmp/data/vm-interventions.csv" >"$tmp/log" 2>&1
r=$?
[ $r -eq 0 ] && grep -q 'current' "$tmp/log" && [ ! -d "$tmp/cache/$fp" -o -z "$(ls "$tmp/cache/$fp" 2>/dev/null)" ]
ok=$?; check "--check: a stamped file is current without a model run (exit $r, $(cat "$tmp/log"))" $ok
mk 9999 >"$tmp/data/vm-interventions.csv"
bash "$rc" --write --bin "$bin" "$tmp/data/vm-interventions.csv" >/dev/null 2>&1
r=$?
[ $r -eq 0 ] && [ "$(awk -F, '$1 == "shipped" { print $8 }' "$tmp/data/vm-interventions.csv")" = "$gcs" ] &&
    grep -q '^# model_git: ' "$tmp/data/vm-interventions.csv" && grep -q '^# model_date: ' "$tmp/data/vm-interventions.csv" &&
    grep -q '^# date: 2026-01-01T00:00:00Z' "$tmp/data/vm-interventions.csv" && [ "$(awk -F, '$1 == "shipped" { print $4 }' "$tmp/data/vm-interventions.csv")" = 5 ]
check "--write: the model count rewritten, the VM columns and their date kept, the model's git and date added (exit $r)" $?
# a file stamped with the current fingerprint is current: --write leaves it (./run report --restamp
# runs --stamp, then --write, which must rerun only the files --stamp left)
mk 9999 | awk -v fp="$fp" '!/^#/ && !d { print "# model_sources: " fp " (test)"; d = 1 } { print }' >"$tmp/data/vm-interventions.csv"
cp "$tmp/data/vm-interventions.csv" "$tmp/stamped.csv"
bash "$rc" --write --bin "$bin" "$tmp/data/vm-interventions.csv" >/dev/null 2>&1
r=$?
[ $r -eq 0 ] && cmp -s "$tmp/data/vm-interventions.csv" "$tmp/stamped.csv"
check "--write: a file stamped with the current fingerprint is left as it is (exit $r)" $?
# The rounds file: the model's faults of one configuration may take more than one value from
# run to run, and the committed rounds record them; --check's one run reproduces the file when
# its faults are within tolerance of any committed round's, and differs when of none.
mkr() { # FAULTS_ROUND_1 FAULTS_ROUND_2
    cat <<CSV
# experiment: interventions' rounds (test)
# runs: 2 rounds; per round and length ablate --era otp25 once, then each variant; 20 calls per pass, 1 fresh testers per VM run, 1 run(s) per model ablation
side,round,variant,payload_len,proc_us,lookup_us,ratio,lookup_gcs,lookup_faults,carriers,source
model,1,word_gc_test,100,1,1,1,$gcs,$1,$carriers,model
model,2,word_gc_test,100,1,1,1,$gcs,$2,$carriers,model
CSV
}
mkr $((faults + 50)) "$faults" >"$tmp/data/vm-interventions-rounds.csv"
bash "$rc" --check --bin "$bin" "$tmp/data/vm-interventions-rounds.csv" >"$tmp/log" 2>&1
ok=$?; check "rounds: faults as one committed round's reproduce the file (exit $ok: $(cat "$tmp/log"))" $ok
mkr $((faults + 50)) $((faults + 60)) >"$tmp/data/vm-interventions-rounds.csv"
bash "$rc" --check --bin "$bin" "$tmp/data/vm-interventions-rounds.csv" >"$tmp/log" 2>&1
r=$?
[ $r -eq 1 ] && grep -q "row 1 .*lookup_faults: $((faults + 50)) -> $faults" "$tmp/log"
ok=$?; check "rounds: faults as no committed round's differ (exit $r: $(cat "$tmp/log"))" $ok
bash "$rc" --bogus >/dev/null 2>&1; [ $? -eq 2 ]; check "--bogus exits 2" $?
bash "$rc" --write --quick >/dev/null 2>&1; [ $? -eq 2 ]; check "--write --quick exits 2" $?

# ---- unitcost: model_faults matched by unit, shape, words, dest and src ------------------------
"$bin/unitcost" --quick --csv "$tmp/u.csv" >/dev/null 2>&1
# a committed quick run: its header and two fresh rows with a fault count, the first 10 faults
# off (past the 2-fault tolerance), in reverse order, and a unit the code does not have
{ echo "# experiment: unitcost --quick --vm"; grep -v '^#' "$tmp/u.csv" | head -n 1
  grep -v '^#' "$tmp/u.csv" | awk -F, '$8 == "fresh" && $10 ~ /^[0-9]+/' | head -n 2 |
      awk -F, -v OFS=, 'NR == 1 { $10 = $10 + 10 } { l[NR] = $0 } END { print l[2]; print l[1] }'
  echo "no_such_unit,ints,64,5.0,5.0,1.0,n/a,fresh,hot,3,3"; } >"$tmp/data/unitcost-quick.csv"
bash "$rc" --check --bin "$bin" "$tmp/data/unitcost-quick.csv" >"$tmp/log" 2>&1
r=$?
[ $r -eq 1 ] && grep -q 'unitcost-quick.csv: row 2 .*model_faults' "$tmp/log" && ! grep -q 'row 1 .*model_faults' "$tmp/log" &&
    grep -q 'row 3: the current unitcost has no such unit' "$tmp/log"
ok=$?; check "unitcost: the row 10 faults off and the unknown unit listed, the equal row not: exit $r ($(cat "$tmp/log"))" $ok

# ---- a priced sweep: '# prices: FILE' runs eptest --prices, model_priced_ratio checked within 0.5 % --
# The model's page faults move a little from run to run, so the committed row is the one
# recompute --out writes from its own (cached) run; the checks below reuse that run. No fault
# price, so the priced ratio of eptest's own run is the same.
{ echo "# date: hand-made"
  echo "shape,payload_len,loop,fixed_ns,word_ns,gc_minor_ns,gc_major_ns,gc_word_ns,gc_move_word_ns,gc_dirty_ns,gc_long_ns,gc_long_gcs,fault_ns,carrier_ns,carrier_dirty_ns,sleep_ns,fixed_sleeps,dirty_sleeps"
  echo "ints,300,rt,900,1,500,900,2,1,0,0,0,0,0,0,0,0,0"
  echo "ints,300,lookup,50,1,500,900,2,2,0,0,0,0,0,0,0,0,0"; } >"$tmp/prices.csv"
{ printf '# experiment: fidelity sweep (test)\n# points: 1; 20 calls per pass\n# prices: %s (hand-made)\n' "$tmp/prices.csv"
  echo "shape,payload_len,model_lookup_gcs,vm_lookup_gcs,model_rt_gcs,vm_rt_gcs,model_lookup_faults,vm_lookup_faults,model_rt_faults,vm_rt_faults,model_lookup_carriers,vm_lookup_carriers,model_rt_carriers,vm_rt_carriers,model_ratio,vm_ratio,model_priced_ratio"
  echo "ints,300,0,1,0,1,0,1,0,1,0,1,0,1,0.5,0.5,0"; } >"$tmp/data/fidelity-sweep.csv"
bash "$rc" --check --bin "$bin" --out "$tmp/sw" "$tmp/data/fidelity-sweep.csv" >"$tmp/log" 2>&1
r=$?
# eptest --prices's own priced ratio: the lookup over the median of proc1..3
"$bin/eptest" --era otp25 --shape ints --len 300 --iterations 20 --repeats 1 --prices "$tmp/prices.csv" --csv "$tmp/e.csv" >/dev/null 2>&1
got=$(awk "$(cat "$here/../report/csv.awk")"'!csv_row() { next } { print csv_get("model_priced_ratio") }' "$tmp/sw/fidelity-sweep.csv")
want=$(awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next } { p[$c["test"]] = $c["priced_us"] }
    END { a = p["proc1"]; b = p["proc2"]; d = p["proc3"]; m = (a > b ? (b > d ? b : (a > d ? d : a)) : (a > d ? a : (b > d ? d : b)))
          printf "%.3f", p["ets_lookup"] / m }' "$tmp/e.csv")
[ $r -eq 1 ] && grep -q 'row 1 .*model_priced_ratio: 0 -> ' "$tmp/log" && [ -n "$got" ] &&
    [ "$got" = "$want" ]
ok=$?; check "a priced sweep: the priced ratio recomputed with its prices ($got; eptest --prices: $want), exit $r" $ok
cp "$tmp/sw/fidelity-sweep.csv" "$tmp/data/fidelity-sweep.csv"
bash "$rc" --check --bin "$bin" "$tmp/data/fidelity-sweep.csv" >"$tmp/log" 2>&1
r=$?
[ $r -eq 0 ]; ok=$?; check "a priced sweep with the current code's counts and priced ratio: exit $r ($(cat "$tmp/log"))" $ok
awk -F, -v OFS=, '/^#/ || !h { if (!/^#/) { h = 1; for (i = 1; i <= NF; i++) if ($i == "model_priced_ratio") k = i } print; next }
    { $k = sprintf("%.3f", $k * 1.02); print }' "$tmp/sw/fidelity-sweep.csv" >"$tmp/data/fidelity-sweep.csv"
bash "$rc" --check --bin "$bin" "$tmp/data/fidelity-sweep.csv" >"$tmp/log" 2>&1
r=$?
[ $r -eq 1 ] && grep -q 'fidelity-sweep.csv: row 1 .*model_priced_ratio' "$tmp/log"
ok=$?; check "a priced sweep's ratio 2 % off is listed: exit $r ($(cat "$tmp/log"))" $ok
# The prices measured again into the same file (the lookup's fixed price four times): the
# committed ratio is no longer the current prices', whatever the cache holds from the old ones.
cp "$tmp/sw/fidelity-sweep.csv" "$tmp/data/fidelity-sweep.csv"
sed -i 's/^ints,300,lookup,50,/ints,300,lookup,200,/' "$tmp/prices.csv"
bash "$rc" --check --bin "$bin" "$tmp/data/fidelity-sweep.csv" >"$tmp/log" 2>&1
r=$?
[ $r -eq 1 ] && grep -q 'fidelity-sweep.csv: row 1 .*model_priced_ratio' "$tmp/log"
ok=$?; check "a priced sweep whose prices file changed is rechecked, not served from the cache: exit $r ($(cat "$tmp/log"))" $ok
rm -f "$tmp/data/fidelity-sweep.csv"

# ---- the interventions priced: each row's model with its switch, at its round's VM's prices -----
# Two rows of one round (rebuilt, word_gc_test) and their prices (no fault price, so the ratio
# does not move with the model's page faults): the committed model columns are wrong for the
# word test's row only; --check lists them, --out's copy has the current code's, which --check
# then finds equal; a row whose prices are not in the prices file is an error.
mkdir -p "$tmp/pr"
{ echo "# experiment: the interventions priced (test)"
  echo "round,variant,shape,payload_len,loop,fixed_ns,word_ns,gc_minor_ns,gc_major_ns,gc_word_ns,gc_move_word_ns,gc_dirty_ns,gc_long_ns,gc_long_gcs,fault_ns,carrier_ns,carrier_dirty_ns,sleep_ns,fixed_sleeps,dirty_sleeps"
  for v in rebuilt word_gc_test; do
      echo "1,$v,ints,300,rt,900,1,500,900,2,1,0,0,0,0,0,0,0,0,0"
      echo "1,$v,ints,300,lookup,50,1,500,900,2,2,0,0,0,0,0,0,0,0,0"
  done; } >"$tmp/pr/vm-interventions-priced-prices.csv"
hdr="round,variant,model_switch,payload_len,vm_ratio,model_priced_ratio,vm_lookup_gcs,model_lookup_gcs,vm_lookup_faults,model_lookup_faults,vm_lookup_carriers,model_lookup_carriers,vm_proc_gcs,model_proc_gcs,vm_proc_carriers,model_proc_carriers,vm_lookup_priced_over_vm,vm_proc_priced_over_vm,vm_lookup_us,vm_lookup_priced_us,model_lookup_priced_us,vm_proc_us,vm_proc_priced_us,model_proc_priced_us,vm_lookup_sleeps,vm_proc_sleeps,vm_proc_sleep_us"
{ echo "# runs: 1 rounds over lengths 300; 20 calls per pass"; echo "$hdr"
  echo "1,rebuilt,none,300,0.5,0,5,0,0,0,0,0,5,0,0,0,1,1,9,9,0,9,9,0,0,0,0"
  echo "1,word_gc_test,bif_gc_test=words,300,0.5,0,5,0,0,0,0,0,5,0,0,0,1,1,9,9,0,9,9,0,0,0,0"; } >"$tmp/pr/vm-interventions-priced.csv"
# its one-scheduler twin (priced.sh --schedulers 1), the same rows under its own name and prices
cp "$tmp/pr/vm-interventions-priced.csv" "$tmp/pr/vm-interventions-priced-s1.csv"
cp "$tmp/pr/vm-interventions-priced-prices.csv" "$tmp/pr/vm-interventions-priced-s1-prices.csv"
bash "$rc" --check --bin "$bin" --out "$tmp/pr/out" "$tmp/pr/vm-interventions-priced.csv" >"$tmp/log" 2>&1
r=$?
# the model's own counts and priced ratio for the word test's row
"$bin/eptest" --era otp25 --set bif_gc_test=words --shape ints --len 300 --iterations 20 --repeats 1 \
    --prices "$tmp/prices.csv" --csv "$tmp/ew.csv" >/dev/null 2>&1
wg=$(awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next } $c["test"] == "ets_lookup" { print $c["gcs"] }' "$tmp/ew.csv")
got=$(awk "$(cat "$here/../report/csv.awk")"'!csv_row() { next } csv_get("variant") == "word_gc_test" { print csv_get("model_lookup_gcs") }' "$tmp/pr/out/vm-interventions-priced.csv")
[ $r -eq 1 ] && grep -q 'row 2 (.*variant=word_gc_test.*): model_lookup_gcs: 0 -> ' "$tmp/log" &&
    grep -q 'row 2 .*model_priced_ratio: 0 -> ' "$tmp/log" && grep -q 'row 2 .*model_proc_priced_us: 0 -> ' "$tmp/log" &&
    [ -n "$wg" ] && [ "$got" = "$wg" ]
ok=$?; check "priced interventions: a row's model with its switch at its prices (lookup GCs $got, eptest --set: $wg), exit $r" $ok
cp "$tmp/pr/out/vm-interventions-priced.csv" "$tmp/pr/vm-interventions-priced.csv"
bash "$rc" --check --bin "$bin" "$tmp/pr/vm-interventions-priced.csv" >"$tmp/log" 2>&1
r=$?; [ $r -eq 0 ]; ok=$?; check "priced interventions: the current code's columns check equal: exit $r ($(cat "$tmp/log"))" $ok
bash "$rc" --check --bin "$bin" "$tmp/pr/vm-interventions-priced-s1.csv" >"$tmp/log" 2>&1
r=$?; [ $r -eq 1 ] && grep -q 'vm-interventions-priced-s1.csv: row 2 (.*variant=word_gc_test.*): model_lookup_gcs: 0 -> ' "$tmp/log"
ok=$?; check "priced interventions on one scheduler: the -s1 file's model columns are rechecked as the priced file's: exit $r" $ok
sed -i '/^1,word_gc_test,/d' "$tmp/pr/vm-interventions-priced-prices.csv"
bash "$rc" --check --bin "$bin" "$tmp/pr/vm-interventions-priced.csv" >"$tmp/log" 2>&1
r=$?; [ $r -eq 2 ] && grep -q 'no prices of round 1, word_gc_test' "$tmp/log"
ok=$?; check "priced interventions: a row without its prices is an error: exit $r ($(cat "$tmp/log"))" $ok

# ---- compare.sh: two runs ----------------------------------------------------------------------
run() { # DIR MODEL_GCS VM_RATIO: a run's results with one count file and the canonical table
    mkdir -p "$1/derived"
    printf 'era,ablation,lookup_gcs,ratio\notp25,baseline,%s,1.2\n' "$2" >"$1/ablate.csv"
    printf 'shape,payload_len,model_ratio,model_ratio_lo,model_ratio_hi,vm_ratio,vm_ratio_lo,vm_ratio_hi\nints,1000,1.0,0.9,1.1,%s,%s,%s\n' \
        "$3" "$(awk -v r="$3" 'BEGIN { print r - 0.1 }')" "$(awk -v r="$3" 'BEGIN { print r + 0.1 }')" >"$1/derived/answer.csv"
}
run "$tmp/A" 125 0.9; run "$tmp/B" 125 0.95
bash "$cmp" "$tmp/A" "$tmp/B" >"$tmp/log" 2>&1; r=$?
[ $r -eq 0 ] && grep -q "the model's: 0 differ" "$tmp/log" && grep -q '2 of 2 inside' "$tmp/log"
ok=$?; check "compare.sh: equal counts, ratios inside each other's intervals: exit $r ($(cat "$tmp/log"))" $ok
# rows told apart by a column other than shape and size (a unit's destination, an account's
# loop) are matched by it, whatever their order
mkdir -p "$tmp/D/derived" "$tmp/E/derived"
printf 'unit,shape,words,dest,model_faults\ncopy_shallow,ints,32768,warm,0\ncopy_shallow,ints,32768,fresh,63\n' >"$tmp/D/unitcost.csv"
printf 'unit,shape,words,dest,model_faults\ncopy_shallow,ints,32768,fresh,63\ncopy_shallow,ints,32768,warm,0\n' >"$tmp/E/unitcost.csv"
printf 'shape,payload_len,loop,model_faults\nints,1000,proc1,56\nints,1000,ets_lookup,0\n' >"$tmp/D/account.csv"
printf 'shape,payload_len,loop,model_faults\nints,1000,ets_lookup,0\nints,1000,proc1,56\n' >"$tmp/E/account.csv"
bash "$cmp" "$tmp/D" "$tmp/E" >"$tmp/log" 2>&1; r=$?
[ $r -eq 0 ] && grep -q "the model's: 0 differ" "$tmp/log"
ok=$?; check "compare.sh: rows matched by destination and loop, not by order: exit $r ($(cat "$tmp/log"))" $ok
run "$tmp/C" 126 1.2
bash "$cmp" "$tmp/A" "$tmp/C" >"$tmp/log" 2>&1; r=$?
[ $r -eq 1 ] && grep -q 'ablate.csv: lookup_gcs.*125 -> 126' "$tmp/log" && grep -q 'ints L=1000 *vm .*neither inside' "$tmp/log"
ok=$?; check "compare.sh: a model count that differs and a ratio outside: exit $r ($(cat "$tmp/log"))" $ok

echo "cli_recompute: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
