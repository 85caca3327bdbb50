%% unitcost - the VM's side of experiments/unitcost.c: each unit cost of the model measured on
%% the installed VM, one operation at a time, driven over standard input by the C binary (it
%% starts this module itself with `unitcost --vm`, or `--vm-overhead` in eptest, crossover,
%% breakdown and termcopy explain --vm).
%%
%% Commands, one a line; each answer ends with a line "end":
%%   point UNIT SHAPE L R   R timed operations of UNIT on eptest:payload(SHAPE, L) (SHAPE nil:
%%                          the payload []), each in its own os:perf_counter region; answers
%%                          "ns NS faults F": the median ns of one operation and the minor
%%                          faults of the OS process per operation (over the loop, the
%%                          untimed work after each included). UNIT is
%%                          size_object   erts_debug:flat_size(Data) (size_object)
%%                          copy_struct   ets:insert(T, {1, Data}) of a key not in the set
%%                                        (db_store_term: size_object + copy_struct), deleted
%%                                        after each, untimed
%%                          copy_shallow  ets:lookup(T, 1) of {1, Data} in a process whose
%%                                        min_heap_size holds every result (no GC in the loop),
%%                                        after two untimed rounds of lookups and a collection
%%                                        each: the heap erts gives back may be one those
%%                                        lookups wrote (warm) or a new carrier (fresh)
%%                          copy_shallow_fresh  the same lookups without those rounds: every
%%                                        result goes to heap words no lookup wrote before
%%                                        (the C side reads the temperature from the faults)
%%                          gc_copy       erlang:garbage_collect() with Data live (a fullsweep)
%%                          encode        term_to_binary(Data, [{minor_version, 2}])
%%                          decode        binary_to_term of those bytes
%%   fixed N R              the fixed costs, per operation, of N-operation loops with the
%%                          payload [] (median of R loops): answers "UNIT NS" lines for
%%                          round_trip_fixed (call to a server replying {self(), []}),
%%                          lookup_fixed (ets:lookup of {I, []}, I = 1..N), insert_fixed
%%                          (ets:insert of {I, []}, fresh keys) and pt_get_fixed
%%                          (persistent_term:get of a key holding []); the loops are
%%                          eptest.erl's own
%%   account PAYLOAD L N    one point of the time account (account.erl): eptest's loops on
%%                          PAYLOAD (a shape, or ext:FILE: the term of the external format in
%%                          FILE) of length L, N operations a pass, untraced and traced, then the
%%                          unit prices calibrated for each loop's context (the round trip's from
%%                          proc2's GCs, the lookup's from its own); answers a line per pass
%%                          "pass TEST cpu_us C wall_us W traced_us T faults F gcs G carriers M
%%                          unmapped D dirty_carriers I dirty_cpu_us Z minor N major J dirty Y
%%                          copied X moved V mbuf B gc_us U heap H" (faults, gcs, carriers,
%%                          unmapped, dirty_carriers, dirty_cpu_us from the untraced run: the OS
%%                          process's minor faults, erlang:statistics GCs, mseg_alloc's creates
%%                          and destroys, the creates of mseg instance 0, the dirty schedulers',
%%                          and those schedulers' CPU time (of cpu_us); the rest from the traced
%%                          run's GC events, summed over tester and server), a line "payload words W" (flat_size), and a
%%                          line per price "price LOOP UNIT cpu_ns C wall_ns T faults F gcs G
%%                          words W ops O" (LOOP rt or lookup); needs the cpuclock NIF (started with
%%                          -extra --nif DIR)
%%   quit
%% The per-word rates are made on the C side: (ns of Data - ns of []) / words, so the BIF call,
%% the timer and the hash and lock cost of the table drop out.
-module(unitcost).
-export([main/0]).

main() ->
    ok = io:setopts(standard_io, [binary]),
    case init:get_plain_arguments() of
        ["--nif", Dir] -> _ = cpuclock:load(Dir), ok; % without it, `account` says why
        _ -> ok
    end,
    loop().

loop() ->
    case io:get_line(standard_io, "") of
        eof -> halt(0);
        Line ->
            Words = string:lexemes(string:trim(binary_to_list(Line)), " "),
            case command(Words) of
                stop -> halt(0);
                Answer -> io:put_chars([Answer, "end\n"]), loop()
            end
    end.

command(["quit"]) -> stop;
command(["point", Unit, Shape, L, R]) ->
    {Ns, Faults} = worker(list_to_atom(Unit), shape(Shape), list_to_integer(L), list_to_integer(R)),
    io_lib:format("ns ~.1f faults ~.2f~n", [float(eptest:median(Ns)), Faults / length(Ns)]);
command(["fixed", N, R]) ->
    fixed(list_to_integer(N), list_to_integer(R));
command(["account", Payload, L, N]) ->
    case cpuclock:loaded() of
        true -> account_point(payload_spec(Payload), list_to_integer(L), list_to_integer(N));
        false -> "error account needs the cpuclock NIF (build experiments/beam/cpuclock.c: erlang-dev)\n"
    end;
