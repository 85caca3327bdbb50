#!/usr/bin/env bash
# The time account from the outside: bad input exits 2 before erl starts; with erl and the
# cpuclock NIF, one small point of three rounds gives the CSV its columns in order (every row their width, the
# four loops, every time and phase a number, the clock's own cost stated, the phases summing to vm_priced_us, other_us the
# rest, within_15 as priced_over_vm says, priced_over_vm within the rounds' own ratios, vm_us the median tester's,
# between the fastest and the slowest) and the prices CSV its header and both loops;
# experiments/beam/account.sh takes --help and refuses a bad shape; the interventions' priced.sh
# and perfsplit.sh take --help and refuse a bad argument before building anything, and
# perfsplit.awk groups a fixture's perf samples by erts mechanism. Without erl or the NIF the
# run is skipped (exit 77 once the others passed). Nothing here times anything.
# $1: build directory root (binaries in experiments/); $2: tests/data (unused).
set -u
dir="$1/experiments"
here=$(cd "$(dirname "$0")" && pwd)
lib=$(cat "$here/../report/csv.awk") # columns by name
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }
header="shape,payload_len,loop,vm_us,vm_priced_us,model_priced_us,copy_us,gc_us,fault_us,mmap_us,fixed_us,other_us,\
priced_over_vm,within_15,round_min,round_max,point_vm_ratio,point_model_ratio,vm_wall_us,vm_traced_us,\
vm_traced_gc_us,model_exec_us,model_copy_us,model_gc_us,model_fault_us,model_mmap_us,model_fixed_us,counts_match,\
model_within_20,vm_minor,vm_major,vm_dirty,vm_gc_copied,vm_gc_moved,vm_faults,vm_carriers,model_minor,model_major,\
model_dirty,model_gc_copied,model_gc_moved,model_faults,model_carriers,sleep_us,vm_sleeps,vm_dirty_cpu_us,\
vm_dirty_carriers,model_dirty_carriers,vm_testers_lo_us,vm_testers_hi_us"
prices="shape,payload_len,loop,fixed_ns,word_ns,gc_minor_ns,gc_major_ns,gc_word_ns,gc_move_word_ns,gc_dirty_ns,\
gc_long_ns,gc_long_gcs,fault_ns,carrier_ns,carrier_dirty_ns,sleep_ns,fixed_sleeps,dirty_sleeps,gc_frag_word_ns"

# Bad input: exit 2 and one line, before any VM is started.
bad() { # bad NAME ARGS...
    local name=$1 rc
    shift
    "$dir/account" "$@" >"$tmp/bad.out" 2>"$tmp/bad.err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/bad.err")" -eq 1 ]
    ok=$?; check "account $name: exit 2 (got $rc), one line ($(head -c 120 "$tmp/bad.err"))" $ok
}
bad "a point with no length" --points "ints"
bad "a shape it has not" --points "lists:1000"
bad "a length out of range" --points "ints:5"
bad "no rounds" --repeats 0
bad "an era its VM is not (OTP 25's)" --era r10b
bad "a policy field it has not" --set no_such_field=1
bad "a fault probe of no count" --fault-probe many
bad "a fault probe of a negative count" --fault-probe -3
# --fault-probe alone: the fault price of this machine, a positive number of ns, no VM started
fp=$("$dir/account" --fault-probe 500 2>"$tmp/fp.err")
ok=$?
[ $ok -eq 0 ] && awk -v x="$fp" 'BEGIN { exit !(x ~ /^[0-9]+\.[0-9]$/ && x + 0 > 0) }'
check "account --fault-probe 500: a price in ns ($fp, rc $ok)" $?
bad "a carrier probe of no bytes" --carrier-probe 0
# --carrier-probe alone: a number of ns (the map and unmap less a fault: its sign is the machine's)
cp=$("$dir/account" --carrier-probe 65536 2>"$tmp/cp.err")
ok=$?
[ $ok -eq 0 ] && awk -v x="$cp" 'BEGIN { exit !(x ~ /^-?[0-9]+\.[0-9]$/) }'
check "account --carrier-probe 65536: a price in ns ($cp, rc $ok)" $?
"$here/../experiments/beam/account.sh" --help | grep -q '^usage: experiments/beam/account.sh'
check "account.sh --help" $?
"$here/../experiments/beam/account.sh" --bin "$dir" --shapes "lists" >/dev/null 2>&1
[ $? -eq 2 ]; check "account.sh refuses a bad shape with exit 2" $?
"$here/../experiments/beam/account.sh" --bin "$dir" --vm-root "$tmp/no-vm" >/dev/null 2>&1
[ $? -eq 2 ]; check "account.sh refuses a --vm-root with no bin/erl, exit 2" $?
"$here/../experiments/beam/account.sh" --bin "$dir" --schedulers 3 >/dev/null 2>&1
[ $? -eq 2 ]; check "account.sh refuses --schedulers 3 with exit 2" $?
# priced.awk's summary: the rows whose lookup and proc2 GC medians are both within 3 % of the VM's
# (rebuilt's row matches; the word test's proc2 is 401 on the VM and 668 in the model; one round
# each, whose ratios do not overlap: resolved, and the model's effect has the other sign).
{ echo "round,variant,model_switch,payload_len,vm_ratio,model_priced_ratio,vm_lookup_gcs,model_lookup_gcs,vm_lookup_faults,model_lookup_faults,vm_lookup_carriers,model_lookup_carriers,vm_proc_gcs,model_proc_gcs,vm_proc_carriers,model_proc_carriers,vm_lookup_us,model_lookup_priced_us,vm_proc_us,model_proc_priced_us,vm_proc_sleeps,vm_proc_sleep_us"
  echo "1,rebuilt,none,1000,0.75,0.80,200,200,0,56,0,0,251,251,0,0,3300,3700,4600,4400,5,56"
  echo "1,word_gc_test,bif_gc_test=words,1000,0.62,1.05,333,333,0,42,0,0,401,668,0,0,3000,4100,4800,3900,19,287"; } >"$tmp/pr.csv"
