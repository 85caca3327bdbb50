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
%%   word       one word of Data copied by the operation: K operations into a heap sized to hold
%%              them all (min_heap_size), so none collects, less K fixed prices and the window's
%%              faults at the fault price, over K x W. The heap is written once by the same K
%%              operations and collected twice before the timed run (the second collection's
%%              heap is the segment the first freed, its pages already written); the faults it
%%              still takes are counted in the window and taken out
%%   gc_minor   one collection of the loop's heap with nothing live: erlang:garbage_collect/0 in
%%              a process whose min_heap_size is the heap the loop's tester has (read from a
%%              process that ran a few of the loop's operations), its faults out. R10B-2's
%%              garbage_collect/0 (bif.c garbage_collect_0) collects in place, inside the BIF,
%%              as the loops' collections are (erts_send_message collects the receiver before
%%              it copies; a lookup's fragment at the next schedule). For the lookup loop the
%%              price adds one erlang:yield/0: R10B-2's HAlloc asks for a yield when a fragment
%%              fills the heap (BUMP_ALL_REDS) and the collection runs at the next schedule in,
%%              a switch the [] loop's fixed price does not hold (R13B01's and OTP 25's fragments
%%              ask for none)
%%   gc_major, gc_word   the same collection with Data live, and its excess over gc_minor per
%%              word of Data: the collector's price per word copied
%% Faults are not priced here: the kernel's price is this machine's, measured by the model's
%% probe (experiments/account --fault-probe); the caller passes it in.
%%
%% Usage: erl -noshell -pa DIR -run eras_price main VM L N ROUNDS FAULT_NS OUT
%% writes, per loop, one row in the format of scenarios/account.h's prices CSV (shape ints; the
%% units an R10B-era loop does not have, 0) to OUT, appended after a header if new; each price
%% the median over ROUNDS runs of its calibration.
-module(eras_price).
-export([main/1, calibrate/3, server/1]).
%% OTP 25 deprecates now/0; R10B-2 has no other clock, and older compilers ignore this
-compile({nowarn_deprecated_function, [{erlang, now, 0}]}).

main([Vm, Ls, Ns, Rs, Fs, Out]) ->
    L = list_to_integer(Ls), N = list_to_integer(Ns), R = list_to_integer(Rs),
    Fault = list_to_number(Fs),
    W = 2 * L,
    Rt = prices(rt, L, N, R, W, Fault),
    Lk = prices(lookup, L, N, R, W, Fault),
    ok = file:write_file(Out, [header(Out), row(Vm, L, rt, Rt, Fault), row(Vm, L, lookup, Lk, Fault)], [append]),
    halt(0);
main(Args) ->
    io:format("usage: eras_price main VM L N ROUNDS FAULT_NS OUT (got ~p)~n", [Args]),
    halt(2).

list_to_number(S) ->
    case catch list_to_float(S) of
        F when is_float(F) -> F;
        _ -> float(list_to_integer(S))
    end.

%% {Fixed, Word, GcMinor, GcMajor, GcWord} of one loop, medians over R rounds.
prices(Loop, L, N, R, W, Fault) ->
    Heap = loop_heap(Loop, L),
    Empty = median([element(1, run({empty, 0}, [])) || _ <- lists:seq(1, R)]),
    Fixed = median([per(run({fixed, Loop, N}, []), Empty, Fault, N) || _ <- lists:seq(1, R)]),
    {K, M, WHeap} = word_ops(Heap, W),
    Word = median([(per(run({word, Loop, L, N, K, M}, [{min_heap_size, WHeap}]), Empty, Fault, M)
                    - per(run({word, Loop, L, N, 0, M}, [{min_heap_size, WHeap}]), Empty, Fault, M) - K * Fixed) / (K * W)
                   || _ <- lists:seq(1, R)]),
    G = 200,
    Yield = case {Loop, fragment_yields()} of
                {lookup, true} -> median([per(run({yield, G}, []), Empty, Fault, G) || _ <- lists:seq(1, R)]);
                _ -> 0.0
            end,
    Minor = median([per(run({gc, 0, G}, [{min_heap_size, Heap}]), Empty, Fault, G) || _ <- lists:seq(1, R)]),
    Major = median([per(run({gc, L, G}, [{min_heap_size, Heap}]), Empty, Fault, G) || _ <- lists:seq(1, R)]),
    {Fixed, Word, Minor + Yield, Major + Yield, pos((Major - Minor) / W)}.

