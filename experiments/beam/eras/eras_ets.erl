%% eras_ets - the 2009 "how fast is ETS" loops (the seed's ets_test, R13B01) and the same loops
%% on the process dictionary, in the subset of Erlang that R10B-2's compiler takes, so one
%% source runs on R13B01 (plain and smp), OTP 25 and R10B-2.
%%
%% ets_test is the seed's: a public set with {write_concurrency, true} (R10B-2 has no such
%% option: there the table is a plain public set, and the metadata says so); insert is N
%% ets:insert(E, {I, hello}) with I counted down from N by the seed's dotimes; lookup N
%% ets:lookup(E, I); update two writers, this process and one it spawns, each inserting all N
%% keys again, timed until both are done. pdict is the same three loops with put(I, hello),
%% get(I), and put(I, hello) by two processes, each into its own dictionary (the second writer
%% starts empty, as a dictionary cannot be shared). Each loop's figure is the seed's: N / wall
%% time, in operations per second, with erlang:now() around it.
%%
%% loop is the emulator's part of every one of those operations that a model of the table
%% does not execute: the same dotimes over a fun that returns its argument (the counter, the
%% recursive call and the fun call; not the BIF's own entry), timed last in the same worker,
%% so that a model's table time plus this loop is a whole operation.
%%
%% Every repeat runs in a fresh process with a fresh table (and an empty dictionary): the
%% seed's +h 9999999 gives it and the second writer a heap that holds every insert's tuple,
%% so no loop collects. A process's heap is a segment the VM's mseg cache keeps when the
%% process exits and hands to the next process's heap, pages already touched: a benchmark run
%% after another in the same VM starts on the first one's heap, so run.sh gives each benchmark
%% its own VM (BENCH below).
%%
%% faults: the OS process's minor page faults over the loop (field 10 of /proc/self/stat, read
%% by eras_ep:minflt/0 outside the timed part), every thread: the fresh heap, dictionary and
%% table pages the loop wrote, the count a model's loop is compared on.
%%
%% Needs eras_ep.beam beside it (the medians, the number format and the fault counter).
%% Usage: erl +h 9999999 -noshell -pa DIR -run eras_ets main VM N REPEATS OUT [VARIANT [BENCH]]
%% VARIANT (default base, the seed's table): plain_set, a public set without
%% write_concurrency (R13B01: one table lock for every operation instead of the bucket locks).
%% BENCH: ets_test, pdict (base only) or all (the default: ets_test, then pdict in the same VM).
%% The table size, the other variable, is N itself.
-module(eras_ets).
-export([main/1, worker/4, writer/4]).
%% OTP 25 deprecates now/0; the seed had no other clock, and older compilers ignore this
-compile({nowarn_deprecated_function, [{erlang, now, 0}]}).

main([Vm, Ns, Rs, Out]) -> main([Vm, Ns, Rs, Out, "base"]);
main([Vm, Ns, Rs, Out, Variant]) -> main([Vm, Ns, Rs, Out, Variant, "all"]);
main([Vm, Ns, Rs, Out, Variant, Bench]) ->
    N = list_to_integer(Ns), R = list_to_integer(Rs),
    Opts = case Variant of
               "base" -> table_opts();
               "plain_set" -> [public];
               _ -> io:format("eras_ets: unknown variant ~s (base, plain_set)~n", [Variant]), halt(2)
           end,
    %% the process dictionary has no table: its loops run once, with the base rows
    Bs = case {Variant, Bench} of
             {"base", "all"} -> [ets_test, pdict];
             {"base", "pdict"} -> [pdict];
             {_, "pdict"} -> io:format("eras_ets: pdict runs with the base variant only~n"), halt(2);
             {_, "ets_test"} -> [ets_test];
             {_, "all"} -> [ets_test];
             _ -> io:format("eras_ets: unknown benchmark ~s (ets_test, pdict, all)~n", [Bench]), halt(2)
         end,
    Runs = [{B, [run(B, N, Opts) || _ <- lists:seq(1, R)]} || B <- Bs],
    Rows = [row(Vm, Variant, B, Op, N, R, [us(Op, Run) || Run <- BRuns], [gcs(Op, Run) || Run <- BRuns],
                [cpu(Op, Run) || Run <- BRuns], [faults(Op, Run) || Run <- BRuns])
            || {B, BRuns} <- Runs, Op <- [insert, lookup, update, loop]],
    ok = file:write_file(Out, [header(Out), Rows], [append]),
    halt(0);
main(Args) ->
    io:format("usage: eras_ets main VM N REPEATS OUT [base|plain_set [ets_test|pdict|all]] (got ~p)~n", [Args]),
    halt(2).

run(B, N, Opts) ->
    P = spawn(?MODULE, worker, [self(), B, N, Opts]),
    receive {P, Result} -> Result end.

%% The seed's table; R10B's ets:new refuses write_concurrency.
table_opts() ->
    case catch ets:delete(ets:new(probe, [public, {write_concurrency, true}])) of
        true -> [public, {write_concurrency, true}];
        _ -> [public]
    end.

worker(Parent, B, N, Opts) ->
    E = case B of ets_test -> ets:new(?MODULE, Opts); pdict -> none end,
    Ins = timed(fun() -> dotimes(N, insert_fun(B, E)) end),
    Look = timed(fun() -> dotimes(N, lookup_fun(B, E)) end),
    Upd = timed(fun() -> update(B, E, N) end),
    Loop = timed(fun() -> dotimes(N, fun(I) -> I end) end),
    case E of none -> ok; _ -> ets:delete(E) end,
    Parent ! {self(), [{insert, Ins}, {lookup, Look}, {update, Upd}, {loop, Loop}]}.

insert_fun(ets_test, E) -> fun(I) -> ets:insert(E, {I, hello}) end;
insert_fun(pdict, _E) -> fun(I) -> put(I, hello) end.

lookup_fun(ets_test, E) -> fun(I) -> ets:lookup(E, I) end;
lookup_fun(pdict, _E) -> fun(I) -> get(I) end.

update(B, E, N) ->
    P = self(),
    spawn(?MODULE, writer, [P, B, E, N]),
    dotimes(N, insert_fun(B, E)),
    receive done -> ok end.

writer(P, B, E, N) ->
    dotimes(N, insert_fun(B, E)),
    P ! done.

dotimes(0, _) -> done;
dotimes(N, F) -> F(N), dotimes(N - 1, F).

%% {Us, GCs of every process, CPU ms of the whole VM, minor faults of the OS process} over
%% the loop. The CPU time (statistics(runtime), every scheduler thread) is what a loaded
%% machine moves least.
timed(F) ->
    F0 = eras_ep:minflt(),
    {G0, _, _} = statistics(garbage_collection),
    {C0, _} = statistics(runtime),
    T0 = erlang:now(),
    F(),
    T1 = erlang:now(),
    {C1, _} = statistics(runtime),
    {G1, _, _} = statistics(garbage_collection),
    F1 = eras_ep:minflt(),
    {timer:now_diff(T1, T0), G1 - G0, C1 - C0, F1 - F0}.

us(Op, Run) -> {value, {Op, {Us, _, _, _}}} = lists:keysearch(Op, 1, Run), Us.
gcs(Op, Run) -> {value, {Op, {_, G, _, _}}} = lists:keysearch(Op, 1, Run), G.
cpu(Op, Run) -> {value, {Op, {_, _, C, _}}} = lists:keysearch(Op, 1, Run), C.
faults(Op, Run) -> {value, {Op, {_, _, _, F}}} = lists:keysearch(Op, 1, Run), F.

%% ---- output ----------------------------------------------------------------------------

header(Out) ->
    case file:read_file_info(Out) of
        {ok, _} -> [];
        _ ->
            ["# vm_version: erts ", erlang:system_info(version), "\n",
             "# system_version: ", [C || C <- erlang:system_info(system_version), C =/= $\n], "\n",
             "# wordsize: ", integer_to_list(erlang:system_info(wordsize)), "\n",
             "# table: ", io_lib:format("~w", [table_opts()]), "\n",
             "# gcs: statistics(garbage_collection) over the loop, every process, median of the runs; "
             "cpu_ms: statistics(runtime) over the loop, every scheduler thread, median; faults: the OS "
             "process's minor faults over the loop, median\n",
             "vm,variant,benchmark,test,payload_len,iterations,repeats,median_us,min_us,max_us,ops_per_s,ns_per_op,gcs,cpu_ms,faults\n"]
    end.

row(Vm, Variant, B, Op, N, R, Us, Gs, Cs, Fs) ->
    Med = median(Us),
    io_lib:format("~s,~s,~w,~w,0,~w,~w,~s,~w,~w,~s,~s,~w,~s,~w~n",
                  [Vm, Variant, B, Op, N, R, fmt(Med), lists:min(Us), lists:max(Us),
                   fmt(N * 1000000 / Med), fmt(Med * 1000 / N), round(median(Gs)), fmt(median(Cs)),
                   round(median(Fs))]).

median(Xs) -> eras_ep:median(Xs).
fmt(X) -> eras_ep:fmt(X).