awk -v summary_csv="$tmp/pr-sum.csv" "$(cat "$here/../report/csv.awk" "$here/../report/stats.awk" \
    "$here/../experiments/beam/interventions/priced.awk")" "$tmp/pr.csv" >/dev/null
[ "$(tail -n 1 "$tmp/pr-sum.csv")" = "1,0,1,0,0,2,1" ]
ok=$?; check "priced.awk: the summary counts the rows with both loops' GCs within 3 % ($(tr '\n' ' ' <"$tmp/pr-sum.csv"))" $ok
# The interventions' scripts: --help, and a bad argument is exit 2 and one line, before any build.
for script in priced perfsplit; do
    path="$here/../experiments/beam/interventions/$script.sh"
    "$path" --help | grep -q "^usage: experiments/beam/interventions/$script.sh"
    check "$script.sh --help" $?
    case $script in
    priced) bad_args=("--variants emu" "--variants no_such" "--rounds 0" "--lens 1x" "--schedulers 3" "--schedulers"
                      "--no-such-option") ;;
    *) bad_args=("--variants no_such" "--rounds 0" "--calls 1x" "--freq" "--no-such-option") ;;
    esac
    for a in "${bad_args[@]}"; do
        # shellcheck disable=SC2086 # the words are the arguments
        "$path" $a "$tmp/$script.csv" >/dev/null 2>"$tmp/$script.err"
        rc=$?
        [ $rc -eq 2 ] && [ ! -e "$tmp/$script.csv" ] && [ "$(wc -l <"$tmp/$script.err")" -eq 1 ]
        check "$script.sh $a: exit 2, one line, before building anything (got $rc)" $?
    done
done
# perfsplit.awk's grouping: a run's samples less the no-call run's, by each function's erts mechanism.
printf '%s\n' "   100  [.] copy_struct_x" "    50  [k] pvm_irq_enable" "    20  [.] beam_load_emit_op" >"$tmp/p0.txt"
printf '%s\n' "  4100  [.] copy_struct_x" "  2000  [.] size_object_x" "   850  [k] pvm_irq_enable" \
    "   300  [.] erts_copy_one_frag" "   200  [.] 0x00007f28c0e1c211" "   100  [.] do_minor" \
    "    60  [.] erts_try_alloc_message_on_heap" "    50  [.] mbc_alloc_finalize" "    40  [.] erts_schedule" \
    "    20  [.] beam_load_emit_op" "    10  [.] something_else" >"$tmp/p1.txt"
