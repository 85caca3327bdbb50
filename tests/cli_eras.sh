#!/usr/bin/env bash
# experiments/beam/eras: the runner's argument handling (no old VM needed), the schema of the
# committed report/data/eras.csv, and the era benchmarks' Erlang compiling and running on the
# installed OTP 25. No erl: a note and exit 77 (skipped). The runs on the old VMs themselves are
# cli_eras_vms.sh (skipped unless TC_ERAS_VMS names them).
# $1: build directory root (its experiments/ has the model's eptest and etsbench); $2: unused.
set -u
here=$(cd "$(dirname "$0")" && pwd)
eras="$here/../experiments/beam/eras"
csv="$here/../report/data/eras.csv"
lib=$(cat "$here/../report/csv.awk")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }

# ---- the runner's arguments: each bad one is one line on stderr and exit 2, nothing written
runner() { bash "$eras/run.sh" --model "$1" --out "$tmp/out.csv" "${@:2}" >"$tmp/o" 2>"$tmp/e"; }
runner "$1"; rc=$?
[ $rc -eq 2 ]; check "no VM: exit 2 (got $rc)" $?
[ "$(wc -l <"$tmp/e")" -eq 1 ]; check "no VM: one line" $?
grep -q 'r10b-2-32.*r13b01-smp.*e4bd6dec3.*7b734f235' "$tmp/e"; check "no VM: names the releases and the source" $?
mkdir -p "$tmp/notavm"
while IFS='|' read -r what args; do
    # shellcheck disable=SC2086
    runner "$1" $args; rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q '^eras: ' "$tmp/e"; ok=$?; check "$what: exit 2 with one line (rc $rc: $(head -c 200 "$tmp/e"))" $ok
done <<EOT
unknown VM|r9b=$tmp/notavm
unknown rebuilt VM|r13b01-plain@chain3=$tmp/notavm
a rebuild of a VM that has none|r10b-2-64@grow1=$tmp/notavm
a rebuilt R13B01 tree with no launcher|--dry-run r13b01-smp@grow1=$tmp/notavm
otp25 with a root|otp25=$tmp/notavm
root not a directory|r10b-2-64=$tmp/nowhere
the same VM twice|r13b01-smp=$tmp/notavm r13b01-smp=$tmp/notavm
not NAME=ROOT|r10b-2-64
unknown option|--bogus r10b-2-64=$tmp/notavm
length out of range|--lens 5 r10b-2-64=$tmp/notavm
length not a number|--lens 1000x r10b-2-64=$tmp/notavm
zero rounds|--rounds 0 r10b-2-64=$tmp/notavm
unreadable provenance|--provenance $tmp/none r10b-2-64=$tmp/notavm
a tree with no emulator|--dry-run r10b-2-64=$tmp/notavm
an R13B01 tree with no launcher|--dry-run r13b01-plain=$tmp/notavm
keep a VM the file does not hold|--keep r10b-2-32 r10b-2-64=$tmp/notavm
keep an unknown VM|--keep r9b r10b-2-64=$tmp/notavm
EOT
bash "$eras/run.sh" --model "$tmp/nomodel" r10b-2-64="$tmp/notavm" >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q 'no model build' "$tmp/e"; check "no model build: exit 2 (rc $rc)" $?
bash "$eras/run.sh" --help >"$tmp/o" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q 'NAME=ROOT' "$tmp/o" && ! grep -q '^set ' "$tmp/o"; check "--help: the usage, exit 0" $?
[ ! -e "$tmp/out.csv" ]; check "nothing written on bad input" $?

