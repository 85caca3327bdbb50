%% eras_ep - the 2005 send-vs-ets:lookup benchmark (erlang-questions, 2005-03-29) written in
%% the subset of Erlang that R10B-2's compiler takes, so the same source runs on R10B-2,
%% R13B01 and OTP 25 (each VM compiles it with its own compiler).
%%
%% The seed's attachment (eptest.erl) was scrubbed from the mailing-list archive: this is a
%% reconstruction from the post's text, as experiments/beam/eptest.erl is. Per repeat a fresh
%% tester process builds Data = lists:seq(1, L), spawns a server holding Data and runs
%%   proc1..3       N calls: S ! {self(), get}, receive {S, Data}
%%   ets_insert     N inserts of {I, Data}, I = 1..N, into an empty set
%%   ets_overwrite  the same N inserts again
%%   ets_lookup     N ets:lookup(T, I), results dropped
%%   empty          a loop of N
%% each pass timed with erlang:now() around it (the seed's era had no other clock).
%%
%% GC counts. R10B's statistics(garbage_collection) counts every process together and its
%% process_info(P, garbage_collection) gives only fullsweep_after, so the tester's own
%% collections are counted from erlang:trace(P, true, [garbage_collection]) events (gc_start
%% on R10B and R13B, gc_minor_start / gc_major_start on OTP 25), in one extra, untimed run
%% after the timed ones. The trace messages go to a tracer process's heap, not the tester's,
%% and so do the pass markers (an atom sent after each pass, which allocates nothing on the
%% tester): the tester receives the counts only after its last pass, so counting leaves its
%% heap as in the timed runs.
%%
%% Faults. The OS process's minor faults per pass (field 10 of /proc/self/stat, every thread
%% together), read by a meter process at the end of each pass of the timed runs (and once
%% before the first): the tester sends it the pass's name (an atom: no words on the tester's
%% heap) and waits for its answer (an atom too), so the reading falls between passes and the
%% tester's heap history is unchanged. The meter reads through a raw file, which every one of
%% the three VMs has; its own heap is sized and warmed before the first pass, so its reads
%% take no faults of their own.
%%
%% Usage: erl -noshell -pa DIR -run eras_ep main VM L N REPEATS OUT [VARIANT]
%% (VM is the label written in the rows; OUT a file, rows appended after a header if new).
%% VARIANT, one variable changed at a time (default base):
%%   hot_key      the lookup pass reads key 1 N times instead of keys 1..N (the source's
%%                temperature: one object in cache instead of N)
%%   heap_W       the tester is spawned with {min_heap_size, W} words (W a number): a heap
%%                that holds the results, so lookups and replies land on it, not in fragments
%%   rsbcmt_P     the emulator runs with the eheap allocator's rsbcmt at P % (+MHrsbcmt P, given
%%                by the launcher, not by this module): a heap shrunk below sbct moves into a
%%                multiblock carrier when its carrier would be P % slack, freeing the whole
%%                single-block carrier for the next collection's heap
-module(eras_ep).
-export([main/1, tester/4, server/1, tracer/1, meter/1]).
%% Shared with eras_trace.erl (run/4: its untraced runs are these timed ones), eras_ets.erl and
%% eras_price.erl (the loops, priced).
-export([run/4, median/1, fmt/1, minflt/0, call_loop/2, lookup_loop/3]).
%% OTP 25 deprecates now/0; the seed's era had no other clock, and older compilers ignore this
-compile({nowarn_deprecated_function, [{erlang, now, 0}]}).

main([Vm, Ls, Ns, Rs, Out]) -> main([Vm, Ls, Ns, Rs, Out, "base"]);
main([Vm, Ls, Ns, Rs, Out, Variant]) ->
    L = list_to_integer(Ls), N = list_to_integer(Ns), R = list_to_integer(Rs),
    V = variant(Variant),
    Timed = [run(L, N, V, false) || _ <- lists:seq(1, R)],
    Traced = run(L, N, V, true),
    Rows = rows(Vm, Variant, L, N, R, Timed, Traced),
    ok = file:write_file(Out, [header(Out), Rows], [append]),
    halt(0);