awk -v r=1 -v v=rebuilt -v l=1000 -v calls=1000 -v freq=1000 -f "$here/../experiments/beam/interventions/perfsplit.awk" \
    "$tmp/p0.txt" "$tmp/p1.txt" >"$tmp/split.csv"
want="1,rebuilt,1000,1000,copy,6000,79.37,6000000.0
1,rebuilt,1000,1000,move,300,3.97,300000.0
1,rebuilt,1000,1000,gc,100,1.32,100000.0
1,rebuilt,1000,1000,msg,60,0.79,60000.0
1,rebuilt,1000,1000,alloc,50,0.66,50000.0
1,rebuilt,1000,1000,sched,40,0.53,40000.0
1,rebuilt,1000,1000,kernel,800,10.58,800000.0
1,rebuilt,1000,1000,jit,200,2.65,200000.0
1,rebuilt,1000,1000,other,10,0.13,10000.0"
[ "$(cat "$tmp/split.csv")" = "$want" ]
ok=$?; check "perfsplit.awk: the groups of a run less its no-call run ($(tr '\n' ' ' <"$tmp/split.csv"))" $ok
awk -v r=1 -v v=x -v l=1 -v calls=1 -v freq=1 -f "$here/../experiments/beam/interventions/perfsplit.awk" \
    "$tmp/p0.txt" /dev/null >/dev/null 2>&1
[ $? -eq 1 ]; check "perfsplit.awk: a report with no samples is an error" $?

if ! command -v erl >/dev/null 2>&1 || ! command -v erlc >/dev/null 2>&1 || [ ! -f "$dir/cpuclock.so" ]; then
    echo "note: erl, erlc or the cpuclock NIF missing: the account's run is skipped ($pass passed)"
    [ "$fails" -eq 0 ] && exit 77 || exit 1
fi

# The NIF's fault counter reads without allocating: in a process whose heap is fresh, a thousand
# pairs of reads fault in none of its pages (eptest:minflt/0's terms land there: about 700 here).
cat >"$tmp/minflt_pairs.erl" <<'EOF'
-module(minflt_pairs).
-export([main/1]).
%% compiled, not evaluated: the shell's evaluator would build terms on the heap itself
main([Dir]) ->
    ok = cpuclock:load(Dir),
    {P, R} = spawn_opt(fun() -> exit({n, pairs(1000, 0)}) end, [monitor, {min_heap_size, 400000}]),
    receive {'DOWN', R, process, P, {n, N}} -> io:format("~b~n", [N]) end,
    halt().
pairs(0, Acc) -> Acc;
pairs(K, Acc) -> A = cpuclock:minflt(), pairs(K - 1, Acc + cpuclock:minflt() - A).
EOF
erlc -o "$tmp" "$here/../experiments/beam/cpuclock.erl" "$tmp/minflt_pairs.erl"
check "cpuclock.erl and the probe compile" $?
n=$(nif=$(cd "$dir" && pwd) && cd "$tmp" && erl -noshell -pa "$tmp" -run minflt_pairs main "$nif" 2>&1) # a crash dump, if any, stays in tmp
[ "$n" -ge 0 ] 2>/dev/null && [ "$n" -le 20 ]; check "cpuclock:minflt/0: at most 20 faults in 1000 read pairs on a fresh heap (got '$n')" $?

# The dirty schedulers' clock and faults, and the carrier probes on either kind of scheduler: a
# long GC's work (a minor of a young generation past 128 Ki words) shows on the dirty clock.
cat >"$tmp/dirty_probe.erl" <<'EOF'
-module(dirty_probe).
-export([main/1]).
main([Dir]) ->
    ok = cpuclock:load(Dir),
    {P, R} = spawn_opt(fun() -> _ = lists:seq(1, 100000),
                                D0 = cpuclock:dirty_ns(), F0 = cpuclock:dirty_faults(),
                                true = erlang:garbage_collect(self(), [{type, minor}]),
                                exit({d, cpuclock:dirty_ns() - D0, cpuclock:dirty_faults() - F0})
                       end, [monitor, {min_heap_size, 300000}]),
    D = receive {'DOWN', R, process, P, {d, Ns, Fs}} -> {Ns, Fs} end,
    C = [cpuclock:F(1 bsl 20) || F <- [carrier, carrier_dirty]],
    io:format("~w~n", [{D, C}]),
    halt().