# ---- the committed CSV: metadata, header, the row kinds and their model columns
# a file of the runs before faults were counted (the --keep fixture below is one)
want_old="vm,variant,benchmark,test,payload_len,iterations,median_us,min_us,max_us,ops_per_s,ratio,gcs,ns_per_op,cpu_ms,rounds,model_era,model_config,model_median_us,model_ratio,model_gcs,model_ns_per_op"
want="$want_old,faults,model_faults,gc_words,carriers,frag_words,priced_us,model_priced_us,model_priced_ratio"
[ "$(grep -v '^#' "$csv" | head -n 1)" = "$want" ]; check "eras.csv: header" $?
# the unit prices beside it: the account's prices header after a vm column, both loops of every
# priced VM at every length its eptest rows have, each price a number; and eras.csv's priced
# columns on those VMs' base rows (the VM's counts and the model's at those prices)
pcsv="${csv%.csv}-prices.csv"
[ "$(grep -v '^#' "$pcsv" | head -n 1)" = "vm,shape,payload_len,loop,fixed_ns,word_ns,gc_minor_ns,gc_major_ns,gc_word_ns,gc_move_word_ns,gc_dirty_ns,gc_long_ns,gc_long_gcs,fault_ns,carrier_ns,carrier_dirty_ns,sleep_ns,fixed_sleeps,dirty_sleeps,gc_frag_word_ns" ]
check "eras-prices.csv: header" $?
grep -q '^# priced: ' "$csv"; check "eras.csv: the priced columns described" $?
awk "$lib"'
    BEGIN { csv_who = "cli_eras" }
    !csv_row() { next }
    csv_file == 1 { k = csv_get("vm") SUBSEP csv_get("payload_len") SUBSEP csv_get("loop"); priced[k] = 1; vms[csv_get("vm")] = 1
        for (i = 5; i <= csv_nf; i++) if (csv_f[i] !~ /^-?[0-9]+(\.[0-9]+)?$/) { print "not a price: " $0; bad = 1 }
        if (csv_get("fixed_ns") + 0 <= 0 || csv_get("fault_ns") + 0 <= 0) { print "no fixed or fault price: " $0; bad = 1 }
        next }
    { vm = csv_get("vm"); t = csv_get("test"); L = csv_get("payload_len")
      if (!(vm in vms) || csv_get("variant") != "base" || csv_get("benchmark") != "eptest" || t !~ /^(proc[123]|ets_lookup)$/) next
      n++
      if (!((vm, L, "rt") in priced) || !((vm, L, "lookup") in priced)) { print "no prices for " vm " at " L; bad = 1 }
      if (csv_get("priced_us") + 0 <= 0 || csv_get("model_priced_us") + 0 <= 0) { print "not priced: " $0; bad = 1 }
      if (t == "ets_lookup" && csv_get("model_priced_ratio") + 0 <= 0) { print "no priced ratio: " $0; bad = 1 } }
    END { for (v in vms) nv++; if (nv != 3) { print nv " priced VMs, not 3"; bad = 1 }
          if (n < 3 * 6 * 4) { print n " priced rows, fewer than 3 VMs x 6 lengths x 4 passes"; bad = 1 }; exit bad }' "$pcsv" "$csv"
check "eras.csv: every pass of the priced VMs priced on both sides" $?
for key in source compiler cflags r10b-2_fixes_sha256 r13b01_fixes_sha256 r10b-2-32_beam_emu_flags r10b-2-64_beam_emu_flags \
    r13b01-plain_beam_emu_flags r13b01-smp_beam_emu_flags r10b-2-32_system_version r13b01-smp_system_version date git machine load; do
    grep -q "^# $key: ." "$csv"; check "eras.csv: metadata $key" $?