main(Args) ->
    io:format("usage: eras_ep main VM L N REPEATS OUT [base|hot_key|heap_W|rsbcmt_P] (got ~p)~n", [Args]),
    halt(2).

%% {KeyMode, SpawnOpts}
variant("base") -> {keys, []};
variant("hot_key") -> {hot, []};
variant("heap_" ++ W) -> {keys, [{min_heap_size, list_to_integer(W)}]};
variant("rsbcmt_" ++ P) ->
    case catch list_to_integer(P) of
        N when is_integer(N), N >= 0, N =< 100 -> {keys, []};
        _ -> unknown("rsbcmt_" ++ P)
    end;
variant(Other) -> unknown(Other).

unknown(V) -> io:format("eras_ep: unknown variant ~s (base, hot_key, heap_W, rsbcmt_P with P 0..100)~n", [V]), halt(2).

tests() -> [proc1, proc2, proc3, ets_insert, ets_overwrite, ets_lookup, empty].

%% One fresh tester; returns [{Test, Us, AllGcs, TesterGcs, ServerGcs, {Faults, Carriers}}]
%% ({na, na} in the traced run, which has no meter).
run(L, N, {Keys, Opts}, Traced) ->
    Tracer = case Traced of
                 true -> Delivered = has_trace_delivered(),
                         {spawn(?MODULE, tracer, [Delivered]), Delivered};
                 false -> {meter, spawn_opt(?MODULE, meter, [[]], [{min_heap_size, 4096}])}
             end,
    P = spawn_opt(?MODULE, tester, [self(), L, {N, Keys}, Tracer], Opts),
    tell(Tracer, P),
    receive {P, Result} -> faults(Result, finish(Tracer)) end.

%% Each pass's faults and carriers: its reading less the one before it.
faults(Result, none) -> [{T, Us, A, M, S, {na, na}} || {T, Us, A, M, S} <- Result];
faults(Result, [{start, R0} | Rs]) -> faults(Result, Rs, R0).
faults([{T, Us, A, M, S} | Result], [{T, {F, C} = R} | Rs], {F0, C0}) ->
    [{T, Us, A, M, S, {F - F0, C - C0}} | faults(Result, Rs, R)];
faults([], [], _R0) -> [].

%% Ends the run's helper: the meter's readings, or none when the tracer was stopped.
finish({meter, M}) -> M ! {take, self()}, receive {M, Rs} -> Rs end;
finish(Tracer) -> stop(Tracer), none.

%% The meter: told its tester, then a reading per pass name, answered with marked; {take,
%% From} ends it.
meter([]) ->
    _ = reading(),
    receive {tester, P} -> meter(P, []) end.
meter(P, Rs) ->
    receive
        {take, From} -> From ! {self(), lists:reverse(Rs)};
        Test when is_atom(Test) -> R = reading(), P ! marked, meter(P, [{Test, R} | Rs])
    end.

reading() -> {minflt(), mseg_creates()}.

%% The segments the VM's mseg allocators have mapped (mseg_create calls, every instance):
%% the carriers whose mapping a collection pays for.
mseg_creates() -> creates(erlang:system_info({allocator, mseg_alloc})).

creates({mseg_create, G, N}) when is_integer(G), is_integer(N) -> G * 1000000000 + N;
creates(T) when is_tuple(T) -> creates(tuple_to_list(T));
creates(L) when is_list(L) -> lists:foldl(fun(X, Acc) -> Acc + creates(X) end, 0, L);
creates(_) -> 0.

minflt() ->
    {ok, Fd} = file:open("/proc/self/stat", [read, raw]),
    {ok, Stat} = file:read(Fd, 4096),
    ok = file:close(Fd),
    %% the name in parentheses may hold spaces or parentheses: the fields after the last ')'
    %% start at the third (state), so minflt, the tenth, is their eighth
    After = lists:reverse(lists:takewhile(fun(C) -> C =/= $) end, lists:reverse(Stat))),
    list_to_integer(lists:nth(8, string:tokens(After, " "))).

tell({meter, M}, P) -> M ! {tester, P};
tell({T, _}, P) -> T ! {tester, P}.