EOF
erlc -o "$tmp" "$tmp/dirty_probe.erl"
d=$(nif=$(cd "$dir" && pwd) && cd "$tmp" && erl -noshell -pa "$tmp" -run dirty_probe main "$nif" 2>&1)
echo "$d" | grep -Eq '^\{\{[1-9][0-9]*,[0-9]+\},\[\{[1-9][0-9]*,[1-9][0-9]*\},\{[1-9][0-9]*,[1-9][0-9]*\}\]\}$'
check "cpuclock: a long GC's time on the dirty clock, both carrier probes timed (got '$d')" $?

"$dir/account" --points "ints:100" --iterations 50 --repeats 3 --csv "$tmp/a.csv" --prices "$tmp/p.csv" \
    >"$tmp/a.out" 2>"$tmp/a.err"
ok=$?; check "account on one point runs (exit $ok: $(tail -n 2 "$tmp/a.err"))" "$ok"
[ "$(grep -v '^#' "$tmp/a.csv" | head -n 1)" = "$header" ]; check "account: the header, in order" $?
width=$(echo "$header" | awk -F, '{print NF}')
bad=$(grep -v '^#' "$tmp/a.csv" | awk -F, -v w="$width" 'NF != w' | wc -l)
[ "$bad" -eq 0 ]; check "account: $bad lines not $width columns wide" $?
loops=$(awk "$lib"'!csv_row() { next } { printf "%s ", csv_get("loop") }' "$tmp/a.csv")
[ "$loops" = "proc1 proc2 proc3 ets_lookup " ]; check "account: the four loops (got '$loops')" $?
awk "$lib"'
    function num(x) { return x ~ /^-?[0-9]+(\.[0-9]+)?$/ }
    !csv_row() { next }
    {
        n = split("vm_us vm_priced_us model_priced_us copy_us gc_us fault_us mmap_us fixed_us other_us sleep_us vm_sleeps vm_dirty_cpu_us", col, " ")
        for (i = 1; i <= n; i++) if (!num(csv_get(col[i]))) bad = bad " " col[i]
        sum = csv_get("copy_us") + csv_get("gc_us") + csv_get("fault_us") + csv_get("mmap_us") + csv_get("fixed_us") + csv_get("sleep_us")
        if (sum - csv_get("vm_priced_us") > 0.7 || csv_get("vm_priced_us") - sum > 0.7) bad = bad " phases"
        o = csv_get("vm_us") - csv_get("vm_priced_us") - csv_get("other_us")
        if (o > 0.2 || o < -0.2) bad = bad " other"
        q = csv_get("priced_over_vm"); w = (q >= 0.85 && q <= 1.15) ? "yes" : "no"
        if (w != csv_get("within_15") && (q < 0.849 || q > 0.851) && (q < 1.149 || q > 1.151)) bad = bad " within"
        # the identity is the median of the rounds own ratios: inside their extremes
        if (q < csv_get("round_min") - 0.0005 || q > csv_get("round_max") + 0.0005) bad = bad " median_of_rounds"
        # vm_us is the median tester of each round: between the fastest and the slowest, which differ
        lo = csv_get("vm_testers_lo_us"); hi = csv_get("vm_testers_hi_us")
        if (!num(lo) || !num(hi) || csv_get("vm_us") < lo - 0.05 || csv_get("vm_us") > hi + 0.05 || lo + 0 >= hi + 0) bad = bad " testers"
    }
    END { if (bad != "") { print bad; exit 1 } }' "$tmp/a.csv" >"$tmp/why"
ok=$?; check "account: numbers, phases summing to vm_priced_us, other the rest, within_15, testers ($(cat "$tmp/why"))" $ok
grep -Eq '^# testers: .* and [3-9] untraced ones, ' "$tmp/a.csv"
ok=$?; check "account: the metadata names the untraced testers per pass ($(grep '^# testers' "$tmp/a.csv" | cut -c 1-100))" $ok
[ "$(grep -v '^#' "$tmp/p.csv" | head -n 1)" = "$prices" ]; check "account --prices: the header" $?
# the clock reads' own cost, measured and taken out of the calibrations, stated in both files
for f in a p; do
    grep -Eq '^# clock_cost: [0-9]+ ns \(thread clock\), [0-9]+ ns \(process clock\)' "$tmp/$f.csv"
    ok=$?; check "account: $f.csv states the clock cost ($(grep '^# clock_cost' "$tmp/$f.csv"))" $ok