done
awk "$lib"'
    BEGIN { csv_who = "cli_eras" }
    !csv_row() { next }
    { vm = csv_get("vm"); b = csv_get("benchmark"); t = csv_get("test"); seen[vm]++
      if (vm !~ /^(r10b-2-32|r10b-2-64|r13b01-plain|r13b01-smp|otp25)$/) { print "bad vm " vm; bad = 1 }
      if (b == "eptest" && t !~ /^(proc[123]|ets_insert|ets_overwrite|ets_lookup|empty)$/) { print "bad eptest test " t; bad = 1 }
      if ((b == "ets_test" || b == "pdict") && t !~ /^(insert|lookup|update|loop)$/) { print "bad loop " t; bad = 1 }
      if (b !~ /^(eptest|ets_test|pdict)$/) { print "bad benchmark " b; bad = 1 }
      if (csv_get("median_us") == "" || csv_get("min_us") == "") { print "no time: " $0; bad = 1 }
      # the bars: every R10B-2 and R13B01 base row at the seeds sizes has the model beside it
      # (the emulator loop is measured on the VM alone: the phase the model does not execute)
      if (csv_get("variant") == "base" && vm ~ /^r1/ && (b == "eptest" || csv_get("iterations") == 1000000) &&
          t != "loop" && csv_get("model_median_us") == "") { print "no model: " $0; bad = 1 }
      # a rebuilt VM (NAME@BUILD) has the model with the same change beside it
      if (csv_get("variant") == "grow1" && t != "loop" && csv_get("model_config") !~ /--set ets_grow=gt_1x/) {
          print "rebuilt VM without the model switch: " $0; bad = 1 }
      if (b == "eptest" && csv_get("gcs") == "") { print "no tester gcs: " $0; bad = 1 }
      # R13B01 SMP: the model places messages as its erts_alloc_message_heap does
      if (b == "eptest" && vm == "r13b01-smp" && csv_get("model_config") != "eptest --era r13b --set send_path=heap_or_frag") {
          print "SMP rows without the SMP placement: " $0; bad = 1 }
      # and its dictionary and table loops with its allocators locked (alloc_lock), those of the
      # plain emulator without
      if (b != "eptest" && t != "loop" && vm ~ /^r13b01/ && csv_get("model_config") != "" &&
          (csv_get("model_config") ~ /--set alloc_lock=on/) != (vm == "r13b01-smp")) {
          print b " row with the other emulator allocator locks: " $0; bad = 1 }
      # faults: counted on every VM this run ran (the 32-bit rows are kept from a run before)
      if (b == "eptest" && vm != "r10b-2-32" && csv_get("faults") !~ /^[0-9]+$/) { print "no faults: " $0; bad = 1 }
      if (b == "eptest" && csv_get("variant") == "base" && vm ~ /^(r10b-2-64|r13b01-plain|otp25)$/ &&
          csv_get("model_faults") !~ /^[0-9]+$/) { print "no model faults: " $0; bad = 1 }
      if (b == "eptest" && t == "ets_lookup" && csv_get("ratio") == "") { print "no ratio: " $0; bad = 1 } }
    END { for (v in seen) n++; if (n != 5) { print n " VMs, not 5"; bad = 1 }; exit bad }' "$csv"
check "eras.csv: every row a known VM, benchmark and test, with its model" $?

# ---- the model's dictionary loops alone (run.sh's R13B01 SMP rows: etsbench --pdict with the
# SMP emulator's allocator locks): the eight dictionary rows and no table's, the switch in the
# metadata, the puts' faults a count
"$1/experiments/etsbench" --era r13b --pdict --set alloc_lock=on --iterations 20000 --repeats 1 --csv "$tmp/pd.csv" >/dev/null 2>&1
check "etsbench --pdict runs" $?
awk "$lib"'
    BEGIN { csv_who = "cli_eras" }
    /^# experiment: .*--pdict/ { flag = 1 }
    /^# era_set: .*alloc_lock=on/ { locked = 1 }
    !csv_row() { next }
    { n++; if (csv_get("lock_mode") != "pdict") { print "a table row: " $0; bad = 1 }
      if (csv_get("op") == "put" && csv_get("faults") !~ /^[0-9]+$/) { print "faults not a count"; bad = 1 } }
    END { if (n != 8) { print n " rows, not 8"; bad = 1 }
          if (!flag || !locked) { print "the switches not in the metadata"; bad = 1 }; exit bad }' "$tmp/pd.csv"
check "etsbench --pdict: the dictionary rows only, the switches named" $?