command(Other) ->
    io_lib:format("error unknown command ~p~n", [Other]).

shape("nil") -> nil;
shape(S) ->
    A = list_to_atom(S),
    true = lists:member(A, eptest:shapes()),
    A.

payload_spec("ext:" ++ File) ->
    {ok, Bin} = file:read_file(File),
    {ext, Bin};
payload_spec(S) -> shape(S).

data(nil, _L) -> [];
data(Shape, L) -> eptest:payload(Shape, L).

%% Each point in a fresh process that builds its own Data, as eptest's tester does.
worker(Unit, Shape, L, R) ->
    Parent = self(),
    Opts = case Unit of
               _ when Unit =:= copy_shallow; Unit =:= copy_shallow_fresh ->
                   %% Data, R + 2 results [{1, Data}] and the samples, with room to spare.
                   W = erts_debug:flat_size(data(Shape, L)),
                   [{min_heap_size, (R + 3) * (W + 5) + 10000}];
               _ -> []
           end,
    %% A fullsweep after building lays Data out as the collector's copy does: the model's Data
    %% has been through the same collection (unitcost.c), so both walk the same layout.
    Body = fun() -> D = data(Shape, L), erlang:garbage_collect(), Parent ! {self(), run(Unit, D, R)} end,
    {Pid, Ref} = spawn_opt(Body, [monitor | Opts]),
    receive
        {Pid, Ns} -> erlang:demonitor(Ref, [flush]), Ns;
        {'DOWN', Ref, process, Pid, Why} -> error({worker_died, Why})
    end.

-define(WARMUP, 2).

%% R samples of F() after ?WARMUP untimed ones; After() runs untimed after each. Returns the
%% samples and the minor faults of the OS process over the R operations and their After()s:
%% read around the loop, not each operation, because reading them is a file read whose
%% wake-up and cold caches would land in the next sample.
samples(F, After, R) ->
    [begin F(), After() end || _ <- lists:seq(1, ?WARMUP)],
    F0 = eptest:minflt(),
    Ns = [begin
              T0 = os:perf_counter(nanosecond),
              _ = F(),
              T1 = os:perf_counter(nanosecond),
              After(),
              T1 - T0
          end || _ <- lists:seq(1, R)],
    {Ns, eptest:minflt() - F0}.

none() -> ok.

run(size_object, Data, R) ->
    samples(fun() -> erts_debug:flat_size(Data) end, fun none/0, R);
run(copy_struct, Data, R) ->
    T = ets:new(unitcost, [set]),
    samples(fun() -> ets:insert(T, {1, Data}) end, fun() -> ets:delete(T, 1) end, R);
run(copy_shallow, Data, R) ->
    T = ets:new(unitcost, [set]),
    true = ets:insert(T, {1, Data}),
    %% Two rounds of lookups then a collection, untimed: the heap's pages are touched and the
    %% young heap alternates between two segments, resident where erts's segment cache gives
    %% the same one back (the faults say whether it did).
    [begin [ets:lookup(T, 1) || _ <- lists:seq(1, R)], erlang:garbage_collect() end || _ <- [1, 2]],
    lookups(T, R);
run(copy_shallow_fresh, Data, R) ->
    T = ets:new(unitcost, [set]),
    true = ets:insert(T, {1, Data}),
    lookups(T, R);
run(gc_copy, Data, R) ->
    Ns = samples(fun() -> erlang:garbage_collect() end, fun none/0, R),
    _ = erts_debug:flat_size(Data), % Data stays live across every collection
    Ns;
run(encode, Data, R) ->
    samples(fun() -> term_to_binary(Data, [{minor_version, 2}]) end, fun() -> erlang:garbage_collect() end, R);
run(decode, Data, R) ->
    Bin = term_to_binary(Data, [{minor_version, 2}]),
    samples(fun() -> binary_to_term(Bin) end, fun() -> erlang:garbage_collect() end, R).

%% R timed lookups of {1, Data}, none of which may collect (the heap holds them all).
lookups(T, R) ->
    {minor_gcs, G0} = lists:keyfind(minor_gcs, 1, element(2, process_info(self(), garbage_collection))),
    Ns = samples(fun() -> ets:lookup(T, 1) end, fun none/0, R),
    {minor_gcs, G0} = lists:keyfind(minor_gcs, 1, element(2, process_info(self(), garbage_collection))),
    Ns.

%% ---- the time account ---------------------------------------------------------------------

