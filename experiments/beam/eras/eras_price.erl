%% eras_price - the unit prices of the 2005 benchmark's loops on a VM of any era (R10B-2,
%% R13B01 without SMP, OTP 25), measured in runs of their own, apart from the loops they price:
%% the time account of scenarios/account.h for the seeds' VMs. Written in the subset of Erlang
%% that R10B-2's compiler takes, as eras_ep.erl is.
%%
%% The clock is erlang:now(), the one eras_ep.erl times the loops with (wall time, in
%% microseconds): the seeds' VMs run the benchmark on one scheduler thread, so on a machine with
%% a core to spare it is that thread's CPU time. R10B-2 has no finer CPU clock: it has no NIFs,
%% statistics(runtime) counts milliseconds, and /proc/self/task/*/schedstat adds a running
%% thread's time only at the kernel's scheduling events (windows of 200 GCs read 0 or 59 us).
%% Every calibration is taken net of a window timed around nothing.
%%
%% Units, each per eras_ep loop (rt: a proc pass's call; lookup: ets_lookup's), at payload
%% Data = lists:seq(1, L) (W words of Data on the VM's word, 2L):
%%   fixed      one operation on []: N calls to a server holding [], N lookups of {I, []} in a
%%              set of N, each in a fresh process with the default heap, its few GCs included
%%   word       one word of Data copied by the operation: M groups of K operations, each group
%%              after a collection of a heap that holds K results (the loop's heap, or twice a
%%              result where the loop's holds none: no fragment, no collection inside a group),
%%              less the same M collections without the operations, less M x K fixed prices and
%%              the faults at the fault price, over M x K x W. The lookups read the loop's table
%%              (N objects {I, Data}) in turn, each once per N, as the loop does: a word's price
%%              depends on where its source sits
%%   gc_minor   one collection of the loop's heap with nothing live: erlang:garbage_collect/0 in
%%              a process whose min_heap_size is the heap the loop's tester has (read from a
%%              process that ran a few of the loop's operations), its faults out. R10B-2's and
%%              R13B01's garbage_collect/0 (bif.c garbage_collect_0) collect inside the BIF, in
%%              place, as the loops' collections are (erts_send_message collects the receiver
%%              before it copies; a lookup's fragment at the next schedule, or after the BIF).
%%              On R10B-2 the lookup's price adds the yield its fragments force: erts_heap_alloc
%%              (utils.c) does BUMP_ALL_REDS, so the collection runs at the next schedule in, a
%%              switch the [] loop's fixed price does not hold; erlang:bump_reductions(1000)
%%              yields the same way, a slice's reductions counted (bif.c bump_reductions_1
%%              takes at most CONTEXT_REDS), so the I/O polls the scheduler makes per 2000
%%              reductions (erl_process.c schedule, INPUT_REDUCTIONS) are in it too
%%   gc_major, gc_word   the same collection with Data live, and its excess over gc_minor per
%%              word of Data: the collector's price per word copied
%%   gc_frag_word  (R13B01's lookup) one word of a lookup's result collected out of its heap
%%              fragment: R13B01 collects after every BIF that left a fragment (beam_emu.c
%%              POST_BIF_GC_SWAPIN, erl_gc.c erts_gc_after_bif_call), and that collection copies
%%              the result out of the fragment (collect_heap_frags) and then sweeps it again with
%%              the new heap (do_minor's scan), the fragment allocated and freed around it. M
%%              windows, each a collection and then K + 1 lookups of the loop's table, K as many
%%              as the heap left by the collection holds (found first, untimed): the last lookup's
%%              result goes to a fragment and is collected; less the same windows of K lookups,
%%              over the collections the difference made (statistics(garbage_collection)), less a
%%              lookup (fixed and W words), a collection with nothing live (gc_minor), over the
%%              fragment's words (the result [{I, Data}], W + 5). Elsewhere (R10B-2 collects a
%%              fragment at the next schedule, in gc_minor's yield; the round trips leave none)
%%              the collector's word
%% Faults and carriers are not priced here: the kernel's prices are this machine's, measured by
%% the model's probes (experiments/account --fault-probe, --carrier-probe: on these one-threaded
%% VMs a mapping costs what it costs that process); the caller passes them in.
%%
%% Usage: erl -noshell -pa DIR -run eras_price main L N ROUNDS FAULT_NS CARRIER_NS OUT
%% writes, per loop, one row in the format of scenarios/account.h's prices CSV (shape ints; the
%% units an R10B-era loop does not have, 0; gc_move_word the collector's word: these
%% releases move no queued message onto the heap apart from a collection) to OUT, appended after a header if new; each price
%% the median over ROUNDS rounds, each of which runs every calibration of both loops.
-module(eras_price).
-export([main/1, calibrate/2]).
%% OTP 25 deprecates now/0; R10B-2 has no other clock, and older compilers ignore this
-compile({nowarn_deprecated_function, [{erlang, now, 0}]}).

main([Ls, Ns, Rs, Fs, Cs, Out]) ->
    L = list_to_integer(Ls), N = list_to_integer(Ns), R = list_to_integer(Rs),
    Fault = list_to_number(Fs), Carrier = list_to_number(Cs),
    W = 2 * L,
    Ctx = [context(Loop, L, N, W) || Loop <- [rt, lookup]],
    %% Each round prices both loops, unit after unit, so a burst of the machine's load that
    %% slows a round slows both loops' prices in it: the medians come from the same rounds.
    Rounds = [[price_round(C, L, W, Fault) || C <- Ctx] || _ <- lists:seq(1, R)],
    [Rt, Lk] = [medians([lists:nth(I, Round) || Round <- Rounds]) || I <- [1, 2]],
    ok = file:write_file(Out, [header(Out), row(L, rt, Rt, Fault, Carrier), row(L, lookup, Lk, Fault, Carrier)], [append]),
    halt(0);
main(Args) ->
    io:format("usage: eras_price main L N ROUNDS FAULT_NS CARRIER_NS OUT (got ~p)~n", [Args]),
    halt(2).

list_to_number(S) ->
    case catch list_to_float(S) of
        F when is_float(F) -> F;
        _ -> float(list_to_integer(S))
    end.

%% What a loop's calibrations need: {Loop, the loop's heap, the word calibration's K, M and
%% heap, the fragment calibration's K and M (none where it has none)}.
context(Loop, L, N, W) ->
    Heap = loop_heap(Loop, L),
    {K, M, WHeap} = word_ops(Heap, W),
    Frag = case {Loop, fragment_collected()} of
               {lookup, true} -> KF = frag_fits(L, N, Heap), {KF, windows((KF + 1) * W)};
               _ -> none
           end,
    {Loop, Heap, N, K, M, WHeap, Frag}.

%% One round of a loop's prices: [Fixed, Word, GcMinor, GcMajor, GcWord, GcFragWord].
price_round({Loop, Heap, N, K, M, WHeap, Frag}, L, W, Fault) ->
    Empty = element(1, run({empty, 0}, [])),
    Fixed = per(run({fixed, Loop, N}, []), Empty, Fault, N),
    Word = (per(run({word, Loop, L, N, K, M}, [{min_heap_size, WHeap}]), Empty, Fault, M)
            - per(run({word, Loop, L, N, 0, M}, [{min_heap_size, WHeap}]), Empty, Fault, M) - K * Fixed) / (K * W),
    G = 200,
    Yield = case {Loop, fragment_yields()} of
                {lookup, true} -> per(run({yield, G}, []), Empty, Fault, G);
                _ -> 0.0
            end,
    Minor = per(run({gc, 0, G}, [{min_heap_size, Heap}]), Empty, Fault, G),
    Major = per(run({gc, L, G}, [{min_heap_size, Heap}]), Empty, Fault, G),
    GcWord = pos((Major - Minor) / W),
    FragWord = case Frag of
                   none -> GcWord;
                   {KF, MF} ->
                       {Ns1, F1, G1} = run({frag, L, N, KF + 1, MF}, [{min_heap_size, Heap}]),
                       {Ns0, F0, G0} = run({frag, L, N, KF, MF}, [{min_heap_size, Heap}]),
                       Gcs = pos(G1 - G0),
                       case Gcs > 0 of
                           true -> pos(((Ns1 - Ns0 - (F1 - F0) * Fault) / Gcs - Fixed - W * Word - Minor) / (W + 5));
                           false -> GcWord  % no fragment collected: the unit is not in this loop
                       end
               end,
    [Fixed, Word, Minor + Yield, Major + Yield, GcWord, FragWord].

%% Each price's median over the rounds: {Fixed, Word, GcMinor, GcMajor, GcWord, GcFragWord}.
medians(Rounds) ->
    list_to_tuple([eras_ep:median([lists:nth(I, Rd) || Rd <- Rounds]) || I <- lists:seq(1, 6)]).

%% Whether a heap fragment asks for a yield: R10B-2's erts_heap_alloc (utils.c) does
%% BUMP_ALL_REDS; R13B01's and OTP 25's do not (the model's policy field frag_yield).
fragment_yields() -> lists:prefix("5.4.", erlang:system_info(version)).

%% Whether a BIF's fragment is collected right after it, by tracing: R13B01 (beam_emu.c
%% POST_BIF_GC_SWAPIN whenever MBUF is set; the model's policy bif_gc_test any_frag). R10B-2
%% collects it at the next schedule; OTP 25 moves it whole (move_live_frags).
fragment_collected() -> lists:prefix("5.7.", erlang:system_info(version)).

%% The fragment calibration's K: the most lookups a window holds after its collection with no
%% other collection, found by counting (untimed, 20 windows from K = 1 up, against windows of
%% none: a window's reads of the clock and the fault count can collect once in a while).
frag_fits(L, N, Heap) ->
    {_, _, None} = run({frag, L, N, 0, 20}, [{min_heap_size, Heap}]),
    frag_fits(L, N, Heap, None, 0).

frag_fits(L, N, Heap, None, K) ->
    {_, _, Gcs} = run({frag, L, N, K + 1, 20}, [{min_heap_size, Heap}]),
    case Gcs - None >= 10 of
        true -> K;
        false -> frag_fits(L, N, Heap, None, K + 1)
    end.

pos(X) when X > 0 -> X;
pos(_) -> 0.0.

%% The word calibration's windows: K operations, as many as half the loop's heap holds, in each
%% of M windows, M enough for 8 M words copied (at least 50); and the heap: the loop's, or one
%% that holds a result twice where the loop's holds none (R10B-2's lookup loop: each result
%% then goes to a heap fragment, and the fragment's yield and collection would be in the window).
word_ops(Heap, W) ->
    WHeap = case Heap < 2 * (W + 8) of true -> 2 * (W + 8) + 1000; false -> Heap end,
    K = (WHeap div 2) div (W + 8),
    {K, windows(K * W), WHeap}.

%% Windows of Words words copied each, enough for 8 M words (at least 50).
windows(Words) ->
    case 8000000 div Words of M when M < 50 -> 50; M -> M end.

%% ns of one unit: a run's {Ns, Faults, _} net of an empty window's time and of its faults,
%% over Units.
per({Ns, Faults, _}, Empty, Fault, Units) -> (Ns - Empty - Faults * Fault) / Units.

%% The heap the loop's tester has: a tester of Data, its server and its table, after a few of
%% the loop's operations (the heap then is the one the loop collects).
loop_heap(Loop, L) ->
    P = spawn(?MODULE, calibrate, [self(), {heap, Loop, L}]),
    receive {P, H} -> H end.

%% One calibration in a fresh process: {Ns, Faults, GCs} of its timed window.
run(What, Opts) ->
    P = spawn_opt(?MODULE, calibrate, [self(), What], Opts),
    receive {P, {Ns, _, _} = Res} when is_number(Ns) -> Res end.

calibrate(Parent, What) ->
    Parent ! {self(), body(What)}.

body({heap, rt, L}) ->
    Data = lists:seq(1, L),
    S = spawn(eras_ep, server, [Data]),
    eras_ep:call_loop(S, 20),
    S ! stop,
    {heap_size, H} = process_info(self(), heap_size),
    keep(Data, H);
body({heap, lookup, L}) ->
    Data = lists:seq(1, L),
    T = table(20, Data),
    eras_ep:lookup_loop(T, 1, 20),
    ets:delete(T),
    {heap_size, H} = process_info(self(), heap_size),
    keep(Data, H);
body({empty, _}) ->
    window(fun() -> ok end);
body({fixed, rt, N}) ->
    S = spawn(eras_ep, server, [[]]),
    Res = window(fun() -> eras_ep:call_loop(S, N) end),
    S ! stop,
    Res;
body({fixed, lookup, N}) ->
    T = table(N, []),
    Res = window(fun() -> eras_ep:lookup_loop(T, 1, N) end),
    ets:delete(T),
    Res;
body({word, rt, L, _N, K, M}) ->
    S = spawn(eras_ep, server, [lists:seq(1, L)]),
    Res = window(fun() -> collected(fun(_) -> eras_ep:call_loop(S, K) end, 0, M) end),
    S ! stop,
    Res;
body({word, lookup, L, N, K, M}) ->
    %% the loop's table: N objects read in turn, each once per N lookups (the twin without
    %% lookups, K = 0, needs none)
    T = table(case K of 0 -> 0; _ -> N end, lists:seq(1, L)),
    Res = window(fun() -> collected(fun(I) -> lookup_loop(T, I, N, K) end, 1, M) end),
    ets:delete(T),
    Res;
body({frag, L, N, K, M}) ->
    T = table(N, lists:seq(1, L)),
    Res = window(fun() -> collected(fun(I) -> lookup_loop(T, I, N, K) end, 1, M) end),
    ets:delete(T),
    Res;
body({yield, G}) ->
    window(fun() -> yield_loop(G) end);
body({gc, L, G}) ->
    Data = seq(L),
    erlang:garbage_collect(),
    Res = window(fun() -> gc_loop(G) end),
    keep(Data, Res).

%% lists:seq(1, L), [] for 0 (R10B-2's lists:seq/2 takes no empty range).
seq(0) -> [];
seq(L) -> lists:seq(1, L).

%% Keeps Data live to the end of the body (the collections copy it).
keep(Data, Res) when is_list(Data) -> Res.

%% {ns, minor faults, collections} of Fun, read around it (statistics(garbage_collection)
%% counts every process's: the calibrating one is the only one running).
window(Fun) ->
    {G0, _, _} = statistics(garbage_collection),
    F0 = eras_ep:minflt(), C0 = clock_ns(),
    Fun(),
    C1 = clock_ns(), F1 = eras_ep:minflt(),
    {G1, _, _} = statistics(garbage_collection),
    {C1 - C0, F1 - F0, G1 - G0}.

%% Fun M times, each after a collection of the process's heap, so each starts on the heap the
%% loop's collections leave; Fun takes and returns a state (the lookups' next key).
collected(_Fun, _St, 0) -> ok;
collected(Fun, St, M) -> erlang:garbage_collect(), collected(Fun, Fun(St), M - 1).

table(N, Data) ->
    T = ets:new(eras_price, [set]),
    lists:foreach(fun(I) -> ets:insert(T, {I, Data}) end, seq(N)),
    T.

%% K lookups from key I on, after N back to 1; returns the next key.
lookup_loop(_T, I, _N, 0) -> I;
lookup_loop(T, I, N, K) when I > N -> lookup_loop(T, 1, N, K);
lookup_loop(T, I, N, K) -> ets:lookup(T, I), lookup_loop(T, I + 1, N, K - 1).

%% R10B-2's fragment yield (gc_minor above): the call after the bump yields.
yield_loop(0) -> ok;
yield_loop(G) -> erlang:bump_reductions(1000), yield_loop(G - 1).

gc_loop(0) -> ok;
gc_loop(G) -> erlang:garbage_collect(), gc_loop(G - 1).

%% The clock, in ns.
clock_ns() -> {M, S, U} = erlang:now(), ((M * 1000000 + S) * 1000000 + U) * 1000.

header(Out) ->
    case file:read_file_info(Out) of
        {ok, _} -> [];
        _ -> "shape,payload_len,loop,fixed_ns,word_ns,gc_minor_ns,gc_major_ns,gc_word_ns,gc_move_word_ns,"
             "gc_dirty_ns,gc_long_ns,gc_long_gcs,fault_ns,carrier_ns,carrier_dirty_ns,sleep_ns,fixed_sleeps,dirty_sleeps,"
             "gc_frag_word_ns\n"
    end.

row(L, Loop, {Fixed, Word, Minor, Major, GcWord, FragWord}, Fault, Carrier) ->
    io_lib:format("ints,~w,~s,~s,~s,~s,~s,~s,~s,0,0,0,~s,~s,0,0,0,0,~s~n",
                  [L, Loop, f(Fixed, 2), f(Word, 4), f(Minor, 1), f(Major, 1), f(GcWord, 4), f(GcWord, 4), f(Fault, 1),
                   f(Carrier, 1), f(FragWord, 4)]).

f(X, D) -> io_lib:format("~.*f", [D, float(X)]).