# ---- the tables of one emulator alone (run.sh's --modes none for the plain emulator and
# --modes write_concurrency --set alloc_lock=on for the SMP one): that mode's rows on 1 and 2
# threads and the dictionary's, the modes in the metadata; a mode etsbench has not is an error
"$1/experiments/etsbench" --era r13b --modes write_concurrency --set alloc_lock=on --iterations 2000 --repeats 1 \
    --csv "$tmp/wc.csv" >/dev/null 2>&1
check "etsbench --modes runs" $?
awk "$lib"'
    BEGIN { csv_who = "cli_eras" }
    /^# experiment: .*--modes write_concurrency/ { flag = 1 }
    !csv_row() { next }
    { m = csv_get("lock_mode"); n[m]++
      if (m != "pdict" && m != "write_concurrency") { print "a row of another mode: " $0; bad = 1 } }
    END { if (n["write_concurrency"] != 8 || n["pdict"] != 8) { print "not 8 rows of the mode and 8 of the dictionary"; bad = 1 }
          if (!flag) { print "--modes not in the metadata"; bad = 1 }; exit bad }' "$tmp/wc.csv"
check "etsbench --modes: that mode's rows and the dictionary's" $?
"$1/experiments/etsbench" --modes none,bogus --quick >/dev/null 2>"$tmp/bad.err"
[ $? -eq 2 ] && grep -q -- "--modes" "$tmp/bad.err"
check "etsbench --modes with a mode it has not: exit 2, the option named" $?

# ---- the Erlang sources on OTP 25
if ! command -v erlc >/dev/null 2>&1; then
    echo "erl not found: skipping the Erlang part; apt-get install erlang-nox"
    echo "cli_eras: $pass passed, $fails failed"
    [ "$fails" -eq 0 ] || exit 1
    exit 77
fi
erlc -Werror -o "$tmp" "$eras/eras_ep.erl" "$eras/eras_ets.erl" "$eras/eras_trace.erl" "$eras/eras_price.erl"; check "erlc -Werror compiles all four" $?
erl -noshell -pa "$tmp" -run eras_ep main otp25 100 50 2 "$tmp/ep.csv" >/dev/null 2>&1; check "eras_ep runs" $?
erl -noshell -pa "$tmp" -run eras_ep main otp25 1000 20 1 "$tmp/ep.csv" hot_key >/dev/null 2>&1; check "eras_ep hot_key appends" $?
erl +h 9999999 -noshell -pa "$tmp" -run eras_ets main otp25 2000 2 "$tmp/ets.csv" >/dev/null 2>&1; check "eras_ets runs" $?
awk "$lib"'
    BEGIN { csv_who = "cli_eras" }
    !csv_row() { next }
    { n++; t = csv_get("test"); g = csv_get("gcs"); s = csv_get("server_gcs")
      if (csv_get("vm") != "otp25" || csv_get("benchmark") != "eptest") bad = 1
      if (t == "ets_lookup" && csv_get("ratio") + 0 <= 0) { print "no ratio"; bad = 1 }
      if (g !~ /^[0-9]+$/ || s !~ /^[0-9]+$/) { print "gcs not counts: " g " " s; bad = 1 }
      if (csv_get("faults") !~ /^[0-9]+$/) { print "faults not a count: " csv_get("faults"); bad = 1 }
      # L = 1000: every lookup result (2003 words) overflows a fresh 233-word heap, so the tester collects
      if (t == "ets_lookup" && csv_get("payload_len") == 1000 && g + 0 == 0) { print "no lookup GC at L = 1000"; bad = 1 }
      # the words the collections copied: a count; at L = 1000 the results they copy off their
      # fragments, most of 2003 words a collection, and the round trips the payload they keep
      w = csv_get("gc_words")
      if (w !~ /^[0-9]+$/) { print "gc_words not a count: " w; bad = 1 }
      if (t == "ets_lookup" && csv_get("payload_len") == 1000 && w + 0 < 1000 * g) { print "lookup GCs copied " w " words in " g; bad = 1 }
      if (csv_get("frag_words") !~ /^[0-9]+$/) { print "frag_words not a count: " csv_get("frag_words"); bad = 1 }
      # The empty loop allocates nothing, but a GC the lookup pass left desired (its results in
      # heap fragments, or a large one delayed to the next schedule) can run inside its window
      # when the tester is scheduled out there, which depends on the load of the machine: at most that one.
      if (t == "empty" && g + 0 > 1) { print "the empty loop collected " g " times"; bad = 1 } }
    END { if (n != 14) { print n " rows, not 14"; bad = 1 }; exit bad }' "$tmp/ep.csv"