done
n=$(grep -c '^ints,100,' "$tmp/p.csv")
[ "$n" -eq 2 ]; check "account --prices: both loops' prices (got $n rows)" $?
grep -Eq '^account: vm_priced_us within 15% of vm_us at [0-9]+ of 4 loops' "$tmp/a.out"
check "account: the summary line" $?

# A rebuilt VM's account (--vm-root: the VM measured and priced is DIR/bin/erl, said so) with the
# model switched to its mechanism (--set): the metadata names both, and the switch moves the
# model's counts (the word GC test collects after more BIFs: L = 1000, the lookup's GCs).
erl_real=$(readlink -f "$(command -v erl)")
vm_root=$(dirname "$(dirname "$erl_real")")
for s in "" bif_gc_test=words; do
    "$here/../experiments/beam/account.sh" --bin "$dir" --vm-root "$vm_root" --shapes ints --lens 1000 --rounds 1 \
        --iterations 50 ${s:+--set "$s"} --out "$tmp/s${s:+w}.csv" --prices "$tmp/sp.csv" >/dev/null 2>"$tmp/s.err"
    ok=$?; check "account.sh --vm-root ${s:+--set $s }runs (exit $ok: $(tail -n 1 "$tmp/s.err"))" $ok
done
grep -qx "# erl: $vm_root/bin/erl (the first on PATH: the VM measured and priced)" "$tmp/sw.csv"
ok=$?; check "account --vm-root: the metadata names the VM ($(grep '^# erl:' "$tmp/sw.csv"))" $ok
grep -q '^# era_set: .*bif_gc_test=words' "$tmp/sw.csv" && grep -q '^# era_set: none' "$tmp/s.csv"
ok=$?; check "account --set: the metadata names the switch ($(grep '^# era_set' "$tmp/sw.csv"))" $ok
gcs() { awk "$lib"'csv_row() && csv_get("loop") == "ets_lookup" { print csv_get("model_minor") + csv_get("model_major") }' "$1"; }
g0=$(gcs "$tmp/s.csv") g1=$(gcs "$tmp/sw.csv")
[ -n "$g0" ] && [ -n "$g1" ] && [ "$g1" -gt "$g0" ]
check "account --set bif_gc_test=words: the model's lookup collects more often ($g0 -> $g1 GCs)" $?
# One scheduler (--schedulers 1: +S 1:1 in ERL_ZFLAGS, after the session's +S 2:2): the session
# runs (account.erl binds no server to a second scheduler there), the metadata says so, and no
# loop has a sleep price.
"$here/../experiments/beam/account.sh" --bin "$dir" --shapes ints --lens 1000 --rounds 1 --iterations 50 \
    --schedulers 1 --out "$tmp/one.csv" --prices "$tmp/onep.csv" >/dev/null 2>"$tmp/one.err"
ok=$?; check "account.sh --schedulers 1 runs (exit $ok: $(tail -n 1 "$tmp/one.err"))" $ok
grep -q '^# erl_zflags: .*+S 1:1' "$tmp/one.csv" && grep -q '^# erl_zflags: .*+S 1:1' "$tmp/onep.csv"
ok=$?; check "account --schedulers 1: both CSVs say +S 1:1 ($(grep -m1 '^# erl_zflags' "$tmp/one.csv"))" $ok
awk "$lib"'csv_row() { n++; if (csv_get("sleep_ns") + 0 != 0) bad = 1 } END { exit bad || n != 2 }' "$tmp/onep.csv"
check "account --schedulers 1: no loop has a sleep price" $?

# The verdicts from priced counts: crossover and ablate with those prices.
"$dir/crossover" --quick --shape ints --era otp25 --iterations 5 --prices "$tmp/p.csv" --csv "$tmp/c.csv" >/dev/null 2>&1
check "crossover --prices runs" $?
awk "$lib"'!csv_row() { next } csv_get("prices_len") != 100 || csv_get("priced_proc_us") + 0 <= 0 { bad = 1 }
          END { exit bad }' "$tmp/c.csv"
check "crossover --prices: every point priced at the nearest length's prices (100)" $?
"$dir/ablate" --quick --era otp25 --prices /nonexistent/p.csv >/dev/null 2>"$tmp/ab.err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/ab.err")" -eq 1 ]; check "ablate --prices of no file: exit 2, one line" $?

echo "cli_account: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
