%% stackdepth - the tester's stack depth in each eptest pass, as the VM's GC trace reports it
%% (stack_size at gc_minor_start / gc_major_start), for scenarios/workload.c's per-pass
%% stack. Runs eptest:tester/2 once with every pass, call-tracing eptest:pass/4 to mark
%% where each pass begins; prints one line per pass: the test, the stack size most of its
%% GCs saw, and how many GCs saw it out of the pass's.
%%
%%   erlc -o DIR experiments/beam/eptest.erl experiments/beam/stackdepth.erl
%%   erl -noshell +S 2:2 -pa DIR -s stackdepth main -extra [--len L] [--shape S]
-module(stackdepth).
-export([main/0]).

main() ->
    {L, Shape} = args(init:get_plain_arguments(), 10, ints),
    Passes = [proc1, proc2, proc3, ets_insert, ets_overwrite, ets_lookup],
    Self = self(),
    Tracer = spawn_link(fun() -> collect(Self, none, #{}) end),
    {module, eptest} = code:ensure_loaded(eptest),
    1 = erlang:trace_pattern({eptest, pass, 4}, true, [local]),
    erlang:trace(new_processes, true, [garbage_collection, call, {tracer, Tracer}]),
    _ = eptest:tester({Shape, L, 1000, [], false}, Passes),
    erlang:trace(new_processes, false, [garbage_collection, call]),
    Tracer ! {done, self()},
    Counts = receive {Tracer, C} -> C end,
    io:format("test,stack_size,gcs_at_it,gcs~n"),
    [begin
         H = maps:get(T, Counts, #{}),
         Total = lists:sum(maps:values(H)),
         {S, N} = lists:last(lists:keysort(2, [{0, 0} | maps:to_list(H)])),
         io:format("~s,~b,~b,~b~n", [T, S, N, Total])
     end || T <- Passes],
    halt().

args(["--len", V | T], _, S) -> args(T, list_to_integer(V), S);
args(["--shape", V | T], L, _) -> args(T, L, list_to_atom(V));
args([], L, S) -> {L, S};
args(Other, _, _) -> io:format(standard_error, "stackdepth: bad arguments ~p~n", [Other]), halt(2).

%% The tester is the process that calls pass/4; only its GCs are counted.
collect(Parent, Cur, Acc) ->
    receive
        {trace, Pid, call, {eptest, pass, [Test | _]}} -> put(tester, Pid), collect(Parent, Test, Acc);
        {trace, Pid, K, Info} when K =:= gc_minor_start; K =:= gc_major_start ->
            case get(tester) of
                Pid when Cur =/= none ->
                    S = proplists:get_value(stack_size, Info),
                    H = maps:get(Cur, Acc, #{}),
                    collect(Parent, Cur, Acc#{Cur => H#{S => maps:get(S, H, 0) + 1}});
                _ -> collect(Parent, Cur, Acc)
            end;
        {trace, _, _, _} -> collect(Parent, Cur, Acc);
        {done, From} -> timer:sleep(100), flush(Parent, Cur, Acc, From)
    end.

flush(Parent, Cur, Acc, From) ->
    receive
        {trace, _, _, _} = M -> self() ! M, collect(Parent, Cur, Acc)
    after 0 -> From ! {self(), Acc}
    end.