check "eras_ep: 7 tests x 2 runs, tester GC counts" $?
grep -q '^# wordsize: 8' "$tmp/ep.csv" && grep -q '^# vm_version: erts ' "$tmp/ep.csv"; check "eras_ep: VM metadata" $?
# eras_price: both loops' unit prices in the account's format, which eptest --prices reads
# (a fault priced 0: the runs' own faults, which vary by machine, then take nothing out of any
# price). Every price is a number; the fixed price and the collection with Data live are whole
# loops' times over an empty run's, far above it, so positive; the collection with nothing live
# is a few hundred ns over that empty run, a difference a stall in the empty run can turn
# negative on a loaded machine: a number only
erl -noshell -pa "$tmp" -run eras_price main 100 200 1 0 6000 "$tmp/pr.csv" >/dev/null 2>&1; check "eras_price runs" $?
awk "$lib"'
    BEGIN { csv_who = "cli_eras" }
    !csv_row() { next }
    { n++; seen[csv_get("loop")] = 1
      if (csv_get("shape") != "ints" || csv_get("payload_len") != 100 || csv_get("fault_ns") != "0.0" || csv_get("carrier_ns") != "6000.0") { print "row: " $0; bad = 1 }
      for (i = 4; i <= csv_nf; i++) if (csv_f[i] !~ /^-?[0-9]+(\.[0-9]+)?$/) { print "not a number: " $0; bad = 1 }
      if (csv_get("fixed_ns") + 0 <= 0 || csv_get("gc_major_ns") + 0 <= 0) { print "no price: " $0; bad = 1 }
      # OTP 25 moves a BIF fragment whole: no fragment word of its own, the collector word
      if (csv_get("gc_frag_word_ns") != csv_get("gc_word_ns")) { print "a fragment price on OTP 25: " $0; bad = 1 } }
    END { if (n != 2 || !("rt" in seen) || !("lookup" in seen)) { print n " rows"; bad = 1 }; exit bad }' "$tmp/pr.csv"
check "eras_price: rt and lookup rows, every price measured" $?
"$1/experiments/eptest" --era otp25 --len 100 --iterations 200 --repeats 1 --prices "$tmp/pr.csv" >"$tmp/o" 2>&1 &&
    grep -q "priced at the VM's prices" "$tmp/o"
check "eras_price: eptest --prices reads its rows" $?
erl -noshell -pa "$tmp" -run eras_price main 100 >/dev/null 2>&1; [ $? -eq 2 ]; check "eras_price: bad arguments exit 2" $?
awk "$lib"'
    BEGIN { csv_who = "cli_eras" }
    !csv_row() { next }
    { n++; k[csv_get("benchmark") "/" csv_get("test")]++
      if (csv_get("iterations") != 2000 || csv_get("ns_per_op") + 0 <= 0) bad = 1
      # +h 9999999: no loop of 2000 keys collects
      if (csv_get("gcs") + 0 != 0) { print "collected: " $0; bad = 1 } }
    END { for (x in k) m++; if (n != 8 || m != 8) { print n " rows"; bad = 1 }
          if (!(("ets_test/loop") in k) || !(("pdict/loop") in k)) { print "no emulator loop rows"; bad = 1 }; exit bad }' "$tmp/ets.csv"
