%% etsbench - the 2009 "how fast is ETS" replay (a 2009 blog post, report/data/seed2009.csv) on the real VM,
%% the twin of experiments/etsbench.c and its CSV columns.
%%
%% Operations on N {I, hello}: insert (into an empty table), lookup, the seed's 2-writer update
%% (two processes each insert all N keys, in the same order, N down to 1), and
%% update_counter(T, I, {2, 1}) on {I, 0}; for the table types set (default options),
%% {write_concurrency, true}, {read_concurrency, true}, [set, compressed] (one thread only:
%% the model's lock_mode compressed), and the process dictionary (put, get).
%% threads = schedulers online (set with erlang:system_flag/2, as the model's threads are
%% schedulers): with 1, one process does the N operations; with 2, two processes take half
%% the keys each. The update always has the seed's two writers. As in the seed, insert, lookup
%% and update run in this order on one table. Workers are spawned with the seed's +h 9999999
%% as {min_heap_size, ...} (--heap) and each phase releases them together. Each phase counts
%% the OS process's minor faults from the release to the last worker's end (eptest:minflt/0):
%% the pages the phase wrote first. In one VM a worker's heap can be a segment an exited worker
%% left in the mseg cache, its pages written already; with --fresh each repeat of each mode
%% and scheduler count runs in a VM of its own (started with the --flags emulator flags), as
%% the model's runs each start on a fresh memory source.
%%
%% Usage: erl -noshell +S 2:2 -pa DIR -s etsbench main -extra [--quick] [--csv FILE] ...
-module(etsbench).
-export([main/0, main/1]).

-record(opt, {n = 1000000, repeats = 3, heap = 9999999, threads = [1, 2], csv, flags = "", quick = false,
              lookup_only = false,     % insert and lookup only (the table-size runs of run.sh)
              modes = modes(), fresh = false,
              child = false}).         % a --fresh run's own VM: one repeat, its rows to stdout

modes() -> [default, write_concurrency, read_concurrency, compressed, pdict].
ops(pdict) -> [put, get];
ops(_) -> [insert, lookup, update, update_counter].
ops(#opt{lookup_only = true}, pdict) -> [put, get];
ops(#opt{lookup_only = true}, _) -> [insert, lookup];
ops(_, Mode) -> ops(Mode).

%% The seed's table was public; the options are the only difference between modes.
table(default) -> ets:new(etsbench, [set, public]);
table(compressed) -> ets:new(etsbench, [set, public, compressed]);
table(Mode) -> ets:new(etsbench, [set, public, {Mode, true}]).

main() -> main(init:get_plain_arguments()).

main(Args) -> eptest:cli("etsbench", Args, fun(A) -> parse(A, #opt{}) end, fun usage/0, fun run/1).

run(#opt{child = true, modes = [Mode], threads = [Th]} = O) ->
    erlang:system_flag(schedulers_online, Th),
    io:format("~s~w.~n", [child_mark(), once(O, Mode, Th)]);
run(O = #opt{n = N}) ->
    Online = erlang:system_info(schedulers_online),
    Rows = lists:append([rows(O, Mode, Th) || Th <- O#opt.threads, Th =< erlang:system_info(schedulers),
                                              Mode <- O#opt.modes, Mode =/= compressed orelse Th =:= 1]),
    erlang:system_flag(schedulers_online, Online),
    io:format("etsbench: N = ~b, median of ~b, worker min_heap_size ~b words~n", [N, O#opt.repeats, O#opt.heap]),
    io:format("~-18s ~2s  ~-15s ~12s ~9s ~9s~n", ["lock_mode", "th", "op", "ops/s", "ns/op", "faults"]),
    [io:format("~-18s ~2b  ~-15s ~12b ~9.1f ~9b~n", [M, Th, Op, round(1.0e9 / Ns), Ns, F]) || {M, Th, Op, Ns, _, F} <- Rows],
    seed_table(O, Rows),
    case O#opt.csv of
        undefined -> ok;
        File ->
            Meta = eptest:metadata("etsbench (seed 2009 on the real VM)", O#opt.flags) ++
                [{"objects", io_lib:format("N = ~b {I, hello}, I = N..1; update_counter on {I, 0}", [N])},
                 {"threads", "schedulers online (erlang:system_flag(schedulers_online, T)); with 2 the keys "
                             "are split in halves between two processes, except the 2-writer update "
                             "(both writers, all keys, same order, as the seed)"},
                 {"workers", io_lib:format("spawn_opt {min_heap_size, ~b} (the seed's +h)", [O#opt.heap])},
                 {"ns_per_op", io_lib:format("median wall time over ~b repeats / all operations of the run "
                                             "(2N for the update)", [O#opt.repeats])},
                 {"lock_ns", "n/a: the VM's ETS locks cannot be timed apart from the operation"},
                 {"faults", "minor faults of the whole OS process (/proc/self/stat minflt) from a phase's "
                            "release to its last worker's end, median over the repeats"},
                 {"vms", case O#opt.fresh of
                             true -> "--fresh: each repeat of each mode and scheduler count in a VM of its own "
                                     "(the flags above): every worker's heap is fresh memory";
                             false -> "one: the modes in this order, their repeats in turn; a worker's heap "
                                      "may be a segment an exited one left in the mseg cache, written already"
                         end}],
            eptest:write_file(File, Meta, "lock_mode,threads,op,ops_per_s,ns_per_op,lock_ns,faults",
                              [[atom_to_list(M), integer_to_list(Th), atom_to_list(Op),
                                float_to_list(1.0e9 / Ns, [{decimals, 0}]), float_to_list(Ns, [{decimals, 2}]), "n/a",
                                integer_to_list(F)]
                               || {M, Th, Op, Ns, _, F} <- Rows])
    end.

%% [{Mode, Threads, Op, NsPerOp, MedianWallNs, MedianFaults}], one per operation of the mode.
rows(O = #opt{n = N, repeats = R}, Mode, Th) ->
    erlang:system_flag(schedulers_online, Th),
    Runs = [case O#opt.fresh of true -> once_fresh(O, Mode, Th); false -> once(O, Mode, Th) end
            || _ <- lists:seq(1, R)],
    [begin
         Wall = eptest:median([W || Run <- Runs, {Op1, W, _} <- Run, Op1 =:= Op]),
         Faults = eptest:median([F || Run <- Runs, {Op1, _, F} <- Run, Op1 =:= Op]),
         {Mode, Th, Op, Wall / case Op of update -> 2 * N; _ -> N end, Wall, round(Faults)}
     end || Op <- ops(O, Mode)].

%% One repeat of a mode, as the seed's session: insert into an empty table, lookup, the
%% 2-writer update on the same table; update_counter on a table of {I, 0}. The process
%% dictionary: each worker puts, then gets, in its own dictionary.
once(O = #opt{n = N}, pdict, Th) ->
    phases(O, halves(N, Th), [{put, fun(I) -> put(I, hello) end}, {get, fun(I) -> get(I) end}]);
once(O = #opt{n = N, lookup_only = true}, Mode, Th) ->
    T = table(Mode),
    Rows = phases(O, halves(N, Th), [{insert, fun(I) -> ets:insert(T, {I, hello}) end},
                                     {lookup, fun(I) -> ets:lookup(T, I) end}]),
    ets:delete(T),
    Rows;
once(O = #opt{n = N}, Mode, Th) ->
    T = table(Mode),
    Seed = phases(O, halves(N, Th), [{insert, fun(I) -> ets:insert(T, {I, hello}) end},
                                     {lookup, fun(I) -> ets:lookup(T, I) end}])
        ++ phases(O, [{1, N}, {1, N}], [{update, fun(I) -> ets:insert(T, {I, hello}) end}]),
    ets:delete(T),
    C = table(Mode),
    down(N, 1, fun(I) -> ets:insert(C, {I, 0}) end),
    Counter = phases(O, halves(N, Th), [{update_counter, fun(I) -> ets:update_counter(C, I, {2, 1}) end}]),
    ets:delete(C),
    Seed ++ Counter.

%% One repeat in a VM of its own: erl with the --flags emulator flags runs `once` there
%% (--child) and prints its rows after child_mark(). -> [{Op, Ns, MinorFaults}]
once_fresh(O = #opt{n = N, heap = Heap}, Mode, Th) ->
    Erl = filename:join([code:root_dir(), "bin", "erl"]),
    Args = string:lexemes(O#opt.flags, " ") ++
        ["-pa", filename:dirname(code:which(?MODULE)), "-s", "etsbench", "main", "-extra", "--child",
         "-n", integer_to_list(N), "--heap", integer_to_list(Heap), "--modes", atom_to_list(Mode),
         "--threads", integer_to_list(Th)] ++ [ "--lookup-only" || O#opt.lookup_only],
    Port = open_port({spawn_executable, Erl}, [{args, Args}, exit_status, binary, stderr_to_stdout]),
    Out = child_output(Port, []),
    Mark = list_to_binary(child_mark()),
    case binary:split(Out, Mark) of
        [_, Term] ->
            {ok, Tokens, _} = erl_scan:string(binary_to_list(Term)),
            {ok, Rows} = erl_parse:parse_term(Tokens),
            Rows;
        [_] -> erlang:error({etsbench_child_failed, Mode, Th, Out})
    end.

child_output(Port, Acc) ->
    receive
        {Port, {data, D}} -> child_output(Port, [D | Acc]);
        {Port, {exit_status, 0}} -> iolist_to_binary(lists:reverse(Acc));
        {Port, {exit_status, St}} -> erlang:error({etsbench_child_exit, St, iolist_to_binary(lists:reverse(Acc))})
    end.

child_mark() -> "etsbench-child-rows: ".

halves(N, Th) -> [{N * (K - 1) div Th + 1, N * K div Th} || K <- lists:seq(1, Th)].

%% One worker per key range runs every phase over its keys; each phase starts when all workers
%% are ready and is timed (nanoseconds) until all are done. -> [{Op, Ns, MinorFaults}]
phases(#opt{heap = Heap}, Ranges, Phases) ->
    Parent = self(),
    Workers = [spawn_opt(fun() -> worker(Parent, Lo, Hi, [F || {_, F} <- Phases]) end,
                         [link, {min_heap_size, Heap}]) || {Lo, Hi} <- Ranges],
    [begin
         [receive {ready, W} -> ok end || W <- Workers],
         F0 = eptest:minflt(),
         T0 = erlang:monotonic_time(nanosecond),
         [W ! go || W <- Workers],
         [receive {done, W} -> ok end || W <- Workers],
         T1 = erlang:monotonic_time(nanosecond),
         {Op, T1 - T0, eptest:minflt() - F0}
     end || {Op, _} <- Phases].

worker(_Parent, _Lo, _Hi, []) -> ok;
worker(Parent, Lo, Hi, [F | Fs]) ->
    Parent ! {ready, self()},
    receive go -> ok end,
    down(Hi, Lo, F),
    Parent ! {done, self()},
    worker(Parent, Lo, Hi, Fs).

%% The seed's dotimes: F(I) for I = Hi down to Lo.
down(I, Lo, _F) when I < Lo -> done;
down(I, Lo, F) -> F(I), down(I - 1, Lo, F).

%% The seed beside the VM, ops/s as the seed computes them: N over the wall time.
seed_table(#opt{n = N}, Rows) ->
    Get = fun(M, Th, Op) ->
                  case [W || {M1, Th1, Op1, _, W, _} <- Rows, {M1, Th1, Op1} =:= {M, Th, Op}] of
                      [W] -> io_lib:format("~12b", [round(N / (W / 1.0e9))]);
                      [] -> io_lib:format("~12s", ["-"])
                  end
          end,
    io:format("~nseed (R13B01, 2009) beside this VM; ops/s as the seed computes them (N / wall time)~n"),
    io:format("~-32s ~12s   ~-38s ~12s~n", ["seed run", "seed", "VM", "VM"]),
    [io:format("~-32s ~12b   ~-38s ~s~n", [S, round(V), io_lib:format("~s, ~b sched, ~s", [M, Th, Op]), Get(M, Th, Op)])
     || {S, V, M, Th, Op} <- [{"-smp disable insert", 855202.28, default, 1, insert},
                              {"-smp disable lookup", 1584148.38, default, 1, lookup},
                              {"-smp disable update (2 writers)", 1068965.37, default, 1, update},
                              {"smp:2 insert", 673841.28, write_concurrency, 1, insert},
                              {"smp:2 lookup", 1250201.60, write_concurrency, 1, lookup},
                              {"smp:2 update (2 writers)", 896912.47, write_concurrency, 2, update}]],
    ok.

parse([], O) -> O;
parse(["--help" | _], _) -> help;
parse(["--quick" | T], O) -> parse(T, O#opt{quick = true, n = 40000, repeats = 3});
parse(["-n", V | T], O) -> parse(T, O#opt{n = eptest:parse_int("-n", V, 2)});
parse(["--repeats", V | T], O) -> parse(T, O#opt{repeats = eptest:parse_int("--repeats", V, 1)});
parse(["--heap", V | T], O) -> parse(T, O#opt{heap = eptest:parse_int("--heap", V, 1)});
parse(["--threads", V | T], O) ->
    parse(T, O#opt{threads = [eptest:parse_int("--threads", X, 1) || X <- string:lexemes(V, ",")]});
parse(["--csv", V | T], O) -> parse(T, O#opt{csv = V});
parse(["--flags", V | T], O) -> parse(T, O#opt{flags = V});
parse(["--lookup-only" | T], O) -> parse(T, O#opt{lookup_only = true});
parse(["--fresh" | T], O) -> parse(T, O#opt{fresh = true});
parse(["--child" | T], O) -> parse(T, O#opt{child = true});
parse(["--modes", V | T], O) ->
    Known = [atom_to_list(M) || M <- modes()],
    Ms = [case lists:member(M, Known) of
              true -> list_to_atom(M);
              false -> throw({usage, "--modes: unknown mode '" ++ M ++ "' (one of " ++ lists:join(",", Known) ++ ")"})
          end || M <- string:lexemes(V, ",")],
    Ms =/= [] orelse throw({usage, "--modes: no mode given"}),
    parse(T, O#opt{modes = Ms});
parse([Bad | _], _) -> throw({usage, "bad argument '" ++ Bad ++ "'"}).

usage() ->
    "usage: erl -noshell +S 2:2 -pa DIR -s etsbench main -extra [OPTIONS]\n"
    "\n"
    "The 2009 seed on the real VM: insert, lookup, 2-writer update and update_counter of N\n"
    "{I, hello} per table type, and process-dictionary put/get, on 1 and 2 schedulers.\n"
    "  -n N             objects (default 1000000, as the seed)\n"
    "  --repeats R      repeats per figure, median reported (default 3)\n"
    "  --heap WORDS     workers' min_heap_size (default 9999999, the seed's +h)\n"
    "  --threads 1,2    scheduler counts to run (default 1,2; at most +S's schedulers)\n"
    "  --csv FILE|-     lock_mode,threads,op,ops_per_s,ns_per_op,lock_ns,faults after '#' metadata\n"
    "  --flags F        the emulator flags to record in the metadata\n"
    "  --lookup-only    insert and lookup only (put and get): no update, no update_counter\n"
    "  --modes M,...    the table types to run, of default, write_concurrency, read_concurrency,\n"
    "                   compressed, pdict (default: all, in this order)\n"
    "  --fresh          each repeat of each mode and scheduler count in a VM of its own, started\n"
    "                   with the --flags emulator flags: every worker's heap fresh memory\n"
    "  --quick          N = 40000, 3 repeats\n"
    "  --help\n".
