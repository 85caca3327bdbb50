%% eptest - the 2005 send-vs-ets:lookup benchmark (erlang-questions, 2005-03-29) on the
%% real VM, the twin of experiments/eptest.c: same passes, same seed line, same CSV columns.
%%
%% A fresh tester process per repeat builds Data (payload of length L), spawns a server holding
%% Data, and runs, each pass timed as a whole with timer:tc:
%%   proc1..3   N calls: S ! {self(), get}, receive {S, Data}; the server replies {self(), Data}
%%   ets_*      N inserts of {I, Data} (I = 1..N) into an empty set, N overwrites, N lookups
%%              whose results are dropped
%%   empty      a loop of N
%%   pt_get     N persistent_term:get(K) of Data, put under K before the passes
%% The variants (min_heap_size, +MHsbct, one scheduler, off-heap messages, a compressed
%% table) are extra rows with their own test names.
%%
%% Usage: erl -noshell -pa DIR -s eptest main -extra [--len L] [--iterations N] ... (--help)
%% or from a shell: eptest:run(1000) -> [{proc,{A,B,C}},{ets,{I,O,L}},{empty,E}].
-module(eptest).
-export([main/0, main/1, run/1, run/2]).
%% Shared with crossover.erl.
-export([payload/2, tester/2, median/1, iqr/1, metadata/2, write_file/4, parse_int/3, shapes/0, cli/5]).
%% Shared with gctrace.erl.
-export([minflt/0, instance_counts/0, count/2]).
%% Shared with account.erl: the GC tracer and its counts, the hot-key lookup loop.
-export([tracer/1, trace_counts/2, stop_tracer/1, hot_loop/2]).

-define(COLUMNS, "test,shape,payload_len,iterations,era,median_us,iqr_us,faults,gcs,"
                 "gc_words_copied,words_copied,fragments,carriers_mapped,switches,io_polls").

-record(opt, {len = 1000, iterations = 1000, shape = ints, repeats = 5, csv,
              min_heap,            % min_heap_size of the tester (words), or undefined
              off_heap = false,    % the tester's message queue off its heap (7.5, exp. 6)
              compressed = false,  % the table is [set, compressed]
              suffix = "",         % appended to every test name (run variants, e.g. _sbct2048)
              variants = false,    % also ets_lookup_hot_key and ets_lookup_element
              trace = false,       % one extra, untimed run traced for per-process GC counts
              era = "vm-otp25", flags = "", quick = false,
              ext}).               % external-format bytes: Data is binary_to_term of them

shapes() -> [ints, floats, tuple, nested, strings, binary, map].

%% ---- the seed's entry point -------------------------------------------------------------

run(N) -> run(N, 1000).
run(N, L) ->
    O = #opt{iterations = N, len = L, repeats = 1},
    seed_line(summarise(O, [run_once(O, false)])).

%% ---- payloads ---------------------------------------------------------------------------

payload(ints, L) -> lists:seq(1, L);
payload(floats, L) -> [float(X) || X <- lists:seq(1, L)];
payload(tuple, L) -> list_to_tuple(lists:seq(1, L));
payload(nested, L) -> lists:foldl(fun(X, Acc) -> {X, Acc} end, [], lists:seq(L, 1, -1));
payload(strings, L) -> [integer_to_list(X) || X <- lists:seq(1, L)];
payload(binary, L) -> <<0:(8 * L)>>;
payload(map, L) -> maps:from_list([{I, I} || I <- lists:seq(1, L)]);
%% A user's term (termcopy explain --vm): decoded in the tester, so Data is on its heap as a
%% built payload is.
payload({ext, Bin}, _L) -> binary_to_term(Bin).

%% ---- the loops (kept minimal: they are what is timed) -----------------------------------

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
lookup_loop(T, I, N) -> _ = ets:lookup(T, I), lookup_loop(T, I + 1, N).

hot_loop(_T, 0) -> ok;
hot_loop(T, N) -> _ = ets:lookup(T, 1), hot_loop(T, N - 1).

element_loop(_T, I, N) when I > N -> ok;
element_loop(T, I, N) -> _ = ets:lookup_element(T, I, 2), element_loop(T, I + 1, N).

empty_loop(0) -> ok;
empty_loop(N) -> empty_loop(N - 1).

pt_loop(_K, 0) -> ok;
pt_loop(K, N) -> _ = persistent_term:get(K), pt_loop(K, N - 1).

%% ---- one run: a fresh tester, every pass, counters around each --------------------------