check "eras_ets: ets_test and pdict, insert lookup update and the emulator loop, no GC under +h" $?
grep -q '^# table: \[public,{write_concurrency,true}\]' "$tmp/ets.csv"; check "eras_ets: the seed's table" $?
# pdict in a VM of its own (run.sh runs each benchmark so: a process's heap outlives it in the
# mseg cache, and pdict after ets_test would start on ets_test's pages): no ets_test rows, and
# its puts fault fresh heap pages, at least one for every page of words of their tuples
# (100000 x 3)
erl +h 9999999 -noshell -pa "$tmp" -run eras_ets main otp25 100000 1 "$tmp/p.csv" base pdict >/dev/null 2>&1
own=$(awk -F, '$3 == "pdict" && $4 == "insert" { print $NF }' "$tmp/p.csv")
[ "$(grep -c ',ets_test,' "$tmp/p.csv")" -eq 0 ] && [ "${own:-0}" -ge $((300000 * 8 / $(getconf PAGESIZE))) ]
check "eras_ets pdict alone: its puts fault fresh heap pages ($own)" $?
erl -noshell -pa "$tmp" -run eras_ets main otp25 100 1 "$tmp/x.csv" plain_set pdict >/dev/null 2>&1; [ $? -eq 2 ]
check "eras_ets: pdict with a table variant exits 2" $?
erl -noshell -pa "$tmp" -run eras_ep main otp25 100 10 1 "$tmp/x.csv" cold >/dev/null 2>&1; [ $? -eq 2 ]
check "eras_ep: an unknown variant exits 2" $?
erl -noshell -pa "$tmp" -run eras_ep main otp25 100 10 1 "$tmp/x.csv" rsbcmt_x >/dev/null 2>&1; [ $? -eq 2 ]
check "eras_ep: rsbcmt_ without a percentage exits 2" $?
erl +MHrsbcmt 40 -noshell -pa "$tmp" -run eras_ep main otp25 100 10 1 "$tmp/r.csv" rsbcmt_40 >/dev/null 2>&1 &&
    grep -q '^otp25,rsbcmt_40,eptest,ets_lookup,100,10,' "$tmp/r.csv"
check "eras_ep rsbcmt_40 runs and labels its rows" $?
erl -noshell -pa "$tmp" -run eras_ets main otp25 >/dev/null 2>&1; [ $? -eq 2 ]; check "eras_ets: bad arguments exit 2" $?
# eras_trace: its untraced run first (eras_ep's timed run, meter and all), then a row per GC
# of the traced tester, every pass that collects at L = 1000 (each lookup's result overflows
# the heap). Under a timeout: a tester that crashed left it waiting.
timeout 120 erl -noshell -pa "$tmp" -run eras_trace main 1000 20 "$tmp/tr.csv" >"$tmp/o" 2>&1; ok=$?
check "eras_trace runs ($(grep -m 1 -i error "$tmp/o"))" $ok
[ "$(awk -F, '$1 == "tester" { p[$2] = 1 } END { print p["proc1"] + p["ets_lookup"] }' "$tmp/tr.csv" 2>/dev/null)" = 2 ]
check "eras_trace: the tester's GCs in proc1 and ets_lookup" $?