%% Whether a heap fragment asks for a yield: R10B-2's erts_heap_alloc (utils.c) does
%% BUMP_ALL_REDS; R13B01's and OTP 25's do not (the model's policy field frag_yield).
fragment_yields() -> lists:prefix("5.4.", erlang:system_info(version)).

pos(X) when X > 0 -> X;
pos(_) -> 0.0.

%% The word calibration's windows: K operations, as many as half the loop's heap holds, in each
%% of M windows, M enough for 2 M words copied (at least 50); and the heap: the loop's, or one
%% that holds a result twice where the loop's holds none (R10B-2's lookup loop: each result
%% then goes to a heap fragment, and the fragment's yield and collection would be in the window).
word_ops(Heap, W) ->
    WHeap = case Heap < 2 * (W + 8) of true -> 2 * (W + 8) + 1000; false -> Heap end,
    K = (WHeap div 2) div (W + 8),
    M = case 2000000 div (K * W) of M0 when M0 < 50 -> 50; M0 -> M0 end,
    {K, M, WHeap}.

%% ns of one unit: a run's {Ns, Faults, Windows} net of its windows' empty time and of its
%% faults, over Units.
per({Ns, Faults, Windows}, Empty, Fault, Units) -> (Ns - Windows * Empty - Faults * Fault) / Units.

%% The heap the loop's tester has: a tester of Data, its server and its table, after a few of
%% the loop's operations (the heap then is the one the loop collects).
loop_heap(Loop, L) ->
    P = spawn(?MODULE, calibrate, [self(), {heap, Loop, L}, []]),
    receive {P, H} -> H end.

%% One calibration in a fresh process: {Ns, Faults} of its timed window (or the heap size).
run(What, Opts) ->
    P = spawn_opt(?MODULE, calibrate, [self(), What, []], Opts),
    receive {P, {Ns, _, _} = Res} when is_number(Ns) -> Res end.

calibrate(Parent, What, _) ->
    Parent ! {self(), body(What)}.

body({heap, rt, L}) ->
    Data = lists:seq(1, L),
    S = spawn(?MODULE, server, [Data]),
    call_loop(S, 20),
    S ! stop,
    {heap_size, H} = process_info(self(), heap_size),
    keep(Data, H);
body({heap, lookup, L}) ->
    Data = lists:seq(1, L),
    T = table(20, Data),
    lookup_loop(T, 1, 20),
    ets:delete(T),
    {heap_size, H} = process_info(self(), heap_size),
    keep(Data, H);
body({empty, _}) ->
    window(fun() -> ok end);
body({fixed, rt, N}) ->
    S = spawn(?MODULE, server, [[]]),
    Res = window(fun() -> call_loop(S, N) end),
    S ! stop,
    Res;
body({fixed, lookup, N}) ->
    T = table(N, []),
    Res = window(fun() -> lookup_loop(T, 1, N) end),
    ets:delete(T),
    Res;
body({word, rt, L, _N, K, M}) ->
    S = spawn(?MODULE, server, [lists:seq(1, L)]),
    Res = window(fun() -> collected(fun(_) -> call_loop(S, K) end, 0, M) end),
    S ! stop,
    Res;
body({word, lookup, L, N, K, M}) ->
    %% the loop's table: N objects read in turn, each once per N lookups
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

%% {ns, minor faults, 1} of Fun, read around it (1: the window's count, for the empty one's
%% time taken out).
window(Fun) ->
    F0 = eras_ep:minflt(), C0 = clock_ns(),
    Fun(),
    C1 = clock_ns(), F1 = eras_ep:minflt(),
    {C1 - C0, F1 - F0, 1}.

%% Fun M times, each after a collection of the process's heap, so each starts on the heap the
%% loop's collections leave.
%% Fun takes and returns a state: the lookups' next key.
collected(_Fun, _St, 0) -> ok;
collected(Fun, St, M) -> erlang:garbage_collect(), collected(Fun, Fun(St), M - 1).

table(N, Data) ->
    T = ets:new(eras_price, [set]),
    lists:foreach(fun(I) -> ets:insert(T, {I, Data}) end, seq(N)),
    T.

server(Data) ->
    receive
        {From, get} -> From ! {self(), Data}, server(Data);
        stop -> ok
    end.

call_loop(_S, 0) -> ok;
call_loop(S, N) ->
    S ! {self(), get},
    receive {S, _Data} -> call_loop(S, N - 1) end.

lookup_loop(_T, I, N) when I > N -> ok;
lookup_loop(T, I, N) -> ets:lookup(T, I), lookup_loop(T, I + 1, N).

%% K lookups from key I on, after N back to 1; returns the next key.
lookup_loop(_T, I, _N, 0) -> I;
lookup_loop(T, I, N, K) when I > N -> lookup_loop(T, 1, N, K);
lookup_loop(T, I, N, K) -> ets:lookup(T, I), lookup_loop(T, I + 1, N, K - 1).

%% bump_reductions/1 takes at most a slice (bif.c bump_reductions_1: CONTEXT_REDS), so the
%% call after it yields, as after BUMP_ALL_REDS, with a slice's reductions counted.
yield_loop(0) -> ok;
yield_loop(G) -> erlang:bump_reductions(1000), yield_loop(G - 1).

gc_loop(0) -> ok;
gc_loop(G) -> erlang:garbage_collect(), gc_loop(G - 1).

%% The clock, in ns.
clock_ns() -> {M, S, U} = erlang:now(), ((M * 1000000 + S) * 1000000 + U) * 1000.

median(Xs) ->
    S = lists:sort(Xs), N = length(S),
    case N rem 2 of
        1 -> lists:nth((N + 1) div 2, S);
        0 -> (lists:nth(N div 2, S) + lists:nth(N div 2 + 1, S)) / 2
    end.

header(Out) ->
    case file:read_file_info(Out) of
        {ok, _} -> [];
        _ -> "shape,payload_len,loop,fixed_ns,word_ns,gc_minor_ns,gc_major_ns,gc_word_ns,gc_move_word_ns,"
             "gc_dirty_ns,gc_long_ns,gc_long_gcs,fault_ns,carrier_ns,carrier_dirty_ns,sleep_ns,fixed_sleeps,dirty_sleeps\n"
    end.

row(_Vm, L, Loop, {Fixed, Word, Minor, Major, GcWord}, Fault) ->
    io_lib:format("ints,~w,~s,~s,~s,~s,~s,~s,~s,0,0,0,~s,0,0,0,0,0~n",
                  [L, Loop, f(Fixed, 2), f(Word, 4), f(Minor, 1), f(Major, 1), f(GcWord, 4), f(GcWord, 4), f(Fault, 1)]).

f(X, D) -> io_lib:format("~.*f", [D, float(X)]).