%% The traced tester first (the calibrations' context: its heaps and GCs), then the plain
%% testers, the first before the calibrations, the others after each loop's (account.erl: a
%% slow spell of the machine then falls on the loop's testers as it does on the prices).
account_point(Payload, L, N) ->
    Traced = account:traced(Payload, L, N),
    W = erts_debug:flat_size(account:payload(Payload, L)),
    Ctx = fun(Test) ->
                  G = account:traced_gcs(Traced, Test),
                  Gcs = max(1, maps:get(minor, G) + maps:get(major, G)),
                  #{n => N, heap => max(233, maps:get(heap_max, G)), live => maps:get(copied, G) div Gcs,
                    msgs => moved_per_gc(maps:get(moved, G), Gcs, W)}
          end,
    Calibrated = [{rt, proc2}, {lookup, ets_lookup}],
    Extra = account:testers() - 1 - length(Calibrated),
    {Plains, Prices} = lists:foldl(fun({Loop, Test}, {Ps, Acc}) ->
                                           Pr = [{Loop, P} || P <- account:prices(Payload, L, (Ctx(Test))#{loop => Loop})],
                                           {[account:plain(Payload, L, N) | Ps], Acc ++ Pr}
                                   end, {[account:plain(Payload, L, N)], []}, Calibrated),
    Loops = account:loops(Plains ++ [account:plain(Payload, L, N) || _ <- lists:seq(1, Extra)], Traced),
    [io_lib:format("payload words ~b~n", [W])]
        ++ [io_lib:format("pass ~s cpu_us ~.1f cpu_lo_us ~.1f cpu_hi_us ~.1f testers ~b wall_us ~.1f traced_us ~.1f faults ~b gcs ~b carriers ~b unmapped ~b"
                          " dirty_carriers ~b dirty_cpu_us ~.1f minor ~b major ~b dirty ~b copied ~b moved ~b mbuf ~b"
                          " gc_us ~.1f heap ~b sleeps ~b~n",
                          [T, maps:get(cpu_ns, C) / 1000, maps:get(cpu_lo_ns, C) / 1000, maps:get(cpu_hi_ns, C) / 1000, account:testers(), float(Us), float(TUs), maps:get(faults, C),
                           maps:get(gcs, C), maps:get(mseg_create, C), maps:get(mseg_destroy, C),
                           proplists:get_value("i0_mseg_create", maps:get(alloc, C), 0), maps:get(dirty_ns, C) / 1000,
                           maps:get(minor, G), maps:get(major, G), maps:get(dirty, G), maps:get(copied, G),
                           maps:get(moved, G), maps:get(mbuf, G), float(maps:get(gc_us, G)), maps:get(heap_max, G),
                           maps:get(sleeps, C)])
            || {T, Us, TUs, C, G} <- Loops]
        ++ [io_lib:format("price ~s ~s cpu_ns ~.1f wall_ns ~.1f faults ~.4f gcs ~.4f words ~b ops ~b sleeps ~.4f~n",
                          [Loop, U, float(Cpu), float(Wall), float(F), float(G), Words, Ops, float(S)])
            || {Loop, {U, Cpu, Wall, F, G, Words, Ops, S}} <- Prices].

%% Messages moved onto the heap per GC, one at least where the loop moved any (a loop whose
%% GCs move a message now and then still needs the move's price).
moved_per_gc(0, _Gcs, _W) -> 0;
moved_per_gc(Moved, Gcs, W) -> max(1, round(Moved / Gcs / (W + 3))).

%% ---- the fixed per-operation costs ------------------------------------------------------

fixed(N, R) ->
    Parent = self(),
    {Pid, Ref} = spawn_opt(fun() -> Parent ! {self(), fixed_body(N, R)} end, [monitor]),
    receive
        {Pid, Rows} ->
            erlang:demonitor(Ref, [flush]),
            [io_lib:format("~s ~.2f~n", [Unit, float(eptest:median(Us)) * 1000 / N]) || {Unit, Us} <- Rows];
        {'DOWN', Ref, process, Pid, Why} -> error({fixed_died, Why})
    end.

%% Each round runs eptest.erl's passes on the payload [] in a fresh tester (ets_insert first:
%% fresh keys), then the persistent_term loop; R rounds, the median of each.
fixed_body(N, R) ->
    Key = {?MODULE, fixed},
    persistent_term:put(Key, []),
    Rounds = [round_once(N, Key) || _ <- lists:seq(1, R)],
    persistent_term:erase(Key),
    [{U, [proplists:get_value(U, Round) || Round <- Rounds]}
     || U <- [round_trip_fixed, lookup_fixed, insert_fixed, pt_get_fixed]].

round_once(N, Key) ->
    Rows = eptest:tester({nil_payload(), 0, N, [], false}, [proc1, proc2, proc3, ets_insert, ets_lookup]),
    Us = fun(T) -> hd([U || {T1, U, _, _} <- Rows, T1 =:= T]) end,
    {PtUs, ok} = timer:tc(fun() -> pt_loop(Key, N) end),
    [{round_trip_fixed, eptest:median([Us(proc1), Us(proc2), Us(proc3)])},
     {lookup_fixed, Us(ets_lookup)}, {insert_fixed, Us(ets_insert)}, {pt_get_fixed, PtUs}].

%% eptest:payload({ext, Bin}, _) decodes a user's term: here the term [].
nil_payload() -> {ext, term_to_binary([])}.

pt_loop(_Key, 0) -> ok;
pt_loop(Key, N) -> _ = persistent_term:get(Key), pt_loop(Key, N - 1).