%% Runs Passes (a subset of the test names, in order) in a fresh tester process spawned with
%% SpawnOpts; returns [{Test, Us, Counts, Trace}]. Trace is [] unless Traced.
%% The counters around each pass are read by a meter process, not by the tester: reading them
%% builds thousands of words (the allocator lists, the /proc read) that would collect the
%% tester between passes, a heap history that is the instrument's, not the benchmark's. The
%% tester's side of it is mark/3: one 4-word message and one 3-word reply before and after
%% each pass, so its whole life can be traced (gctrace.erl --tester) and modelled; the
%% meter's reply, received by the tester, marks the pass boundary in the tester's own trace.
tester({Shape, L, N, SpawnOpts, Traced}, Passes) -> tester({Shape, L, N, SpawnOpts, Traced, [set]}, Passes);
tester({Shape, L, N, SpawnOpts, Traced, TabOpts}, Passes) ->
    %% timer:tc is called from the tester: loaded here, the first call is a plain call (not
    %% error_handler's trip through the code server, messages on the tester's heap)
    {module, timer} = code:ensure_loaded(timer),
    Parent = self(),
    Tracer = case Traced of true -> spawn_link(fun() -> tracer(#{}) end); false -> none end,
    Meter = spawn_link(fun() -> meter(Tracer, []) end),
    {Pid, Ref} = spawn_opt(fun() -> Parent ! {self(), tester_body(Shape, L, N, Passes, Meter, TabOpts)} end,
                           [monitor | SpawnOpts]),
    receive
        {Pid, Times} ->
            erlang:demonitor(Ref, [flush]),
            Meter ! {take, self()},
            Marks = receive {Meter, Ms} -> Ms end,
            stop_tracer(Tracer),
            [{Test, Us, diff(C1, C0), Tr} || {{Test, Us}, {C0, C1, Tr}} <- lists:zip(Times, pairs(Marks))];
        {'DOWN', Ref, process, Pid, Why} -> error({tester_died, Why})
    end.

tester_body(Shape, L, N, Passes, Meter, TabOpts) ->
    Data = payload(Shape, L),
    S = spawn_link(fun() -> server(Data) end),
    T = ets:new(eptest, TabOpts),
    %% persistent_term:put before the passes, untimed; erased after them (an erase makes the
    %% VM scan every process for the old term, so it is not inside a pass either)
    PtKey = {eptest, self()},
    persistent_term:put(PtKey, Data),
    Fun = fun(proc) -> fun() -> call_loop(S, N) end;
             (ets_insert) -> fun() -> insert_loop(T, 1, N, Data) end;
             (ets_overwrite) -> fun() -> insert_loop(T, 1, N, Data) end;
             (ets_lookup) -> fun() -> lookup_loop(T, 1, N) end;
             (ets_lookup_hot_key) -> fun() -> hot_loop(T, N) end;
             (ets_lookup_element) -> fun() -> element_loop(T, 1, N) end;
             (empty) -> fun() -> empty_loop(N) end;
             (pt_get) -> fun() -> pt_loop(PtKey, N) end
          end,
    Rows = [pass(Test, Fun(kind(Test)), Meter, S) || Test <- Passes],
    S ! stop,
    ets:delete(T),
    persistent_term:erase(PtKey),
    Rows.

kind(proc1) -> proc;
kind(proc2) -> proc;
kind(proc3) -> proc;
kind(Test) -> Test.

pass(Test, F, Meter, S) ->
    mark(Meter, S),
    {Us, ok} = timer:tc(F),
    mark(Meter, S),
    {Test, Us}.

%% The meter reads every counter, then answers; S is the server (traced with the tester).
mark(Meter, S) ->
    Meter ! {self(), S},
    receive {Meter, marked} -> ok end.

%% Per mark: the counters, and with a tracer the tester's and server's GC counts so far.
meter(Tracer, Acc) ->
    receive
        {From, S} when is_pid(From) ->
            %% GC tracing (--trace) starts at the first mark, before the first pass
            [erlang:trace(P, true, [garbage_collection, monotonic_timestamp, {tracer, Tracer}]) || Acc =:= [], Tracer =/= none, P <- [From, S]],
            {C, Tr} = read_mark(length(Acc) rem 2 =:= 0, Tracer, [From, S]),
            From ! {self(), marked},
            meter(Tracer, [{C, Tr} | Acc]);
        {take, From} -> From ! {self(), lists:reverse(Acc)}
    end.

%% The marks two by two: each pass's counters before and after, and its traced GC counts
%% (the tracer hands each process's counts over once, so the end mark's are the pass's).
pairs([{C0, _}, {C1, Tr} | Ms]) -> [{C0, C1, Tr} | pairs(Ms)];
pairs([]) -> [].

%% The counters the VM gives, read outside the timed region. A pass's window runs from its
%% start mark's reading of the node-wide counters (GCs and faults of every process) to its end
%% mark's, so what the meter allocates to read them (the allocator lists, the /proc line, the
%% tracer's counts) must fall outside it: a start mark does that work first, then collects its
%% own heap, so the few words the node-wide reads take fit without a collection, and reads them
%% last; an end mark reads them first. (Read in the other order, the meter's own collections
%% added about three GCs to every pass, the empty loop's too.) The VM's CPU time (cpu_ns/0) is
%% read innermost of all: last at a start mark, first at an end mark; the dirty CPU
%% schedulers' CPU time (dirty_ns) next to it.
read_mark(true, Tracer, Pids) ->
    Tr = trace_counts(Tracer, Pids),
    Slow = slow_counters(),
    true = erlang:garbage_collect(),
    Node = node_counters(),
    Sleeps = sleeps(),
    Dirty = from_nif(dirty_ns),
    {maps:merge(Slow, Node#{sleeps => Sleeps, dirty_ns => Dirty, cpu_ns => cpu_ns()}), Tr};
read_mark(false, Tracer, Pids) ->
    Cpu = cpu_ns(),
    Dirty = from_nif(dirty_ns),
    Sleeps = sleeps(),
    Node = node_counters(),
    Tr = trace_counts(Tracer, Pids),
    {maps:merge(Node#{cpu_ns => Cpu, dirty_ns => Dirty, sleeps => Sleeps}, slow_counters()), Tr}.

node_counters() ->
    {Gcs, Reclaimed, _} = erlang:statistics(garbage_collection),
    {Switches, _} = erlang:statistics(context_switches),
    #{faults => minflt(), gcs => Gcs, reclaimed => Reclaimed, switches => Switches}.

slow_counters() ->
    #{mseg_create => mseg_calls(mseg_create), mseg_cache_hits => mseg_status(cache_hits),
      mseg_destroy => mseg_calls(mseg_destroy), alloc => instance_counts()}.

%% CPU time of the VM's OS process (ns, all threads), when the cpuclock NIF is loaded (the
%% account's session loads it: experiments/beam/cpuclock.erl); 0 otherwise, without trying to
%% load the module (a code path search inside a pass's window).
cpu_ns() -> from_nif(process_ns).

%% The VM's threads' voluntary context switches (schedulers going to sleep), as cpu_ns/0.
sleeps() -> from_nif(nvcsw).

from_nif(F) ->
    case erlang:module_loaded(cpuclock) andalso cpuclock:loaded() of
        true -> cpuclock:F();
        false -> 0
    end.

diff(A, B) -> maps:map(fun(alloc, V) -> alloc_diff(V, maps:get(alloc, B));
                           (K, V) -> V - maps:get(K, B) end, A).

%% Per-instance counters: deltas, except the segments cached now.
alloc_diff(A, B) ->
    [{K, case lists:suffix("cached_segments", K) of true -> V1; false -> V1 - V0 end}
     || {{K, V1}, {K, V0}} <- lists:zip(A, B)].

%% Per allocator instance (0: the dirty schedulers' and the aux thread's, 1..: the
%% schedulers'): eheap_alloc's, ets_alloc's and temp_alloc's calls into mseg_alloc and their
%% carriers, and mseg_alloc's creates, destroys, cache hits and cached segments, as
%% [{"i<N>_key", Value}]. temp_alloc holds the stack of size_object's walk, which a large
%% message or ETS object grows into a carrier of its own (alloc/estack.h); the destroys
%% include the segments the timed cache check drops (alloc/mseg.h).
instance_counts() ->
    Alloc = fun(Name, Tag) ->
                    [{io_lib:format("i~b_~s_~s", [N, Tag, K]), V}
                     || {instance, N, I} <- alloc_info(Name), {K, V} <- alloc_counts(I)]
            end,
    Mseg = [{io_lib:format("i~b_~s", [N, K]), V}
            || {instance, N, I} <- mseg_info(), Kind <- [memkind(I)],
               {K, V} <- [{"mseg_create", count(mseg_create, proplists:get_value(calls, Kind, []))},
                          {"mseg_destroy", count(mseg_destroy, proplists:get_value(calls, Kind, []))},
                          {"cache_hits", proplists:get_value(cache_hits, proplists:get_value(status, Kind, []), 0)},
                          {"cached_segments", proplists:get_value(cached_segments, proplists:get_value(status, Kind, []), 0)}]],
    [{lists:flatten(K), V}
     || {K, V} <- Alloc(eheap_alloc, "eheap") ++ Alloc(ets_alloc, "ets") ++ Alloc(temp_alloc, "temp") ++ Mseg].

alloc_info(Name) ->
    case erlang:system_info({allocator, Name}) of
        L when is_list(L) -> L;
        _ -> []
    end.

alloc_counts(I) ->
    Calls = proplists:get_value(calls, I, []),
    [{"mseg_alloc", count(mseg_alloc, Calls)}, {"mseg_dealloc", count(mseg_dealloc, Calls)},
     {"mseg_realloc", count(mseg_realloc, Calls)},
     {"carriers", lists:sum([C || K <- [mbcs, sbcs], {carriers, C, _, _} <- proplists:get_value(K, I, [])])}].

count(K, Calls) -> lists:sum([G * 1000000000 + C || {Name, G, C} <- Calls, Name =:= K]).

%% Minor faults of the whole OS process: field 10 of /proc/self/stat (os:cmd would fork).
minflt() ->
    case file:read_file("/proc/self/stat") of
        {ok, Bin} ->
            [_, After] = binary:split(Bin, <<") ">>, [trim_all]),  % comm may hold spaces
            binary_to_integer(lists:nth(8, binary:split(After, <<" ">>, [global])));
        {error, _} -> 0
    end.

%% mmap calls of the segment allocator (a cache miss maps a new carrier).
mseg_calls(Name) ->
    lists:sum([G * 1000000000 + C || {instance, _, I} <- mseg_info(),
                                     {calls, Cs} <- memkind(I), {N, G, C} <- Cs, N =:= Name]).

mseg_status(Name) ->
    lists:sum([V || {instance, _, I} <- mseg_info(), {status, Ss} <- memkind(I), {N, V} <- Ss, N =:= Name]).

mseg_info() ->
    case erlang:system_info({allocator, mseg_alloc}) of
        L when is_list(L) -> L;
        _ -> []
    end.

memkind(Instance) -> proplists:get_value(memkind, Instance, []).

%% ---- per-process GC counts by tracing (section 7.5, experiment 1) -------------------------

%% Per process, what its GCs did (a map: gc_counts/0's keys). words: what each GC left in the
%% young heap plus what it promoted to the old heap (the eptest CSV's gc_words_copied), of which
%% moved: the queued messages' fragments copied onto the new heap after the collection
%% (erl_gc.c: HIGH_WATER is set before move_msgs_to_heap, so heap_size - recent_size at the
%% end), copied the rest (the collector's own copy); mbuf: the heap-fragment words the GC found
%% (mbuf_size at its start: BIF results and received messages, copied or freed); dirty: the GCs
%% whose young generation, stack and queued message data (and old heap, major) reach
%% ERTS_POTENTIALLY_LONG_GC_HSIZE, 128 Ki words (erl_gc.c check_for_possibly_long_gc: run on a
%% dirty CPU scheduler); gc_us: start to end by the trace's monotonic timestamps. A minor that
%% falls through to a major (minor_collection returns -1: gc_minor_end then gc_major_start) is
%% one major, as erlang:statistics(garbage_collection) counts it, and gcs counts it once.
gc_counts() -> #{gcs => 0, words => 0, heap_max => 0, minor => 0, major => 0, dirty => 0,
                 copied => 0, moved => 0, mbuf => 0, gc_us => 0}.

tracer(Acc) ->
    receive
        {trace_ts, Pid, gc_major_start, Info, Ts} ->
            Acc1 = case maps:take({pending, Pid}, Acc) of
                       %% the minor that ended in this very state collected nothing: a fall-through
                       {{Info, _, Start}, A} -> A#{{start, Pid} => Start};
                       {{_, Delta, _}, A} -> (bump(A, Pid, Delta))#{{start, Pid} => {Info, Ts}};
                       error -> Acc#{{start, Pid} => {Info, Ts}}
                   end,
            tracer(Acc1);
        {trace_ts, Pid, gc_minor_start, Info, Ts} ->
            tracer((commit(Acc, Pid))#{{start, Pid} => {Info, Ts}});
        {trace_ts, Pid, End, Info, Ts} when End =:= gc_minor_end; End =:= gc_major_end ->
            {Start, Ts0} = maps:get({start, Pid}, Acc, {[], Ts}),
            Minor = End =:= gc_minor_end,
            Old0 = case Minor of true -> value(old_heap_size, Start); false -> 0 end,
            Words = value(heap_size, Info) + value(old_heap_size, Info) - Old0,
            Moved = max(0, value(heap_size, Info) - value(recent_size, Info)),
            Usage = value(heap_size, Start) + value(mbuf_size, Start) + Moved + value(stack_size, Start)
                + case Minor of true -> 0; false -> value(old_heap_size, Start) end,
            Us = erlang:convert_time_unit(Ts - Ts0, native, nanosecond) / 1000,
            Delta = #{gcs => 1, words => Words, copied => Words - Moved, moved => Moved,
                      mbuf => value(mbuf_size, Start), gc_us => Us, heap_max => value(heap_block_size, Info),
                      minor => case Minor of true -> 1; false -> 0 end,
                      major => case Minor of true -> 0; false -> 1 end,
                      dirty => case Usage >= 128 * 1024 of true -> 1; false -> 0 end},
            case Minor of
                true -> tracer(Acc#{{pending, Pid} => {Info, Delta, {Start, Ts0}}});
                false -> tracer(bump(Acc, Pid, Delta))
            end;
        {take, From, Pids} ->
            Acc1 = lists:foldl(fun(P, A) -> commit(A, P) end, Acc, Pids),
            From ! {self(), [maps:get(P, Acc1, gc_counts()) || P <- Pids]},
            tracer(maps:without(Pids, Acc1));
        stop -> ok
    end.

%% A minor's counts wait for the process's next event, which says whether it fell through.
commit(Acc, Pid) ->
    case maps:take({pending, Pid}, Acc) of
        {{_, Delta, _}, A} -> bump(A, Pid, Delta);
        error -> Acc
    end.

%% Adds the numbers of Delta to Pid's counts (heap_max: the largest).
bump(Acc, Pid, Delta) ->
    C = maps:get(Pid, Acc, gc_counts()),
    Acc#{Pid => maps:fold(fun(heap_max, V, M) -> M#{heap_max => max(V, maps:get(heap_max, M))};
                             (K, V, M) -> M#{K => maps:get(K, M) + V} end, C, Delta)}.

value(Key, Info) -> proplists:get_value(Key, Info, 0).

trace_counts(none, _Pids) -> [];
trace_counts(Tracer, Pids) ->
    [begin Ref = erlang:trace_delivered(P), receive {trace_delivered, P, Ref} -> ok end end
     || P <- Pids],
    Tracer ! {take, self(), Pids},
    receive {Tracer, Counts} -> Counts end.

stop_tracer(none) -> ok;
stop_tracer(Tracer) -> unlink(Tracer), Tracer ! stop.

%% ---- repeats and summaries --------------------------------------------------------------

%% The passes and the table's options are literals: the tester's fun captures them, and spawn
%% copies a captured term onto the new process's heap unless it is a literal (erl_process.c
%% erl_create_process: size_object_litopt and copy_struct_litopt leave literals in place). A list
%% built at run time (`A ++ B`) put 12 more words on the tester's heap than gctrace.erl's,
%% account.erl's and crossover.erl's literal lists, and the model's twin (which spawns with
%% the fun alone), and that moved whole passes: strings L = 17000, 125 lookup GCs against 497.
passes(#opt{variants = false}) ->
    [proc1, proc2, proc3, ets_insert, ets_overwrite, ets_lookup, empty, pt_get];
passes(#opt{variants = true}) ->
    [proc1, proc2, proc3, ets_insert, ets_overwrite, ets_lookup, ets_lookup_hot_key, ets_lookup_element,
     empty, pt_get].

tab_opts(#opt{compressed = false}) -> [set];
tab_opts(#opt{compressed = true}) -> [set, compressed].

spawn_opts(#opt{min_heap = W, off_heap = Off}) ->
    [{min_heap_size, W} || W =/= undefined] ++ [{message_queue_data, off_heap} || Off].

run_once(O = #opt{shape = Sh, len = L, iterations = N, ext = Ext}, Traced) ->
    Payload = case Ext of undefined -> Sh; _ -> {ext, Ext} end,
    tester({Payload, L, N, spawn_opts(O), Traced, tab_opts(O)}, passes(O)).

%% [[Row]] (one list per run) -> [{Test, MedianUs, IqrUs, MedianCounts}]
summarise(O, Runs) ->
    [begin
         Rows = [R || Run <- Runs, R = {T, _, _, _} <- Run, T =:= Test],
         Us = [U || {_, U, _, _} <- Rows],
         Counts = maps:map(fun(alloc, V) -> V;
                              (K, _) -> median([maps:get(K, C) || {_, _, C, _} <- Rows]) end,
                           element(3, hd(Rows))),
         {Test, median(Us), iqr(Us), Counts}
     end || Test <- passes(O)].

seed_line(Sum) ->
    M = fun(T) -> round(element(2, lists:keyfind(T, 1, Sum))) end,
    [{proc, {M(proc1), M(proc2), M(proc3)}},
     {ets, {M(ets_insert), M(ets_overwrite), M(ets_lookup)}}, {empty, M(empty)}].

median(Xs) -> quantile(lists:sort(Xs), 0.5).
iqr(Xs) -> S = lists:sort(Xs), quantile(S, 0.75) - quantile(S, 0.25).

%% Linear interpolation between order statistics (as the C harness does).
quantile([X], _) -> X;
quantile(S, Q) ->
    P = Q * (length(S) - 1),
    I = trunc(P),
    Lo = lists:nth(I + 1, S),
    Hi = lists:nth(min(I + 2, length(S)), S),
    Lo + (Hi - Lo) * (P - I).

%% ---- the command line -------------------------------------------------------------------

main() -> main(init:get_plain_arguments()).

main(Args) -> cli("eptest", Args, fun(A) -> parse(A, #opt{}) end, fun usage/0, fun main_opt/1).

%% The command line of every module here: Parse returns options or help, or throws
%% {usage, Msg} (one line on stderr, exit 2); Run gets the options, then the VM halts.
cli(Name, Args, Parse, Usage, Run) ->
    try Parse(Args) of
        help -> io:put_chars(Usage()), halt(0);
        O -> Run(O), halt(0)
    catch
        throw:{usage, Msg} -> io:format(standard_error, "~s: ~s (see --help)~n", [Name, Msg]), halt(2)
    end.

main_opt(O = #opt{repeats = R}) ->
    Runs = [run_once(O, false) || _ <- lists:seq(1, R)],
    Traced = case O#opt.trace of true -> run_once(O, true); false -> [] end,
    Sum = summarise(O, Runs),
    io:format("~w~n", [seed_line(Sum)]),
    case O#opt.csv of
        undefined -> ok;
        File -> write_csv(File, O, Sum, Traced, ratios(Runs))
    end.

%% Per repeat, ets_lookup over the median of that tester's three proc passes: both halves of
%% the ratio see the same moment of a noisy machine.
ratios(Runs) ->
    Rs = [begin
              Us = fun(Ts) -> median([U || {T, U, _, _} <- Run, lists:member(T, Ts)]) end,
              Us([ets_lookup]) / max(1, Us([proc1, proc2, proc3]))
          end || Run <- Runs],
    io_lib:format("~.3f (IQR ~.3f; per repeat: ets_lookup / median of proc1..3 of the same tester: ~s)",
                  [float(median(Rs)), float(iqr(Rs)),
                   lists:join(" ", [float_to_list(R, [{decimals, 3}]) || R <- Rs])]).

write_csv(File, O, Sum, Traced, Ratio) ->
    Meta = metadata("eptest (seed 2005 on the real VM)", O#opt.flags) ++
        [{"payload", io_lib:format("~s, L = ~b", [O#opt.shape, O#opt.len])},
         {"repeats", io_lib:format("~b (times: median and IQR over repeats of a fresh tester; "
                                   "counts: medians over the same repeats)", [O#opt.repeats])},
         {"tester", io_lib:format("spawn_opt(Fun, ~w)", [[monitor | spawn_opts(O)]])},
         {"faults", "minor faults of the whole OS process (/proc/self/stat minflt) around the pass"},
         {"gcs", "erlang:statistics(garbage_collection) delta: GCs of all processes"},
         {"carriers_mapped", "mseg_alloc mseg_create calls (carriers freshly mmapped, all instances)"},
         {"switches", "erlang:statistics(context_switches) delta (process switches, all schedulers)"},
         {"gc_words_copied", case Traced of
                                 [] -> "n/a (run with --trace)";
                                 _ -> "from one extra traced run: per GC, heap_size after + old heap growth, "
                                      "tester + server"
                             end},
         {"n/a", "words_copied, fragments, io_polls: the VM does not count them"},
         {"lookup_proc_ratio", Ratio}]
        ++ [{"vm_counts", vm_counts(name(O, Test), C, trace_for(Test, Traced))} || {Test, _, _, C} <- Sum],
    Rows = [[name(O, Test), atom_to_list(O#opt.shape), integer_to_list(O#opt.len),
             integer_to_list(O#opt.iterations), O#opt.era, fmt(Us), fmt(Iqr),
             int(C, faults), int(C, gcs), words_copied(trace_for(Test, Traced)), "n/a", "n/a",
             int(C, mseg_create), int(C, switches), "n/a"]
            || {Test, Us, Iqr, C} <- Sum],
    write_file(File, Meta, ?COLUMNS, Rows).

name(#opt{suffix = Suffix}, Test) -> atom_to_list(Test) ++ Suffix.

trace_for(Test, Traced) ->
    case lists:keyfind(Test, 1, Traced) of
        {_, _, _, PerPid} -> PerPid;
        false -> []
    end.

words_copied([]) -> "n/a";
words_copied(PerPid) -> integer_to_list(lists:sum([maps:get(words, C) || C <- PerPid])).

vm_counts(Test, C, Tr) ->
    io_lib:format("~s words_reclaimed=~b mseg_cache_hits=~b", [Test, round(maps:get(reclaimed, C)),
                                                                round(maps:get(mseg_cache_hits, C))])
        %% each eheap_alloc instance's segment requests in the pass: which scheduler's instance
        %% the tester's and the server's heaps came from (0: the dirty schedulers')
        ++ [io_lib:format(" eheap_mseg_alloc_~s=~b", [lists:takewhile(fun(Ch) -> Ch =/= $_ end, K), V])
            || {K, V} <- maps:get(alloc, C, []), lists:suffix("_eheap_mseg_alloc", K)]
        ++ case Tr of
               [#{gcs := TG, words := TW, heap_max := TH}, #{gcs := SG, words := SW, heap_max := SH}] ->
                   io_lib:format(" tester_gcs=~b tester_gc_words_copied=~b tester_heap_block_max=~b"
                                 " server_gcs=~b server_gc_words_copied=~b server_heap_block_max=~b",
                                 [TG, TW, TH, SG, SW, SH]);
               [] -> ""
           end.

int(C, K) -> integer_to_list(round(maps:get(K, C))).
fmt(X) -> float_to_list(float(X), [{decimals, 1}]).

%% '#'-prefixed metadata, shared by the three modules.
metadata(Experiment, Flags) ->
    {Date, Time} = calendar:universal_time(),
    [{"date", io_lib:format("~4..0b-~2..0b-~2..0bT~2..0b:~2..0b:~2..0bZ", tuple_to_list(Date) ++ tuple_to_list(Time))},
     {"experiment", Experiment},
     {"otp_release", erlang:system_info(otp_release)},
     {"erts", erlang:system_info(version)},
     {"schedulers_online", integer_to_list(erlang:system_info(schedulers_online))},
     {"system_architecture", erlang:system_info(system_architecture)},
     {"emu_flavor", atom_to_list(erlang:system_info(emu_flavor))},
     {"emulator_flags", Flags},
     {"eheap_sbct", integer_to_list(eheap_sbct())},
     {"cpu", cpu_model()},
     {"kernel", first_line("/proc/version")},
     {"loadavg", first_line("/proc/loadavg") ++ " (at the end of the run: the machine is shared)"}].

eheap_sbct() ->
    case erlang:system_info({allocator, eheap_alloc}) of
        [{instance, _, I} | _] -> proplists:get_value(sbct, proplists:get_value(options, I, []), 0);
        _ -> 0
    end.

cpu_model() ->
    case file:read_file("/proc/cpuinfo") of
        {ok, B} ->
            case re:run(B, "^model name\\s*:\\s*(.*)$", [multiline, {capture, all_but_first, list}]) of
                {match, [M]} -> io_lib:format("~s (~b logical)", [M, erlang:system_info(logical_processors)]);
                nomatch -> "unknown"
            end;
        _ -> "unknown"
    end.

first_line(File) ->
    case file:read_file(File) of
        {ok, B} -> hd(string:split(string:trim(binary_to_list(B)), "\n"));
        _ -> "unknown"
    end.

write_file(File, Meta, Header, Rows) ->
    Text = [[io_lib:format("# ~s: ~s~n", [K, V]) || {K, V} <- Meta], Header, "\n",
            [[lists:join(",", R), "\n"] || R <- Rows]],
    case File of
        "-" -> io:put_chars(Text);
        _ -> ok = file:write_file(File, Text)
    end.

parse([], O) -> O;
parse(["--help" | _], _) -> help;
parse(["--len", V | T], O) -> parse(T, O#opt{len = parse_int("--len", V, 1)});
parse(["--iterations", V | T], O) -> parse(T, O#opt{iterations = parse_int("--iterations", V, 1)});
parse(["--repeats", V | T], O) -> parse(T, O#opt{repeats = parse_int("--repeats", V, 1)});
parse(["--shape", V | T], O) ->
    case [S || S <- shapes(), atom_to_list(S) =:= V] of
        [S] -> parse(T, O#opt{shape = S});
        [] -> throw({usage, "bad --shape '" ++ V ++ "'"})
    end;
parse(["--csv", V | T], O) -> parse(T, O#opt{csv = V});
parse(["--ext", V | T], O) -> parse(T, ext(O, hex_bytes(V)));
parse(["--ext-file", V | T], O) ->
    case file:read_file(V) of
        {ok, B} -> parse(T, ext(O, B));
        {error, Why} -> throw({usage, io_lib:format("cannot read --ext-file '~s': ~s", [V, file:format_error(Why)])})
    end;
parse(["--min-heap", V | T], O) ->
    parse(T, O#opt{min_heap = parse_int("--min-heap", V, 1), suffix = O#opt.suffix ++ "_min_heap"});
parse(["--off-heap" | T], O) -> parse(T, O#opt{off_heap = true, suffix = O#opt.suffix ++ "_off_heap"});
parse(["--compressed" | T], O) -> parse(T, O#opt{compressed = true, suffix = O#opt.suffix ++ "_compressed"});
parse(["--suffix", V | T], O) -> parse(T, O#opt{suffix = O#opt.suffix ++ V});
parse(["--variants" | T], O) -> parse(T, O#opt{variants = true});
parse(["--trace" | T], O) -> parse(T, O#opt{trace = true});
parse(["--era", V | T], O) -> parse(T, O#opt{era = V});
parse(["--flags", V | T], O) -> parse(T, O#opt{flags = V});
parse(["--quick" | T], O) -> parse(T, O#opt{quick = true, repeats = 3});
parse([Bad | _], _) -> throw({usage, "bad argument '" ++ Bad ++ "'"}).

%% The payload is the term of these external-format bytes; the shape column says ext.
ext(O, B) ->
    try binary_to_term(B) of
        _ -> O#opt{ext = B, shape = ext}
    catch error:badarg -> throw({usage, "--ext: not an external term"})
    end.

hex_bytes(V) ->
    try binary:decode_hex(list_to_binary(V))
    catch error:badarg -> throw({usage, "--ext: bad hex"})
    end.

parse_int(Name, V, Min) ->
    try list_to_integer(V) of
        I when I >= Min -> I;
        _ -> throw({usage, io_lib:format("bad ~s '~s'", [Name, V])})
    catch error:badarg -> throw({usage, io_lib:format("bad ~s '~s'", [Name, V])})
    end.

usage() ->
    "usage: erl -noshell -pa DIR -s eptest main -extra [OPTIONS]\n"
    "\n"
    "The 2005 send-vs-ets:lookup benchmark on the real VM: prints the seed's line\n"
    "[{proc,{A,B,C}},{ets,{I,O,L}},{empty,E}] (microseconds for all N iterations, medians).\n"
    "\n"
    "  --len L          payload length (default 1000)\n"
    "  --iterations N   calls per test (default 1000)\n"
    "  --shape S        ints (default), floats, tuple, nested, strings, binary, map\n"
    "  --ext HEX        Data is binary_to_term of these external-format bytes (hex), not a\n"
    "                   shape: the shape column says ext, --len is not used\n"
    "  --ext-file FILE  the same, the raw bytes read from FILE (termcopy explain --vm)\n"
    "  --repeats R      runs of a fresh tester to take medians over (default 5; --quick 3)\n"
    "  --csv FILE|-     write the CSV (the model's eptest columns) with '#' metadata first\n"
    "  --min-heap W     spawn the tester with {min_heap_size, W}; tests are named *_min_heap\n"
    "  --off-heap       spawn the tester with {message_queue_data, off_heap}: every reply\n"
    "                   stays a fragment until received; tests are named *_off_heap\n"
    "  --compressed     the table is [set, compressed]; tests are named *_compressed\n"
    "  --variants       also ets_lookup_hot_key (key 1, N times) and ets_lookup_element\n"
    "                   (ets:lookup_element(T, I, 2): copy_struct instead of copy_shallow)\n"
    "  --trace          one extra untimed run with GC tracing: per-process GCs, words copied\n"
    "  --suffix S       append S to every test name (run.sh: _sbct2048 for +MHsbct 2048)\n"
    "  --era E          the era column (default vm-otp25)\n"
    "  --flags F        the emulator flags to record in the metadata\n"
    "  --quick          3 repeats\n"
    "  --help\n".