stop({T, _}) -> T ! stop.

%% Asked outside the tester: on R10B the call fails, and the caught error would be built on
%% the heap of the process that asked.
has_trace_delivered() ->
    case catch erlang:trace_delivered(self()) of
        Ref when is_reference(Ref) -> receive {trace_delivered, _, Ref} -> true end;
        _ -> false
    end.

tester(Parent, L, {N, Keys}, Tracer) ->
    Data = lists:seq(1, L),
    S = spawn(?MODULE, server, [Data]),
    trace_on(Tracer, [self(), S]),
    T = ets:new(eras_ep, [set]),
    _ = start(Tracer),
    Rows = [pass(Test, Keys, N, S, T, Data, Tracer) || Test <- tests()],
    Counts = take(Tracer),
    S ! stop,
    ets:delete(T),
    Parent ! {self(), [{Test, Us, All, {count(self(), C), words(self(), C)}, count(S, C)} || {{Test, Us, All}, {Test, C}} <- zip(Rows, Counts)]}.

zip([A | As], [B | Bs]) -> [{A, B} | zip(As, Bs)];
zip([], []) -> [].


trace_on({meter, _}, _) -> ok;
trace_on({Tracer, _}, Pids) ->
    lists:foreach(fun(P) -> erlang:trace(P, true, [garbage_collection, {tracer, Tracer}]) end, Pids).

pass(Test, Keys, N, S, T, Data, Tracer) ->
    {G0, _, _} = statistics(garbage_collection),
    T0 = erlang:now(),
    body(Test, Keys, N, S, T, Data),
    T1 = erlang:now(),
    {G1, _, _} = statistics(garbage_collection),
    mark(Tracer, Test),
    {Test, timer:now_diff(T1, T0), G1 - G0}.

body(proc1, _K, N, S, _T, _D) -> call_loop(S, N);
body(proc2, _K, N, S, _T, _D) -> call_loop(S, N);
body(proc3, _K, N, S, _T, _D) -> call_loop(S, N);
body(ets_insert, _K, N, _S, T, D) -> insert_loop(T, 1, N, D);
body(ets_overwrite, _K, N, _S, T, D) -> insert_loop(T, 1, N, D);
body(ets_lookup, keys, N, _S, T, _D) -> lookup_loop(T, 1, N);
body(ets_lookup, hot, N, _S, T, _D) -> hot_loop(T, N);
body(empty, _K, N, _S, _T, _D) -> empty_loop(N).

%% ---- the loops -------------------------------------------------------------------------

server(Data) ->
    receive
        {From, get} -> From ! {self(), Data}, server(Data);
        stop -> ok
    end.

call_loop(_S, 0) -> ok;
call_loop(S, N) ->
    S ! {self(), get},
    receive {S, _Data} -> call_loop(S, N - 1) end.

insert_loop(_T, I, N, _Data) when I > N -> ok;
insert_loop(T, I, N, Data) -> ets:insert(T, {I, Data}), insert_loop(T, I + 1, N, Data).

lookup_loop(_T, I, N) when I > N -> ok;
lookup_loop(T, I, N) -> ets:lookup(T, I), lookup_loop(T, I + 1, N).

hot_loop(_T, 0) -> ok;
hot_loop(T, N) -> ets:lookup(T, 1), hot_loop(T, N - 1).

empty_loop(0) -> ok;
empty_loop(N) -> empty_loop(N - 1).

%% ---- GC events -------------------------------------------------------------------------

%% Counts GC starts per process, and the words each collection copied (below); a pass's name
%% (an atom) closes that pass's counts.
tracer(Delivered) ->
    receive {tester, P} -> tracer({P, Delivered}, [], []) end.
tracer(Tester, Counts, Passes) ->
    receive
        {trace, P, Ev, Info} when Ev == gc_start; Ev == gc_minor_start; Ev == gc_major_start;
                                  Ev == gc_end; Ev == gc_minor_end; Ev == gc_major_end ->
            tracer(Tester, bump(P, Ev, Info, Counts), Passes);
        {take, From} ->
            From ! {self(), lists:reverse(Passes)},
            tracer(Tester, [], []);
        stop -> ok;
        Test when is_atom(Test) ->
            %% The pass's GC events may still be on their way (see mark/2): they all are
            %% generated before the marker, so once delivered they precede any later message.
            Counts1 = close(Tester, Counts),
            tracer(Tester, carry(Counts1), [{Test, Counts1} | Passes]);
        _Other -> tracer(Tester, Counts, Passes)
    end.