# --keep: a VM this machine cannot run keeps its rows and metadata while OTP 25 runs afresh
if command -v erl >/dev/null 2>&1; then
    printf '%s\n' "# date: 2026-01-01T00:00:00Z" "# machine: somewhere" "# git: abc1234" "# load: load average 1 2 3" \
        "# r10b-2-32_system_version: Erlang (BEAM) emulator version 5.4.3 [source]" "$want_old" \
        "r10b-2-32,base,eptest,ets_lookup,100,100,1.0,1,1,1.0,0.5,7,,,1,r10b,eptest --era r10b,2.0,0.5,7," >"$tmp/kept.csv"
    bash "$eras/run.sh" --model "$1" --quick --keep r10b-2-32 --out "$tmp/kept.csv" >/dev/null 2>"$tmp/e"
    ok=$?; check "--keep with OTP 25 alone runs ($(tail -n 1 "$tmp/e"))" $ok
    grep -q '^r10b-2-32,base,eptest,ets_lookup,100,100,1.0,1,1,' "$tmp/kept.csv" &&
        grep -q '^otp25,base,eptest,ets_lookup,100,' "$tmp/kept.csv"
    check "--keep: the kept row as it was, OTP 25's new" $?
    grep -q '^r10b-2-32,base,eptest,ets_lookup,100,100,1.0,1,1,1.0,0.5000,7,,,1,r10b,eptest --era r10b,2.0,0.5,7,,,,,,,,,$' "$tmp/kept.csv"
    ok=$?; check "--keep: its model columns where this run ran no r10b model ($(grep '^r10b-2-32' "$tmp/kept.csv"))" $ok
    grep -q '^# r10b-2-32_kept: measured 2026-01-01T00:00:00Z on somewhere at git abc1234, load 1 2 3; its rows kept' "$tmp/kept.csv" &&
        grep -q '^# r10b-2-32_system_version: ' "$tmp/kept.csv" && grep -q '^# vms: otp25 (kept from an earlier run: r10b-2-32)' "$tmp/kept.csv"
    check "--keep: the kept rows' own date, machine and metadata" $?
    # kept again, with a provenance that gives one of its lines: the first date stays, each line once
    printf '%s\n' "# source: somewhere public" "# r10b-2-32_system_version: Erlang (BEAM) emulator version 5.4.3 [source]" >"$tmp/prov"
    bash "$eras/run.sh" --model "$1" --quick --keep r10b-2-32 --provenance "$tmp/prov" --out "$tmp/kept.csv" >/dev/null 2>"$tmp/e"
    ok=$?; check "--keep twice runs ($(tail -n 1 "$tmp/e"))" $ok
    grep -q '^# r10b-2-32_kept: measured 2026-01-01T00:00:00Z on somewhere at git abc1234' "$tmp/kept.csv" &&
        [ "$(grep -c '^# r10b-2-32_system_version: ' "$tmp/kept.csv")" -eq 1 ] && [ "$(grep -c '^# r10b-2-32_kept: ' "$tmp/kept.csv")" -eq 1 ]
    ok=$?; check "--keep twice: the first measurement's date, each kept line once ($(grep -c '^# r10b-2-32_' "$tmp/kept.csv") lines)" $ok
    # each repeat a VM of its own: in one VM a tester that runs on its predecessor's scheduler
    # inserts into the carriers the deleted table left in that instance's mseg cache and
    # faults none (the median of three often 0); in fresh VMs every run faults at least half
    # the pages its N objects of 2L + 3 words fill
    cp "$tmp/kept.csv" "$tmp/fresh.csv"
    bash "$eras/run.sh" --model "$1" --quick --lens 100 --iterations 1000 --rounds 1 --repeats 3 --keep r10b-2-32 \
        --out "$tmp/fresh.csv" >/dev/null 2>"$tmp/e"
    ok=$?; check "eptest 3 repeats runs ($(tail -n 1 "$tmp/e"))" $ok
    wpp=$(($(getconf PAGESIZE) / 8))
    row=$(grep '^otp25,base,eptest,ets_insert,100,1000,' "$tmp/fresh.csv")
    awk -F, -v h="$(grep -v '^#' "$tmp/fresh.csv" | head -n 1)" -v min=$((1000 * 203 / wpp / 2)) '
        BEGIN { n = split(h, c, ","); for (i = 1; i <= n; i++) ix[c[i]] = i }
        { exit !($ix["rounds"] == 1 && $ix["faults"] >= min) }' <<<"$row"
    ok=$?; check "eptest: each repeat in a fresh VM, its inserts fault fresh pages, one round counted ($row)" $ok
    [ "$(grep -c 'eptest base L = 100 on otp25, VM [123] of 3$' "$tmp/e")" -eq 3 ]; check "eptest: three VMs started, one per repeat" $?
fi

echo "cli_eras: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
