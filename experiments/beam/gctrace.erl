%% gctrace - the garbage collections of the lookup loop (a process that looks up one large object again and again) on the real VM, for
%% setting beside the model's trajectory (build/*/experiments/heaptrace --csv -, and GC by GC
%% build/*/experiments/gctrace --csv -, compared by experiments/tracediff).
%%
%% A fresh process runs Lookups times `_ = ets:lookup(T, 1)` on a stored {1, lists:seq(1, Len)}
%% and drops each result. It is traced for garbage_collection and running events, and
%% mseg_alloc's call counters are read before and after. The loop itself sends nothing and
%% calls no other BIF: a per-lookup process_info or send would be one more BIF return that
%% can collect, and it changes the trajectory (it collects after every fragment).
%%
%% --rows: one CSV row per GC, with the lookup it happened in. The loop cannot say where it
%% is (see above), and neither can a tracer without perturbing it: call-tracing loop/2
%% (erlang:trace_pattern, `local`) builds the {M, F, Args} term on the traced process's own
%% heap, 8 words per lookup, and `--perturbation` shows what that does: at L = 1000 every
%% GC starts 8 words per lookup fuller, at L = 3000 the old heap grows to 28690 words instead of
%% 46422 from the second GC on (same GC counts, different trajectory). So the op index is
%% counted from the trajectory itself: the loop allocates nothing but each lookup's result,
%% W = flat_size({1, Data}) + 2 words (on the heap or in a fragment), so the words allocated
%% between the end of one GC and the start of the next, (heap_size_s - heap_size_e of the
%% previous GC) + (mbuf_size_s - its mbuf_size_e), are a whole number k of results and the
%% GC happened in lookup (previous op) + k. Before the first GC the process also holds what
%% the spawned fun put on its heap (13 words, < W), hence the floor there. A GC whose words
%% are not a whole number of results is counted in `# loop_unattributed` (none expected).
%% The traced process is traced for garbage_collection only, so the rows are the trajectory
%% of the event mode. A GC in the lookup's BIF return and a GC at the next schedule-in both
%% belong to the lookup whose result was the last allocation, as in the model's gctrace.
%% --perturbation: the loop untraced (erlang:statistics(garbage_collection) delta), traced
%% for GCs only, and traced for GCs and loop/2 calls; the GC counts and every GC whose fields
%% differ between the two traced runs.
%%
%% --tester SHAPE --rows: eptest's own tester and server instead of the loop, from spawn to
%% exit through every pass (eptest:tester/2 with the passes of eptest.erl's run, --lookups N
%% calls per pass, --len L of SHAPE), traced from spawn (erlang:trace(new_processes, ...))
%% for garbage_collection, 'receive' and timestamp events (--running adds running, which is
%% not the default: erl_trace.c trace_sched_aux builds each in/out event's {M, F, A} with
%% HAlloc(p, 4) on the traced process's own heap, 4 words per schedule event that change the
%% trajectory). 'receive' and garbage_collection events build nothing on the tracee's heap
%% (trace_receive sends the message as it is; trace_gc builds its list in a temporary
%% buffer), but each 'receive' event of a reply copies Data to the collector, whose fragments
%% come from the tester's scheduler's eheap_alloc: the allocator counters of the proc passes
%% include them. One row per GC: proc (tester | server), phase (spawn until the first pass;
%% PASS from the meter's reply that opens it, after_PASS from the one that closes it: the
%% tester's own receive events, see eptest:mark/2), op, seq (per process), kind, time_us (from
%% the first event), then the fields at start and end as --rows. The op: in proc passes the
%% tester's replies received + 1 and the server's requests received (the loops' own receive
%% events); in ets_lookup and ets_insert/overwrite the words allocated since the previous GC
%% over one operation's (its result; the 3-word {I, Data}), counted from 0 at the pass's
%% mark: inferred, since the loop cannot expose its counter without a call that changes its
%% reductions or heap; other phases 0. Metadata: the passes' counters (eptest's meter, read
%% before and after each pass: gcs, faults, mseg_create, ... and per allocator instance) as
%% `# pass_TEST_KEY: value`. --nif DIR: the events go to the gcnif tracer module loaded from
%% DIR (gcnif.c) instead of a tracer process: erts calls it in the traced process, so no
%% process is woken by an event (with a tracer process, every GC and receive event makes it
%% runnable beside the tester and the server, and it collects in the passes' windows too);
%% the same rows, the monotonic clock's microseconds as time_us; not with --running.
%% --ext-file FILE --rows: --tester's run with Data binary_to_term of the external-format
%% bytes in FILE instead of a shape's payload, read as eptest.erl --ext-file reads the term
%% termcopy explain --vm brings (file:read_file: a heap binary up to 64 bytes, else a refc
%% binary, which the tester's spawn copies as it is); the shape in the metadata is `term`.
%%
%% Usage: erl -noshell -pa DIR -s gctrace main -extra [--len L] [--lookups N]
%%            [--summary | --rows [--csv FILE|-] [--flags F] | --perturbation]
%%        erl -noshell -pa DIR -s gctrace main -extra (--tester SHAPE | --ext-file FILE) --rows [--len L]
%%            [--lookups N] [--csv FILE|-] [--flags F] [--running | --nif NIFDIR]
%% Output, CSV lines on stdout (without a mode flag, every event first):
%%   gc,Kind,heap_size,heap_block_size,old_heap_size,old_heap_block_size,mbuf_size,recent_size
%%       Kind: minor_start, minor_end, major_start, major_end (the trace's words)
%%   sched,in|out,M:F/A
%%   summary,Len,Lookups,Gcs,Minor,Major,MsegCreate,MsegAlloc,MsegCacheHits,MsegRealloc,
%%           MsegCreateResize,MsegDestroy
%%       Gcs counts collections as erlang:statistics(garbage_collection) does (a minor that
%%       falls through to a major is one); the mseg_alloc counts are deltas over the loop,
%%       summed over its instances (other processes add a few).
%% --rows (the model's experiments/gctrace writes the same): '#' metadata (eptest:metadata,
%% then the loop's counters as `# loop_KEY: value`), the header ?ROW_COLUMNS and one row per
%% GC: seq (1..), op (the lookup, 1..Lookups), kind (minor | major: a minor that falls through
%% to a major is one major row, with the minor start's fields and the major end's), and the
%% trace's fields at start (_s) and end (_e). The loop keys: gcs, minor, major, len, lookups;
%% carriers_mapped (mseg_create), cache_hits, eheap_mseg_alloc, eheap_mseg_dealloc,
%% eheap_mseg_realloc (eheap_alloc's calls into mseg_alloc, all instances), eheap_carriers
%% (eheap_alloc's mbc + sbc carriers at the end minus at the start) and minor_faults (the OS
%% process, /proc/self/stat field 10): deltas over the loop; the VM's other processes add a few.
%% Then per allocator instance N (0: the dirty schedulers' and the aux thread's, 1..: the
%% schedulers'): i<N>_eheap_mseg_alloc, i<N>_eheap_mseg_dealloc, i<N>_eheap_mseg_realloc,
%% i<N>_eheap_carriers, the same four for ets_alloc and temp_alloc (i<N>_ets_...,
%% i<N>_temp_...), and for mseg_alloc's instance N i<N>_mseg_create, i<N>_mseg_destroy,
%% i<N>_cache_hits (deltas) and i<N>_cached_segments (at the end).
-module(gctrace).
-export([main/0]).

-define(FIELDS, [heap_size, heap_block_size, old_heap_size, old_heap_block_size, mbuf_size,
                 stack_size, recent_size]).

main() ->
    Args = init:get_plain_arguments(),
    Len = arg("--len", Args, 10000),
    N = arg("--lookups", Args, 20),
    Tester = case {sarg("--tester", Args, none), sarg("--ext-file", Args, none)} of
                 {none, none} -> none;
                 {none, File} -> {ext, ext_file(File)};
                 {Sh, none} ->
                     case [S || S <- eptest:shapes(), atom_to_list(S) =:= Sh] of
                         [S] -> S;
                         [] -> io:format(standard_error, "gctrace: bad --tester shape '~s'~n", [Sh]), halt(2)
                     end;
                 _ -> io:format(standard_error, "gctrace: --tester SHAPE and --ext-file exclude each other~n", []), halt(2)
             end,
    case {lists:member("--rows", Args), lists:member("--perturbation", Args)} of
        {true, _} when Tester =/= none ->
            tester_rows(Tester, Len, N, sarg("--csv", Args, "-"), sarg("--flags", Args, flags()),
                        lists:member("--running", Args), sarg("--nif", Args, none));
        {true, _} -> rows(Len, N, sarg("--csv", Args, "-"), sarg("--flags", Args, flags()));
        {_, true} -> perturbation(Len, N);
        _ -> events(Len, N, Args)
    end,
    halt().

events(Len, N, Args) ->
    {T, _} = table(Len),
    Before = mseg_counts(),
    Events = run(T, N, [garbage_collection, running]),
    After = mseg_counts(),
    {Minor, Major} = gcs([K || {gc, K, _} <- Events], 0, 0),
    lists:member("--summary", Args) orelse lists:foreach(fun print/1, Events),
    io:format("summary,~b,~b,~b,~b,~b,~s~n",
              [Len, N, Minor + Major, Minor, Major,
               lists:join(",", [integer_to_list(A - B) || {A, B} <- lists:zip(After, Before)])]).

table(Len) ->
    T = ets:new(t, [set, public]),
    true = ets:insert(T, {1, lists:seq(1, Len)}),
    {T, Len}.

%% Runs the loop in a fresh process traced with Flags (none: untraced) to this process;
%% returns the trace events in order. With `call` in Flags, loop/2 is call-traced.
run(T, N, Flags) ->
    Self = self(),
    Pid = spawn(fun() -> receive go -> ok end, loop(T, N), Self ! done end),
    lists:member(call, Flags) andalso erlang:trace_pattern({?MODULE, loop, 2}, true, [local]),
    Flags =/= [] andalso erlang:trace(Pid, true, [{tracer, Self} | Flags]),
    Pid ! go,
    Events = collect([]),
    lists:member(call, Flags) andalso erlang:trace_pattern({?MODULE, loop, 2}, false, [local]),
    Events.

%% ---- --rows -----------------------------------------------------------------------------

rows(Len, N, File, Flags) ->
    {T, _} = table(Len),
    I0 = instance_counts(), M0 = mseg_counts(), E0 = eheap_counts(), F0 = eptest:minflt(),
    Events = run(T, N, [garbage_collection]),
    F1 = eptest:minflt(), E1 = eheap_counts(), M1 = mseg_counts(), I1 = instance_counts(),
    W = erts_debug:flat_size(hd(ets:lookup(T, 1))) + 2,
    {Rows, Unattributed} = ops(gc_rows(Events, []), W),
    [Create, _Alloc, Hits | _] = [A - B || {A, B} <- lists:zip(M1, M0)],
    [EA, ED, ER, EC] = [A - B || {A, B} <- lists:zip(E1, E0)],
    Minor = length([x || {_, _, minor, _, _} <- Rows]),
    Loop = [{"gcs", length(Rows)}, {"minor", Minor}, {"major", length(Rows) - Minor},
            {"len", Len}, {"lookups", N}, {"carriers_mapped", Create}, {"cache_hits", Hits},
            {"eheap_mseg_alloc", EA}, {"eheap_mseg_dealloc", ED}, {"eheap_mseg_realloc", ER},
            {"eheap_carriers", EC}, {"minor_faults", F1 - F0}, {"result_words", W},
            {"unattributed", Unattributed}]
        ++ [{K, case lists:suffix("cached_segments", K) of true -> V1; false -> V1 - V0 end}
            || {{K, V0}, {K, V1}} <- lists:zip(I0, I1)],
    Meta = eptest:metadata("gctrace --rows (the lookup loop's GCs on the real VM)", Flags)
        ++ [{"loop_" ++ K, integer_to_list(V)} || {K, V} <- Loop],
    eptest:write_file(File, Meta, row_header(),
                      [[integer_to_list(Seq), integer_to_list(Op), atom_to_list(Kind)
                        | [integer_to_list(V) || V <- S ++ E]]
                       || {Seq, Op, Kind, S, E} <- Rows]).

row_header() ->
    lists:join(",", ["seq", "op", "kind"] ++ [atom_to_list(F) ++ "_s" || F <- ?FIELDS]
                    ++ [atom_to_list(F) ++ "_e" || F <- ?FIELDS]).

%% GC events in trace order (other events skipped) -> [{Seq, 0, Kind, StartFields, EndFields}];
%% ops/2 fills in the op.
gc_rows([{gc, gc_minor_start, S}, {gc, gc_minor_end, _}, {gc, gc_major_start, _},
         {gc, gc_major_end, E} | Es], Acc) ->
    gc_rows(Es, [row(Acc, major, S, E) | Acc]);
gc_rows([{gc, gc_minor_start, S}, {gc, gc_minor_end, E} | Es], Acc) ->
    gc_rows(Es, [row(Acc, minor, S, E) | Acc]);
gc_rows([{gc, gc_major_start, S}, {gc, gc_major_end, E} | Es], Acc) ->
    gc_rows(Es, [row(Acc, major, S, E) | Acc]);
gc_rows([_ | Es], Acc) -> gc_rows(Es, Acc);
gc_rows([], Acc) -> lists:reverse(Acc).

%% The op of each row from the words allocated since the previous GC (the header says why).
ops(Rows, W) -> ops(Rows, W, {0, 0}, 0, 0, []).
ops([{Seq, _, Kind, S, E} | Rs], W, {H0, M0}, Op, Bad, Acc) ->
    Words = (nth(heap_size, S) - H0) + (nth(mbuf_size, S) - M0),
    Whole = Seq =:= 1 orelse Words rem W =:= 0,
    Op1 = Op + Words div W,
    ops(Rs, W, {nth(heap_size, E), nth(mbuf_size, E)}, Op1,
        Bad + case Whole of true -> 0; false -> 1 end, [{Seq, Op1, Kind, S, E} | Acc]);
ops([], _, _, _, Bad, Acc) -> {lists:reverse(Acc), Bad}.

nth(F, Vs) -> lists:nth(length(lists:takewhile(fun(G) -> G =/= F end, ?FIELDS)) + 1, Vs).

row(Acc, Kind, S, E) ->
    {length(Acc) + 1, 0, Kind, [proplists:get_value(F, S, -1) || F <- ?FIELDS],
     [proplists:get_value(F, E, -1) || F <- ?FIELDS]}.

%% The command line init saw, for the metadata when no --flags is given (emulator flags such
%% as +S are not in it: pass them as --flags).
flags() ->
    lists:flatten(lists:join(" ", [A || {K, Vs} <- init:get_arguments(), K =/= root, K =/= progname,
                                        K =/= home, V <- [Vs], A <- ["-" ++ atom_to_list(K) | V]])).

%% ---- --tester: eptest's tester and server, spawn to exit -------------------------------

%% The passes the tester runs (eptest.erl's, without the variants).
tester_passes() -> [proc1, proc2, proc3, ets_insert, ets_overwrite, ets_lookup, empty, pt_get].

tester_rows(Shape, Len, N, File, Flags, Running, Nif) ->
    Passes = tester_passes(),
    {Tracer, TFlags, Take} = tester_tracer(Nif, Running),
    erlang:trace(new_processes, true, [Tracer | TFlags]),
    Result = eptest:tester({Shape, Len, N, [], false}, Passes),
    erlang:trace(new_processes, false, TFlags),
    Ref = erlang:trace_delivered(all),
    receive {trace_delivered, all, Ref} -> ok end,
    Events = Take(),
    Tester = only([P || {P, recv, marked, _} <- Events]),
    Server = only([P || {P, recv, get, _} <- Events]),
    T0 = case Events of [{_, _, _, T} | _] -> T; [] -> 0 end,
    Mine = fun(Pid) -> [E || E = {P, _, _, _} <- Events, P =:= Pid] end,
    Rows = life(tester, Mine(Tester), Passes, N, result_words(Shape, Len), T0)
        ++ life(server, Mine(Server), Passes, N, 0, T0),
    Meta = eptest:metadata("gctrace --tester (eptest's tester and server on the real VM, spawn to exit)", Flags)
        ++ [{"loop_len", integer_to_list(case Shape of
                                              {ext, _} -> result_words(Shape, Len) - 5; % a term: its flat size
                                              _ -> Len
                                          end)}, {"loop_lookups", integer_to_list(N)},
            {"loop_shape", case Shape of {ext, _} -> "term"; _ -> atom_to_list(Shape) end},
            {"trace_flags", io_lib:format("~w", [TFlags])},
            {"tracer", case Nif of
                           none -> "a process (every event a message to it)";
                           _ -> "the gcnif tracer module (events kept in the traced process's own context)"
                       end},
            {"op", "proc passes: the tester's replies received + 1, the server's requests received "
                   "(the loop's own receive events); other passes: the words allocated since the "
                   "previous GC over the words one operation allocates (ets_lookup: its result, "
                   "ets_insert/ets_overwrite: the 3-word {I, Data}), from 0 at the pass's mark"}]
        ++ [{"pass_" ++ atom_to_list(Test) ++ "_" ++ K, integer_to_list(round(V))}
            || {Test, _Us, C, _} <- Result,
               {K, V} <- [{atom_to_list(K0), V0} || {K0, V0} <- maps:to_list(C), K0 =/= alloc]
                         ++ maps:get(alloc, C)],
    eptest:write_file(File, Meta, tester_header(),
                      [[atom_to_list(Who), Phase, integer_to_list(Op), integer_to_list(Seq),
                        atom_to_list(Kind), integer_to_list(Us) | [integer_to_list(V) || V <- S ++ E]]
                       || {Who, Phase, Op, Seq, Kind, Us, S, E} <- Rows]).

tester_header() ->
    lists:join(",", ["proc", "phase", "op", "seq", "kind", "time_us"]
                    ++ [atom_to_list(F) ++ "_s" || F <- ?FIELDS] ++ [atom_to_list(F) ++ "_e" || F <- ?FIELDS]).

only([P | Ps]) -> case lists:usort(Ps) -- [P] of [] -> P; _ -> error({several, [P | Ps]}) end;
only([]) -> none.

%% The words one ets:lookup allocates: its result [{I, Data}] (cons 2, tuple 3, Data).
result_words(Shape, Len) -> erts_debug:flat_size(eptest:payload(Shape, Len)) + 5.

%% The external-format bytes of a file, as eptest.erl's --ext-file reads them; halts on a bad file.
ext_file(File) ->
    case file:read_file(File) of
        {ok, B} ->
            try binary_to_term(B) of
                _ -> B
            catch error:badarg -> io:format(standard_error, "gctrace: --ext-file: '~s' is not an external term~n", [File]), halt(2)
            end;
        {error, Why} -> io:format(standard_error, "gctrace: --ext-file: cannot read '~s': ~s~n", [File, file:format_error(Why)]), halt(2)
    end.

%% The tracer, its flags and how to take its events: a collector process, or with --nif DIR
%% the gcnif module loaded from DIR (gcnif.c: no process woken; running events would need
%% the collector, so --running excludes it).
tester_tracer(none, Running) ->
    Collector = spawn_link(fun() -> tcollect([]) end),
    Take = fun() -> Collector ! {take, self()}, receive {Collector, Es} -> Es end end,
    {{tracer, Collector}, [garbage_collection, 'receive', timestamp] ++ [running || Running], Take};
tester_tracer(_Dir, true) ->
    io:format(standard_error, "gctrace: --running needs the tracer process, not --nif~n", []), halt(2);
tester_tracer(Dir, false) ->
    case gcnif:load(Dir) of
        ok -> ok;
        {error, Why} ->
            io:format(standard_error, "gctrace: cannot load the gcnif tracer from ~s: ~p~n", [Dir, Why]), halt(2)
    end,
    _ = gcnif:take(),
    {{tracer, gcnif, []}, [garbage_collection, 'receive'], fun gcnif:take/0}.

%% Trace events kept by the collector, with the messages classified (a reply holds Data:
%% only its kind is kept).
tcollect(Acc) ->
    receive
        {trace_ts, Pid, 'receive', Msg, Ts} -> tcollect([{Pid, recv, classify(Msg), ts(Ts)} | Acc]);
        {trace_ts, Pid, Kind, Info, Ts} when is_list(Info) -> tcollect([{Pid, Kind, Info, ts(Ts)} | Acc]);
        {trace_ts, Pid, InOut, _MFA, Ts} -> tcollect([{Pid, sched, InOut, ts(Ts)} | Acc]);
        {take, From} -> From ! {self(), lists:reverse(Acc)}
    end.

classify({_, marked}) -> marked;
classify({_, get}) -> get;
classify(stop) -> stop;
classify({_, _}) -> reply;
classify(_) -> other.

ts({Mega, S, Micro}) -> (Mega * 1000000 + S) * 1000000 + Micro.

%% One process's events -> rows {Who, Phase, Op, Seq, Kind, Us, Start, End}. The tester's
%% phase follows its marks (spawn, then PASS from a pass's first mark, after_PASS from its
%% second); the server's follows its requests (N per proc pass).
life(Who, Events, Passes, N, W, T0) ->
    Gcs = gc_rows([{gc, K, I} || {_, K, I, _} <- Events, is_list(I)], []),
    Starts = start_times(Events),
    Ctx = place(Who, Events, Passes, N),
    ops(Who, lists:zip(Gcs, Ctx), W, Starts, T0, {0, 0}, "", 0, []).

%% For each GC (in order): {Phase, ReceiveOp, PassKind} as the process's receives before it
%% say. A minor GC that falls through to a major one (minor_end right before major_start) is
%% one row, as in gc_rows.
place(Who, Events, Passes, N) -> place(Who, Events, Passes, N, {0, 0, 0}, none, []).
place(Who, [{_, recv, What, _} | Es], Passes, N, {M, Req, Rep}, _, Acc) ->
    C = case What of
            marked -> {M + 1, Req, 0};
            get -> {M, Req + 1, Rep};
            reply -> {M, Req, Rep + 1};
            _ -> {M, Req, Rep}
        end,
    place(Who, Es, Passes, N, C, recv, Acc);
place(Who, [{_, gc_major_start, _, _} | Es], Passes, N, C, gc_minor_end, Acc) ->
    place(Who, Es, Passes, N, C, gc_major_start, Acc);
place(Who, [{_, K, I, _} | Es], Passes, N, C, _, Acc) when K =:= gc_minor_start; K =:= gc_major_start ->
    is_list(I) orelse error(bad_gc_event),
    place(Who, Es, Passes, N, C, K, [phase(Who, C, Passes, N) | Acc]);
place(Who, [{_, K, I, _} | Es], Passes, N, C, _, Acc) when is_list(I) -> place(Who, Es, Passes, N, C, K, Acc);
place(Who, [_ | Es], Passes, N, C, P, Acc) -> place(Who, Es, Passes, N, C, P, Acc);
place(_, [], _, _, _, _, Acc) -> lists:reverse(Acc).

phase(tester, {0, _, _}, _, _) -> {"spawn", 0, none};
phase(tester, {M, _, Rep}, Passes, _) ->
    Test = lists:nth((M + 1) div 2, Passes),
    case M rem 2 of
        1 -> {atom_to_list(Test), Rep + 1, eptest_kind(Test)};
        0 -> {"after_" ++ atom_to_list(Test), 0, none}
    end;
phase(server, {_, 0, _}, _, _) -> {"spawn", 0, none};
phase(server, {_, Req, _}, Passes, N) ->
    {atom_to_list(lists:nth((Req - 1) div N + 1, Passes)), (Req - 1) rem N + 1, proc}.

eptest_kind(T) when T =:= proc1; T =:= proc2; T =:= proc3 -> proc;
eptest_kind(T) -> T.

start_times(Events) ->
    starts([{K, T} || {_, K, I, T} <- Events, is_list(I)]).
starts([{gc_minor_start, T}, {gc_minor_end, _}, {gc_major_start, _}, {gc_major_end, _} | Es]) -> [T | starts(Es)];
starts([{_, T}, {_, _} | Es]) -> [T | starts(Es)];
starts(_) -> [].

%% The op of each GC: proc passes from the receives; ets_lookup and ets_insert/overwrite
%% from the words allocated since the previous GC (a whole number of operations), counted
%% from 0 at the pass's first mark; other phases 0.
ops(Who, [{{Seq, _, Kind, S, E}, {Phase, ROp, PKind}} | Rs], W, [T | Ts], T0, {H0, M0}, Ph0, Op0, Acc) ->
    Words = (nth(heap_size, S) - H0) + (nth(mbuf_size, S) - M0),
    Per = case PKind of ets_lookup -> W; ets_insert -> 3; ets_overwrite -> 3; _ -> 0 end,
    Base = case Phase of Ph0 -> Op0; _ -> 0 end,
    Op = case PKind of
             proc -> ROp;
             _ when Per > 0 -> Base + max(0, Words) div Per;
             _ -> 0
         end,
    Row = {Who, Phase, Op, Seq, Kind, (T - T0), S, E},
    ops(Who, Rs, W, Ts, T0, {nth(heap_size, E), nth(mbuf_size, E)}, Phase, Op, [Row | Acc]);
ops(_, [], _, _, _, _, _, _, Acc) -> lists:reverse(Acc).

%% ---- --perturbation ---------------------------------------------------------------------

perturbation(Len, N) ->
    {T, _} = table(Len),
    {G0, _, _} = erlang:statistics(garbage_collection),
    [] = run(T, N, []),
    {G1, _, _} = erlang:statistics(garbage_collection),
    GcOnly = trajectory(run(T, N, [garbage_collection])),
    WithCall = trajectory(run(T, N, [garbage_collection, call])),
    io:format("perturbation,len,lookups,untraced_gcs_all_processes,gc_traced_gcs,call_traced_gcs,"
              "trajectory_identical~nperturbation,~b,~b,~b,~b,~b,~s~n",
              [Len, N, G1 - G0, length(GcOnly), length(WithCall), GcOnly =:= WithCall]),
    [io:format("perturbation_difference,gc ~b,~w,~w~n", [I, A, B])
     || {I, A, B} <- differences(GcOnly, WithCall, 1)].

differences([A | As], [A | Bs], I) -> differences(As, Bs, I + 1);
differences([A | As], [B | Bs], I) -> [{I, A, B} | differences(As, Bs, I + 1)];
differences(_, _, _) -> [].

trajectory(Events) -> [{K, S, E} || {_, _, K, S, E} <- gc_rows(Events, [])].

%% ---- the event mode ---------------------------------------------------------------------

%% Collections as erlang:statistics(garbage_collection) counts them: a minor GC that cannot
%% run (no room in the old heap) ends at once and a major one follows in the same call.
gcs([gc_minor_end, gc_major_start | Ks], Mi, Ma) -> gcs([gc_major_start | Ks], Mi, Ma);
gcs([gc_minor_end | Ks], Mi, Ma) -> gcs(Ks, Mi + 1, Ma);
gcs([gc_major_end | Ks], Mi, Ma) -> gcs(Ks, Mi, Ma + 1);
gcs([_ | Ks], Mi, Ma) -> gcs(Ks, Mi, Ma);
gcs([], Mi, Ma) -> {Mi, Ma}.

loop(_T, 0) -> ok;
loop(T, N) -> _ = ets:lookup(T, 1), loop(T, N - 1).

collect(Acc) ->
    receive
        done -> lists:reverse(Acc);
        {trace, _, call, {?MODULE, loop, [_, Left]}} -> collect([{call, Left} | Acc]);
        {trace, _, Kind, Info} when is_list(Info) -> collect([{gc, Kind, Info} | Acc]);
        {trace, _, InOut, MFA} -> collect([{sched, InOut, MFA} | Acc])
    end.

print({gc, Kind, Info}) ->
    [_, K] = string:split(atom_to_list(Kind), "_"),
    Fields = [heap_size, heap_block_size, old_heap_size, old_heap_block_size, mbuf_size, recent_size],
    io:format("gc,~s,~s~n", [K, lists:join(",", [integer_to_list(proplists:get_value(F, Info, -1))
                                                || F <- Fields])]);
print({sched, InOut, {M, F, A}}) ->
    io:format("sched,~s,~s:~s/~b~n", [InOut, M, F, A]);
print({sched, InOut, Other}) ->
    io:format("sched,~s,~p~n", [InOut, Other]).

%% mseg_alloc, all instances: segments created (mmap), allocs, cache hits, reallocs,
%% create_resize (a realloc that mapped anew) and destroys (munmap).
mseg_counts() ->
    Kinds = [proplists:get_value(memkind, I) || {instance, _, I} <- erlang:system_info({allocator, mseg_alloc})],
    Calls = lists:append([proplists:get_value(calls, K) || K <- Kinds]),
    Hits = lists:sum([proplists:get_value(cache_hits, proplists:get_value(status, K)) || K <- Kinds]),
    [count(mseg_create, Calls), count(mseg_alloc, Calls), Hits, count(mseg_realloc, Calls),
     count(mseg_create_resize, Calls), count(mseg_destroy, Calls)].

%% eheap_alloc, all instances: its calls into mseg_alloc (alloc, dealloc, realloc) and its
%% carriers now (multiblock + singleblock).
eheap_counts() ->
    Is = [I || {instance, _, I} <- erlang:system_info({allocator, eheap_alloc})],
    Calls = lists:append([proplists:get_value(calls, I) || I <- Is]),
    Carriers = lists:sum([C || I <- Is, K <- [mbcs, sbcs],
                               {carriers, C, _, _} <- proplists:get_value(K, I, [])]),
    [count(mseg_alloc, Calls), count(mseg_dealloc, Calls), count(mseg_realloc, Calls), Carriers].

instance_counts() -> eptest:instance_counts().

count(K, Calls) -> eptest:count(K, Calls).

arg(Flag, Args, Default) ->
    case lists:dropwhile(fun(A) -> A =/= Flag end, Args) of
        [_, V | _] -> list_to_integer(V);
        _ -> Default
    end.

sarg(Flag, Args, Default) ->
    case lists:dropwhile(fun(A) -> A =/= Flag end, Args) of
        [_, V | _] -> V;
        _ -> Default
    end.
