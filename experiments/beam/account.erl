%% account - the VM's side of the time account (experiments/account.c, scenarios/account.h):
%% for one point (a payload and N operations per pass) the eptest loops with the VM's own
%% counts, and the unit prices of this machine measured on the VM in calibration runs of their
%% own, each unit in the context the loop gives it. Driven by unitcost.erl's `loop` and
%% `prices` commands (experiments/unitcost.c's session, scenarios/vmside.h).
%%
%% The loops: eptest's passes up to the lookup (proc1..3, ets_insert, ets_overwrite, ets_lookup:
%% the model's eptest runs them all, and the overwrites' collections shape the heap the lookups
%% start from), each in a fresh tester with the untimed meter around each pass (eptest:tester/2).
%% traced/3 runs them in a traced tester, for the per-GC counts (eptest's tracer: minor, major,
%% dirty, words the collector copied, message words moved onto the heap, fragment words, GC time
%% by the trace's timestamps) and the calibrations' context; plain/3 in an untraced one, whose
%% times are the account's (tracing adds a few µs per GC). The caller runs ?TESTERS plain
%% testers spread among the point's calibrations (unitcost.erl account_point), and loops/2 takes
%% each pass's row from the tester whose CPU time is the median of them: this shared machine
%% has slow spells of a second or more (a loop of ints 1000 from 4.6 to 6.5 µs a round trip,
%% and a calibration's unit alike), and a single tester's pass of a few ms, timed apart from the
%% calibrations, read a spell the prices did not, or the other way round. Returns per pass
%% {Test, Us, TracedUs, Counts, GcCounts}: Us the median tester's, TracedUs the traced run's;
%% Counts the median tester's, with cpu_lo_ns and cpu_hi_ns the fastest and slowest tester's.
%%
%% prices/3: every calibration of one point. Each is a run of operations of one kind, timed
%% as a whole with os:perf_counter, with the OS process's minor faults counted around it by the
%% NIF (eptest:minflt/0's terms would fault on a calibration's fresh heap themselves; the
%% account prices faults apart, so a calibration's own faults are taken out at the fault price
%% on the C side, and its threads' sleeps at the sleep price); the per-word units are the
%% difference to the same run on the payload [] or with no live words, divided by the words.
%% Answers [{Unit, CpuNs, WallNs, Faults, Gcs, Words, Ops, Sleeps}]: the median CPU and wall ns
%% of one operation, its median faults and its GCs (only the fixed units' loops collect inside their
%% timed regions), the words it moves, the operations timed, its median sleeps (voluntary context
%% switches of the VM's threads). Every run's times are net of the clock's own cost
%% (clock_thread, clock_process below): a calibration that times one GC would otherwise price
%% the clock reads with it.
%%   rt_fixed      eptest's proc passes on the payload [] (ns per round trip; each pass the
%%                 median of ?TESTERS testers, as the loop's)
%%   lookup_fixed  eptest's ets_lookup pass on {I, []}, I = 1..N (ns per lookup)
%%   send          Pid ! {self(), Data} into a receiver suspended while they come (it runs
%%                 nothing, so a message lands on its heap where it fits, else in a fragment:
%%                 the server's path, erl_message.c erts_try_alloc_message_on_heap), K sends a
%%                 run, K what the loop's heap block holds; between runs the receiver drops
%%                 them and collects itself, so its heap is reused as the tester's is; the
%%                 source is the sender's Data, read again and again (hot) as the server's;
%%                 words: flat_size(Data) per send (size_object and copy_struct walk them)
%%   send_nil      the same with Data = []
%%   lookup        ets:lookup(T, I) of every key of a table of N objects {I, Data} built by
%%                 ets:insert as the loop builds its own (inserted, then overwritten: the
%%                 objects sit where the loop's do), each read once, in key order (
%%                 the loop's source working set); K results a run into a heap of the loop's
%%                 size (at least one result), warm, collected untimed after every run;
%%                 words: flat_size(Data) per lookup
%%   lookup_nil    the same with {I, []}
%%   gc_long       the lookup loop's long GC in its context (gc_long/3 says how): the dirty
%%                 CPU scheduler's time for the collection, what it frees (the results'
%%                 fragments), the heaps it maps and unmaps; CpuNs, Faults per long GC
%%   gc_minor      erlang:garbage_collect(self(), [{type, minor}]) of a process whose young
%%                 heap holds Live words of fresh data (Live the loop's median words copied
%%                 per GC) and whose heap block is the loop's; gc_minor_nil the same with none
%%                 (their difference over Live is the collector's word price)
%%   gc_minor_bif  a minor GC with nothing to copy where a loop's GCs happen, at the test after a
%%                 BIF: a process whose heap block is the loop's looks up {1, Bin}, Bin a 100 KiB
%%                 reference-counted binary, whose ProcBin passes the virtual binary heap every
%%                 few lookups (erl_gc.h ERTS_IS_GC_DESIRED_INTERNAL), against the same lookups
%%                 with a virtual binary heap that never fills: the CPU time between the two
%%                 over the GCs between them. A forced GC (gc_minor_nil) is dearer: erlang:
%%                 garbage_collect/2 of the caller sets F_FORCE_GC and bumps its reductions, the
%%                 process is scheduled out and collected at its next schedule-in (erl_process.c
%%                 schedule), a trip no loop's GC takes
%%   gc_major      the same, type major, with Data live in the old heap too (a major copies it)
%%   carrier       a fresh carrier of the loop's heap block mapped, its first page written, and
%%                 unmapped, on this scheduler's thread (the kernel's mmap, page-table set-up,
%%                 munmap and the TLB flush of the process's other CPUs); its fault is the
%%                 fault price's; carrier_dirty the same on a dirty CPU scheduler, where a long
%%                 GC maps and unmaps the heaps it makes and frees
%%   gc_dirty      a minor GC of a young heap holding just over 128 Ki words of garbage
%%                 (erl_gc.h ERTS_POTENTIALLY_LONG_GC_HSIZE): it runs on a dirty CPU scheduler,
%%                 the process's trip there and back; gc_dirty_nil just under, on its own
%%   gc_move       a process that was running on the other scheduler while K messages of Data
%%                 came (a running process holds its main lock, so each was built in a heap
%%                 fragment: erl_message.c erts_try_alloc_message_on_heap; the cpuclock NIF's
%%                 hold/1 keeps it running, without the gaps of a loop's reschedules), then collects
%%                 itself: after the GC, erts_proc_sig_move_msgs_to_heap copies each fragment
%%                 onto the heap word by word (erl_gc.c erts_copy_one_frag) and frees it, as the
%%                 tester's GC does to a reply the server sent while the tester ran; K the
%%                 loop's messages moved per GC (one at least where the loop moved any), or
%%                 as many as hold 4096 words (?GC_MIN_LIVE) where that is more;
%%                 gc_move_nil K of []. Runs in which a message found the receiver's heap
%%                 anyway (its mbuf_size short of K messages) are redone. Timed on the
%%                 receiver's thread clock where the GC stays on its scheduler (the heap and
%%                 the fragments under 128 Ki words), else the process's. With one scheduler
%%                 no receiver can run while a message comes: no row (the collector's word
%%                 price stands in)
%%   sleep         one scheduler thread's sleep and wake-up: a round trip on [] between a
%%                 process and a server bound to the other scheduler (spawn_opt's {scheduler, N}:
%%                 erl_process.c's spawn options, SPO_SCHEDULER) sends each scheduler to sleep
%%                 (erl_process.c scheduler_wait) on every message; bound to the same one,
%%                 neither sleeps. CpuNs: the CPU ns between the two runs over the sleeps
%%                 between them; Ops: those sleeps. With one scheduler (+S 1:1: priced.sh
%%                 --schedulers 1) there is no other to bind the server to, and no normal
%%                 scheduler sleeps while the other runs: no row (the account prices no sleep)
%%   clock_thread, clock_process  a timed run of nothing on each CPU clock: what the clock
%%                 reads themselves put inside a timed interval (a read of a CPU clock is a
%%                 system call, and its own CPU time falls partly inside: on a virtual host it
%%                 can exceed a small heap's GC; the CSVs' clock_cost says how much), taken out
%%                 of every run of the rows above
-module(account).
-export([traced/3, traced_gcs/2, plain/3, loops/2, testers/0, prices/3, payload/2]).

-define(PASSES, [proc1, proc2, proc3, ets_insert, ets_overwrite, ets_lookup]).
%% The passes priced: the round trips and the lookup.
-define(PRICED, [proc1, proc2, proc3, ets_lookup]).

%% eptest's payload, or a user's term given as external format.
payload({ext, Bin}, _L) -> binary_to_term(Bin);
payload(Shape, L) -> eptest:payload(Shape, L).

%% ---- the loops --------------------------------------------------------------------------

-define(TESTERS, 3).

testers() -> ?TESTERS.

traced(Payload, L, N) -> eptest:tester({Payload, L, N, [], true}, ?PASSES).

%% The traced tester's and its server's GC counts in pass Test.
traced_gcs(Traced, Test) ->
    {Test, _, _, Tr} = lists:keyfind(Test, 1, Traced),
    sum_gc(Tr).

plain(Payload, L, N) -> eptest:tester({Payload, L, N, [], false}, ?PASSES).

loops(Plains, Traced) when length(Plains) =:= ?TESTERS ->
    Plain = [spread(median_row(Rows), Rows) || Rows <- transpose(Plains)],
    [{T, Us, TUs, C, sum_gc(Tr)}
     || {{T, Us, C, _}, {T, TUs, _, Tr}} <- lists:zip(Plain, Traced), lists:member(T, ?PRICED)].

%% One pass's rows from the testers: the one whose CPU time is the median (its counts with it).
median_row(Rows) ->
    Sorted = lists:sort(fun({_, _, A, _}, {_, _, B, _}) -> maps:get(cpu_ns, A) =< maps:get(cpu_ns, B) end, Rows),
    lists:nth((length(Sorted) + 1) div 2, Sorted).

%% The median tester's row with the fastest and slowest tester's CPU time beside its own.
spread({T, Us, C, Tr}, Rows) ->
    Cpus = [maps:get(cpu_ns, C1) || {_, _, C1, _} <- Rows],
    {T, Us, C#{cpu_lo_ns => lists:min(Cpus), cpu_hi_ns => lists:max(Cpus)}, Tr}.

transpose([[] | _]) -> [];
transpose(Lists) -> [[hd(X) || X <- Lists] | transpose([tl(X) || X <- Lists])].

%% The tester's and the server's GC counts together.
sum_gc(PerPid) ->
    lists:foldl(fun(C, Acc) -> maps:map(fun(heap_max, V) -> max(V, maps:get(heap_max, C));
                                           (K, V) -> V + maps:get(K, C) end, Acc) end,
                hd(PerPid), tl(PerPid)).

%% ---- the prices -------------------------------------------------------------------------

%% Ctx: the loop (rt: the sends; lookup: the lookups) and what its trace says its GCs are
%% like: #{n => operations a pass, loop => rt | lookup, heap => its largest heap block,
%% live => words the collector copied per GC, msgs => messages moved onto the heap per GC}.
prices(Payload, L, #{n := N, loop := Loop, heap := Heap} = Ctx) ->
    Data = payload(Payload, L),
    W = erts_debug:flat_size(Data),
    Clocks = [clock(clock_thread, thread_ns), clock(clock_process, process_ns)],
    Clk = maps:from_list([{Clock, {C, T}} || {{_, C, T, _, _, _, _, _}, Clock} <- Clocks]),
    Copy = case Loop of
               rt -> send(Data, W, Heap, Clk);
               lookup -> lookup(Payload, L, N, W, Heap, Clk) ++ gc_long(Data, N, Heap)
           end,
    Sleep = case erlang:system_info(schedulers_online) > 1 of true -> [sleep()]; false -> [] end,
    [R || {R, _} <- Clocks] ++ Sleep ++ fixed(N) ++ Copy ++ gc(Data, W, Ctx, Clk) ++ carriers(Heap).

-define(CLOCK_REPS, 201).

%% The clock's own cost, measured as a row is (median of runs of nothing), and the clock.
clock(Unit, Clock) ->
    Runs = [timed(fun() -> ok end, Clock) || _ <- lists:seq(1, ?CLOCK_REPS)],
    {row(Unit, Runs, 1, 0, #{}, none), Clock}.

-define(SLEEP_RTS, 2000).
-define(SLEEP_RUNS, 5).

%% The sleep row: runs of round trips with the server on the other scheduler and on the same
%% one, alternated; the price is the median CPU (and wall) difference over the sleeps between.
sleep() ->
    Runs = lists:append([[pingpong(2), pingpong(1)] || _ <- lists:seq(1, ?SLEEP_RUNS)]),
    Split = [R || {2, R} <- Runs], Same = [R || {1, R} <- Runs],
    S = eptest:median([Sl || {_, _, Sl} <- Split]) - eptest:median([Sl || {_, _, Sl} <- Same]),
    Per = fun(I) -> case S > 0 of
                        true -> (eptest:median([element(I, R) || R <- Split]) -
                                 eptest:median([element(I, R) || R <- Same])) / S;
                        false -> 0
                    end end,
    {sleep, Per(1), Per(2), 0, 0, 0, round(max(S, 0)), 0}.

%% ?SLEEP_RTS round trips on [] between a process on scheduler 1 and a server on scheduler
%% Sched: {CpuNs, WallNs, Sleeps} over them, CPU on the process clock (both schedulers' threads;
%% the clock's own cost is the same in both runs and drops out of their difference).
pingpong(Sched) ->
    Parent = self(),
    P = spawn_opt(fun() ->
                          S = spawn_opt(fun Server() -> receive {From, D} -> From ! {self(), D}, Server() end end,
                                        [{scheduler, Sched}]),
                          rts(S, 100), % both running, their heaps settled
                          {C, T, _, V} = timed(fun() -> rts(S, ?SLEEP_RTS) end, process_ns),
                          exit(S, kill),
                          Parent ! {self(), {C, T, V}}
                  end, [{scheduler, 1}]),
    receive {P, R} -> {Sched, R} end.

rts(_S, 0) -> ok;
rts(S, K) -> S ! {self(), []}, receive {S, _} -> rts(S, K - 1) end.

%% One run of F() timed, on the VM's CPU clock and the wall clock, with the faults and the
%% threads' sleeps of the OS process around it: {CpuNs, WallNs, Faults, Sleeps}. The clock is
%% the scheduler thread's own where the work stays on it (cheap to read: short runs), the whole
%% process's where it does not (a dirty GC). A run on the thread clock counts no sleeps: none
%% of those runs waits, so a sleep inside one is another thread's (the other scheduler's, going
%% idle as a sender finishes), whose CPU time that clock does not hold; taken out at the sleep
%% price, it sent the moved-word price of ints L = 3000 from -2.5 to +4.9 ns between sessions.
timed(F) -> timed(F, thread_ns).

timed(F, Clock) ->
    F0 = cpuclock:minflt(),
    S0 = cpuclock:nvcsw(),
    C0 = cpuclock:Clock(),
    T0 = os:perf_counter(nanosecond),
    F(),
    T1 = os:perf_counter(nanosecond),
    C1 = cpuclock:Clock(),
    S1 = cpuclock:nvcsw(),
    {C1 - C0, T1 - T0, cpuclock:minflt() - F0, case Clock of thread_ns -> 0; _ -> S1 - S0 end}.

%% A row from runs [{CpuNs, WallNs, Faults, Sleeps}] of Ops operations each, timed on Clock
%% (thread_ns or process_ns; none: raw): the medians per operation net of that clock's cost in
%% Clk, the median faults, the GCs inside the timed runs (0: the calibrations collect between
%% them), the median sleeps: the typical run's, as its time is. (A mean would take out, at a
%% fault's or a sleep's price, the one run in forty that slept, which the median time already
%% leaves out: a small unit's price then went below zero.)
row(Unit, Runs, Ops, Words, Clk, Clock) ->
    {C0, T0} = maps:get(Clock, Clk, {0, 0}),
    N = Ops * length(Runs),
    {Unit, eptest:median([(C - C0) / Ops || {C, _, _, _} <- Runs]), eptest:median([(T - T0) / Ops || {_, T, _, _} <- Runs]),
     eptest:median([F / Ops || {_, _, F, _} <- Runs]), 0, Words, N, eptest:median([S / Ops || {_, _, _, S} <- Runs])}.

%% In a fresh process (spawned with Opts), so each calibration starts from its own heap.
in_process(F, Opts) ->
    Parent = self(),
    {Pid, Ref} = spawn_opt(fun() -> Parent ! {self(), F()} end, [monitor | Opts]),
    receive
        {Pid, R} -> erlang:demonitor(Ref, [flush]), R;
        {'DOWN', Ref, process, Pid, Why} -> error({calibration_died, Why})
    end.

fixed(N) ->
    Rows = [median_row(Rs) || Rs <- transpose([eptest:tester({{ext, term_to_binary([])}, 0, N, [], false}, ?PASSES)
                                                 || _ <- lists:seq(1, ?TESTERS)])],
    Us = fun(T) -> hd([U || {T1, U, _, _} <- Rows, T1 =:= T]) end,
    Faults = fun(T) -> hd([maps:get(faults, C) || {T1, _, C, _} <- Rows, T1 =:= T]) end,
    Cpu = fun(T) -> hd([maps:get(cpu_ns, C) || {T1, _, C, _} <- Rows, T1 =:= T]) end,
    Gcs = fun(T) -> hd([maps:get(gcs, C) || {T1, _, C, _} <- Rows, T1 =:= T]) end,
    Sleeps = fun(T) -> hd([maps:get(sleeps, C) || {T1, _, C, _} <- Rows, T1 =:= T]) end,
    [{rt_fixed, eptest:median([Cpu(proc1), Cpu(proc2), Cpu(proc3)]) / N,
      eptest:median([Us(proc1), Us(proc2), Us(proc3)]) * 1000 / N,
      (Faults(proc1) + Faults(proc2) + Faults(proc3)) / (3 * N), (Gcs(proc1) + Gcs(proc2) + Gcs(proc3)) / (3 * N),
      0, 3 * N, (Sleeps(proc1) + Sleeps(proc2) + Sleeps(proc3)) / (3 * N)},
     {lookup_fixed, Cpu(ets_lookup) / N, Us(ets_lookup) * 1000 / N, Faults(ets_lookup) / N, Gcs(ets_lookup) / N,
      0, N, Sleeps(ets_lookup) / N}].

%% The server's sends, each run K of them into one receiver that is suspended while they
%% come (a process that is not running takes a message on its heap where it fits, else in a
%% fragment) and between runs drops them and collects itself, untimed: its heap block is the
%% loop's tester's and is reused run after run, so the copies land in memory as recently used
%% as the loop's (K: the messages that heap holds, at least one).
send(Data, W, Heap, Clk) ->
    K = max(1, Heap div (W + 3)),
    [row(send, in_process(fun() -> send_runs(Data, K, Heap) end, []), K, W, Clk, thread_ns),
     row(send_nil, in_process(fun() -> send_runs([], K, Heap) end, []), K, 0, Clk, thread_ns)].

-define(SEND_RUNS, 120).

send_runs(Data, K, Heap) ->
    Self = self(),
    R = spawn_opt(fun() -> receiver(Self) end, [{min_heap_size, Heap}]),
    Runs = [send_run(R, Data, K) || _ <- lists:seq(1, ?SEND_RUNS + 2)],
    exit(R, kill),
    lists:nthtail(2, Runs). % the first two untimed: the receiver's heap blocks touched

send_run(R, Data, K) ->
    erlang:suspend_process(R),
    T = timed(fun() -> send_k(R, Data, K) end),
    true = erlang:resume_process(R),
    R ! {drain, self()},
    receive {R, drained} -> T end.

receiver(Parent) ->
    receive
        {drain, Parent} -> drain(), erlang:garbage_collect(), Parent ! {self(), drained}, receiver(Parent)
    end.

drain() ->
    receive {_, _} -> drain()
    after 0 -> ok
    end.

send_k(_R, _Data, 0) -> ok;
send_k(R, Data, K) -> R ! {self(), Data}, send_k(R, Data, K - 1).

%% The loop's lookups: N keys in order from a table the calibration filled as the loop fills
%% its own; K results a run into a heap that holds them, and a virtual binary heap that holds
%% their reference-counted binaries, collected between runs. (Each result's ProcBins add their
%% binaries' words to the process's off-heap overhead, and the test after the BIF collects once
%% that passes bin_vheap_sz, erl_gc.h ERTS_IS_GC_DESIRED_INTERNAL: with the default vheap a run
%% of lookups of a 100 KiB binary collected every third lookup inside its timing, a GC the
%% account prices again as the loop's.)
lookup(Payload, L, N, W, Heap, Clk) ->
    K = max(1, min(N, Heap div (W + 5))),
    Vheap = (K + 2) * (refc_bytes(payload(Payload, L)) div 8 + 8),
    Opts = [{min_heap_size, K * (W + 5) + 1000}, {min_bin_vheap_size, max(Vheap, default_vheap())}],
    [row(lookup, lookup_runs(fun() -> payload(Payload, L) end, N, K, Opts), K, W, Clk, thread_ns),
     row(lookup_nil, lookup_runs(fun() -> [] end, N, K, Opts), K, 0, Clk, thread_ns)].

lookup_runs(Make, N, K, Opts) ->
    in_process(fun() ->
                       Data = Make(),
                       T = ets:new(account, [set]),
                       [ets:insert(T, {I, Data}) || _ <- [insert, overwrite], I <- lists:seq(1, N)],
                       %% untimed, twice: the heap's two blocks (the GC's from-space and
                       %% to-space) touched, as the loop's recycled heap is
                       [begin _ = lookup_k(T, N - K + 1, K), erlang:garbage_collect() end || _ <- [1, 2]],
                       Runs = [begin
                                   R = timed(fun() -> lookup_k(T, I, K) end),
                                   erlang:garbage_collect(),
                                   R
                               end || I <- lists:seq(1, N - K + 1, K)],
                       ets:delete(T),
                       Runs
               end, Opts).

%% The VM's default virtual binary heap of a process (words).
default_vheap() -> {min_bin_vheap_size, V} = erlang:system_info(min_bin_vheap_size), V.

%% Bytes of the reference-counted binaries in T (those past ERL_ONHEAP_BIN_LIMIT, 64 bytes),
%% each counted where it appears.
refc_bytes(B) when is_binary(B), byte_size(B) > 64 -> byte_size(B);
refc_bytes(T) when is_tuple(T) -> refc_bytes(tuple_to_list(T));
refc_bytes(M) when is_map(M) -> refc_bytes(maps:to_list(M));
refc_bytes(L) when is_list(L) -> refc_list(L, 0);
refc_bytes(_) -> 0.

refc_list([H | T], Acc) -> refc_list(T, Acc + refc_bytes(H));
refc_list(_, Acc) -> Acc.

lookup_k(_T, _I, 0) -> ok;
lookup_k(T, I, K) -> _ = ets:lookup(T, I), lookup_k(T, I + 1, K - 1).

%% The lookup loop's long GCs: a process of the loop's heap block holding Data in its old
%% heap, as the tester holds its payload (two minor GCs promote it: erl_gc.c minor_collection;
%% without an old heap the collector grows the young heap instead and the lookups collect at
%% other points), looks up the loop's keys in order, twice, from a table filled as the loop
%% fills its own, nothing else between the lookups (a BIF or NIF call after one would test
%% the heap as the loop's next lookup does, and collect earlier); its GCs traced by eptest's
%% tracer, whose `dirty` counts the long ones as the loop's are counted (young generation past
%% 128 Ki words: erl_gc.c check_for_possibly_long_gc sends them to a dirty CPU scheduler), and
%% the dirty schedulers' CPU time and faults read around the two passes (cpuclock.c). The
%% row: the dirty CPU ns and faults per long GC; ops: the long GCs seen. None (a loop whose
%% GCs stay on its scheduler): no row.
gc_long(Data, N, Heap) ->
    T = ets:new(account, [set]),
    [ets:insert(T, {I, Data}) || _ <- [insert, overwrite], I <- lists:seq(1, N)],
    {Ns, Faults, Long} =
        in_process(fun() ->
                           Held = Data,
                           [erlang:garbage_collect(self(), [{type, minor}]) || _ <- [1, 2]],
                           Self = self(),
                           Tr = spawn_link(fun() -> eptest:tracer(#{}) end),
                           erlang:trace(Self, true, [garbage_collection, monotonic_timestamp, {tracer, Tr}]),
                           D0 = cpuclock:dirty_ns(),
                           F0 = cpuclock:dirty_faults(),
                           lookup_k(T, 1, N),
                           lookup_k(T, 1, N),
                           F1 = cpuclock:dirty_faults(),
                           D1 = cpuclock:dirty_ns(),
                           erlang:trace(Self, false, [garbage_collection]),
                           [#{dirty := G}] = eptest:trace_counts(Tr, [Self]),
                           eptest:stop_tracer(Tr),
                           _ = erts_debug:flat_size(Held),
                           {D1 - D0, F1 - F0, G}
                   end, [{min_heap_size, Heap}]),
    ets:delete(T),
    [{gc_long, Ns / Long, 0, Faults / Long, 0, 0, Long, 0} || Long > 0].

-define(CARRIER_RUNS, 41).

%% A carrier of the loop's heap block, mapped, first written and unmapped by the NIF on this
%% scheduler and on a dirty CPU scheduler (cpuclock.c); the thread's own CPU time, so neither
%% the trip to the dirty scheduler nor the caller's sleep meanwhile is in it (no sleeps).
carriers(Heap) ->
    Bytes = Heap * erlang:system_info(wordsize),
    Run = fun(F) -> F0 = cpuclock:minflt(),
                    {C, T} = cpuclock:F(Bytes),
                    {C, T, cpuclock:minflt() - F0, 0}
          end,
    [row(Unit, [Run(F) || _ <- lists:seq(1, ?CARRIER_RUNS)], 1, 0, #{}, none)
     || {Unit, F} <- [{carrier, carrier}, {carrier_dirty, carrier_dirty}]].

-define(GC_REPS, 41).
-define(GC_MIN_LIVE, 4096).
%% erl_gc.h ERTS_POTENTIALLY_LONG_GC_HSIZE: from this young-generation use a GC runs dirty.
-define(LONG_GC, (128 * 1024)).

%% The loop's GC, rebuilt: a heap block of its size, Live words of fresh data, Msgs queued
%% messages of Data; each forced GC timed alone (in a process that allocates nothing else).
gc(Data, W, #{heap := Heap, live := Live0, msgs := Msgs}, Clk) ->
    %% enough live words for a per-word price to stand out of a GC's fixed cost
    Live = max(Live0, ?GC_MIN_LIVE),
    Minor = fun(Words) -> in_process(fun() -> [gc_once(minor, Words) || _ <- lists:seq(1, ?GC_REPS)] end,
                                     [{min_heap_size, Heap}]) end,
    Major = fun(Words) -> in_process(fun() -> D = Data, erlang:garbage_collect(),
                                              R = [gc_once(major, Words) || _ <- lists:seq(1, ?GC_REPS)],
                                              _ = erts_debug:flat_size(D), R end,
                                     [{min_heap_size, Heap}]) end,
    [row(gc_minor, Minor(Live), 1, Live, Clk, thread_ns), row(gc_minor_nil, Minor(0), 1, 0, Clk, thread_ns),
     gc_minor_bif(Heap),
     row(gc_major, Major(Live), 1, Live + W, Clk, process_ns), row(gc_major_nil, Major(0), 1, W, Clk, process_ns),
     row(gc_dirty, gc_usage(?LONG_GC + 1024), 1, 0, Clk, process_ns),
     row(gc_dirty_nil, gc_usage(?LONG_GC - 1024), 1, 0, Clk, process_ns)]
        ++ case Msgs > 0 andalso erlang:system_info(schedulers_online) > 1 of
               false -> [];
               true ->
                   %% enough messages for a per-word price to stand out of the GC's own cost
                   K = max(Msgs, (?GC_MIN_LIVE + W + 2) div (W + 3)),
                   %% the GC stays on the scheduler below a long GC's young generation
                   Clock = case Heap + K * (W + 3) < ?LONG_GC of true -> thread_ns; false -> process_ns end,
                   [row(gc_move, gc_moves(Data, K, Heap, Clock), 1, K * (W + 3), Clk, Clock),
                    row(gc_move_nil, gc_moves([], K, Heap, Clock), 1, K * 3, Clk, Clock)]
           end.

%% The gc_minor_bif row: ?GC_REPS pairs of runs of ?BIF_LOOKUPS lookups, the vheap's GCs and
%% none, in one process each, the median of the pairs' CPU ns and faults per GC between them.
-define(BIF_LOOKUPS, 3000).
gc_minor_bif(Heap) ->
    T = ets:new(account_gc_bif, [set]),
    true = ets:insert(T, {1, <<0:819200>>}),
    Minors = fun() -> {garbage_collection, G} = process_info(self(), garbage_collection),
                      proplists:get_value(minor_gcs, G) end,
    Run = fun(Vheap) ->
                  in_process(fun() -> eptest:hot_loop(T, 100),
                                     G0 = Minors(),
                                     {C, _, F, _} = timed(fun() -> eptest:hot_loop(T, ?BIF_LOOKUPS) end),
                                     {C, F, Minors() - G0}
                             end, [{min_heap_size, Heap}, {min_bin_vheap_size, Vheap}])
          end,
    %% the default vheap, and one no run of lookups fills
    Pairs = [{Run(default_vheap()), Run(1 bsl 40)} || _ <- lists:seq(1, ?GC_REPS)],
    ets:delete(T),
    PerGc = [{(C - C0) / (G - G0), (F - F0) / (G - G0)} || {{C, F, G}, {C0, F0, G0}} <- Pairs, G > G0],
    {gc_minor_bif, eptest:median([C || {C, _} <- PerGc]), 0, eptest:median([F || {_, F} <- PerGc]), 0, 0,
     length(PerGc), 0.0}.

%% Live words of fresh data (a list of small integers: 2 words a cell) kept live across one
%% forced GC of Kind.
gc_once(Kind, Live) ->
    Keep = lists:seq(1, Live div 2),
    %% a major of a big heap may go dirty: the process's clock then
    R = timed(fun() -> erlang:garbage_collect(self(), [{type, Kind}]) end,
              case Kind of minor -> thread_ns; major -> process_ns end),
    _ = length(Keep),
    R.

%% A minor GC of a young heap holding Use words of garbage and nothing live: from
%% ERTS_POTENTIALLY_LONG_GC_HSIZE words on, the GC goes to a dirty CPU scheduler and back
%% (erl_gc.c check_for_possibly_long_gc); gc_dirty less gc_dirty_nil is that trip.
gc_usage(Use) ->
    in_process(fun() -> [begin _ = lists:seq(1, Use div 2),
                               timed(fun() -> erlang:garbage_collect(self(), [{type, minor}]) end, process_ns)
                         end || _ <- lists:seq(1, ?GC_REPS)]
               end, [{min_heap_size, ?LONG_GC + 8192}]).
%% ?GC_REPS runs of gc_move_once whose messages all sat in fragments; the sender bound to
%% scheduler 1 and the receiver to scheduler 2, so the receiver is running when they come.
gc_moves(Data, Msgs, Heap, Clock) ->
    Frag = Msgs * erts_debug:flat_size({self(), Data}),
    in_process(fun() -> gc_moves(Data, Msgs, Heap, Clock, Frag, ?GC_REPS, 3 * ?GC_REPS) end, [{scheduler, 1}]).

gc_moves(_Data, _Msgs, _Heap, _Clock, _Frag, 0, _Tries) -> [];
gc_moves(_Data, _Msgs, _Heap, _Clock, _Frag, _Left, 0) -> error(gc_move_messages_not_in_fragments);
gc_moves(Data, Msgs, Heap, Clock, Frag, Left, Tries) ->
    case gc_move_once(Data, Msgs, Heap, Clock) of
        {Mbuf, R} when Mbuf >= Frag -> [R | gc_moves(Data, Msgs, Heap, Clock, Frag, Left - 1, Tries - 1)];
        _ -> gc_moves(Data, Msgs, Heap, Clock, Frag, Left, Tries - 1)
    end.

%% One run: the receiver is held running (cpuclock:hold/1) until the messages are sent, takes
%% them with go, reads its heap fragments' size, then one minor GC, timed.
gc_move_once(Data, Msgs, Heap, Clock) ->
    Parent = self(),
    P = spawn_opt(fun() ->
                          Parent ! {self(), running},
                          _ = cpuclock:hold(1000),
                          receive go -> ok end,
                          {mbuf_size, Mbuf} = lists:keyfind(mbuf_size, 1,
                                                            element(2, process_info(self(), garbage_collection_info))),
                          Parent ! {self(), {Mbuf, timed(fun() -> erlang:garbage_collect(self(), [{type, minor}]) end,
                                                         Clock)}},
                          receive stop -> ok end
                  end, [{min_heap_size, Heap}, {scheduler, 2}]),
    receive {P, running} -> ok end,
    [P ! {self(), Data} || _ <- lists:seq(1, Msgs)],
    ok = cpuclock:release(),
    P ! go,
    receive {P, R} -> exit(P, kill), R end.