close({_P, false}, Counts) -> Counts;
close({P, true}, Counts) ->
    Ref = erlang:trace_delivered(all),
    C = await_delivered(Ref, Counts),
    P ! marked,
    C.

%% Counts the GC events that arrive before the delivery notice.
await_delivered(Ref, Counts) ->
    receive
        {trace_delivered, all, Ref} -> Counts;
        {trace, P, Ev, Info} when Ev == gc_start; Ev == gc_minor_start; Ev == gc_major_start;
                                  Ev == gc_end; Ev == gc_minor_end; Ev == gc_major_end ->
            await_delivered(Ref, bump(P, Ev, Info, Counts))
    end.

%% R10B delivers a trace message as its event happens, so its GC events reach the tracer
%% before the marker that follows them. A VM with erlang:trace_delivered (R13B, OTP 25) may
%% deliver them later (under load a lookup pass's last GC was counted in the empty pass): the
%% tester waits there until the tracer has had every event generated before the marker. The
%% wait is one atom message, which takes no words on the tester's heap, and the tester runs
%% no code of the benchmark meanwhile, so its heap history is that of the timed runs.
%% The meter's reading before the first pass.
start({meter, _} = Meter) -> mark(Meter, start);
start(_Tracer) -> ok.

mark({meter, M}, Test) -> M ! Test, receive marked -> Test end;
mark({Tracer, false}, Test) -> Tracer ! Test;
mark({Tracer, true}, Test) -> Tracer ! Test, receive marked -> Test end.

%% Counts: [{Pid, GCs, Words, OldAtStart, FragWords}]. A collection's words copied: the young
%% heap it leaves (heap_size at its end: what survived in the young generation, or everything
%% after a fullsweep) and what it promoted (old_heap_size's growth from its start to its end).
%% FragWords: the heap fragments' words at each start (mbuf_size: R13B01 collects after every
%% BIF that left one, the lookup's result, its words then copied out of it and swept again).
bump(P, Ev, Info, Counts) ->
    {G, W, Old0, F} = case lists:keysearch(P, 1, Counts) of
                          {value, {P, G0, W0, O0, F0}} -> {G0, W0, O0, F0};
                          false -> {0, 0, 0, 0}
                      end,
    New = case start_event(Ev) of
              true -> {P, G + 1, W, info(old_heap_size, Info), F + info(mbuf_size, Info)};
              false -> {P, G, W + info(heap_size, Info) + pos(info(old_heap_size, Info) - Old0), Old0, F}
          end,
    [New | lists:keydelete(P, 1, Counts)].

start_event(Ev) -> lists:member(Ev, [gc_start, gc_minor_start, gc_major_start]).

%% A pass's counts start at 0; a collection open at its end keeps its start.
carry(Counts) -> [{P, 0, 0, O, 0} || {P, _, _, O, _} <- Counts].

pos(X) when X > 0 -> X;
pos(_) -> 0.

info(Key, Info) ->
    case lists:keysearch(Key, 1, Info) of
        {value, {Key, V}} -> V;
        false -> 0
    end.

%% (eras_trace.erl's tracer answers with {Pid, GCs} and counts no words.)
count(_P, none) -> na;
count(P, Counts) ->
    case lists:keysearch(P, 1, Counts) of
        {value, T} -> element(2, T);
        false -> 0
    end.

%% {words copied, fragment words}
words(_P, none) -> {na, na};
words(P, Counts) ->
    case lists:keysearch(P, 1, Counts) of
        {value, {P, _, W, _, F}} -> {W, F};
        {value, _} -> {na, na};
        false -> {0, 0}
    end.

%% Every pass's events were delivered before its marker was acknowledged (mark/2); asking
%% erlang:trace_delivered from the tester instead put a message on its heap per pass and moved
%% OTP 25's proc counts by a third.
take({meter, _}) -> [{Test, none} || Test <- tests()];
take({Tracer, _}) ->
    Tracer ! {take, self()},
    receive {Tracer, Passes} -> Passes end.

%% ---- output ----------------------------------------------------------------------------

header(Out) ->
    case file:read_file_info(Out) of
        {ok, _} -> [];
        _ ->
            ["# vm_version: erts ", erlang:system_info(version), "\n",
             "# system_version: ", chomp(erlang:system_info(system_version)), "\n",
             "# wordsize: ", integer_to_list(erlang:system_info(wordsize)), "\n",
             "# gcs: the tester's own collections per pass (erlang:trace garbage_collection events, "
             "one extra untimed run); all_gcs: statistics(garbage_collection) over the pass, every "
             "process, median of the timed runs; faults: the OS process's minor faults over the pass "
             "(/proc/self/stat, read between passes by a meter process), median of the timed runs; "
             "gc_words: the words the tester's collections copied in the traced run (each gc_end's "
             "heap_size, and its old_heap_size's growth since the gc_start); carriers: the segments "
             "the VM's mseg allocators mapped over the pass (erlang:system_info({allocator, mseg_alloc}) "
             "mseg_create calls, read by the meter), median of the timed runs; frag_words: the words of heap "
             "fragments the tester's collections found at their start (gc_start's mbuf_size), the traced run\n",
             "vm,variant,benchmark,test,payload_len,iterations,repeats,median_us,min_us,max_us,ops_per_s,"
             "ratio,gcs,server_gcs,all_gcs,faults,gc_words,carriers,frag_words\n"]
    end.

chomp(S) -> [C || C <- S, C =/= $\n].

rows(Vm, Variant, L, N, R, Timed, Traced) ->
    %% the seed's ratio, per timed run: lookup / median of that run's three proc passes
    Ratios = [us(ets_lookup, Run) / median([us(P, Run) || P <- [proc1, proc2, proc3]]) || Run <- Timed],
    [begin
         Us = [us(Test, Run) || Run <- Timed],
         All = [all(Test, Run) || Run <- Timed],
         {value, {Test, _, _, {Mine, {Words, Frags}}, Server, _}} = lists:keysearch(Test, 1, Traced),
         Faults = [faults_of(Test, Run) || Run <- Timed],
         Carriers = [carriers_of(Test, Run) || Run <- Timed],
         Med = median(Us),
         Ratio = case Test of ets_lookup -> fmt(median(Ratios)); _ -> "" end,
         io_lib:format("~s,~s,eptest,~w,~w,~w,~w,~s,~s,~s,~s,~s,~w,~w,~w,~w,~w,~w,~w~n",
                       [Vm, Variant, Test, L, N, R, fmt(Med), fmt(lists:min(Us)), fmt(lists:max(Us)),
                        ops(N, Med), Ratio, Mine, Server, round(median(All)), round(median(Faults)), Words,
                        round(median(Carriers)), Frags])
     end || Test <- tests()].

us(Test, Run) -> {value, {Test, Us, _, _, _, _}} = lists:keysearch(Test, 1, Run), Us.
all(Test, Run) -> {value, {Test, _, G, _, _, _}} = lists:keysearch(Test, 1, Run), G.
faults_of(Test, Run) -> {value, {Test, _, _, _, _, {F, _}}} = lists:keysearch(Test, 1, Run), F.
carriers_of(Test, Run) -> {value, {Test, _, _, _, _, {_, C}}} = lists:keysearch(Test, 1, Run), C.

ops(_N, Us) when Us == 0 -> "";
ops(N, Us) -> fmt(N * 1000000 / Us).

median(Xs) ->
    S = lists:sort(Xs), K = length(S),
    case K rem 2 of
        1 -> lists:nth(K div 2 + 1, S);
        0 -> (lists:nth(K div 2, S) + lists:nth(K div 2 + 1, S)) / 2
    end.

fmt(X) when is_integer(X) -> integer_to_list(X);
fmt(X) -> io_lib:format("~.4f", [X]).
