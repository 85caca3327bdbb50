%% light_bif_gc - when does a process collect after a light BIF left its result in a heap
%% fragment? Stand-alone: `erlc light_bif_gc.erl && erl -noshell -s light_bif_gc main`
%% (optionally `-extra L1 L2 ...`, default 100 1000 10000; on an emulator with the interpreter
%% flavor also `erl -emu_flavor emu ...`).
%%
%% For each length L a fresh process calls `_ = ets:lookup(T, 1)` 1000 times on a stored
%% {1, lists:seq(1, L)} and drops every result. ets:lookup/2 builds its 2L + 5-word result in
%% a heap fragment, so the only thing that makes the process collect is the GC test after the
%% BIF: ERTS_IS_GC_DESIRED (erl_gc.h) collects once the fragments (mbuf_sz, words) exceed the
%% free heap (stop - htop, words). The process is traced for garbage_collection; at each
%% collection's start the trace gives heap_block_size, heap_size, stack_size and mbuf_size,
%% so mbuf_per_free = mbuf_size / (heap_block_size - heap_size - stack_size) is what the test
%% saw. A word test collects at the first result that pushes it over 1; a test that takes the
%% free heap in bytes and the fragments in words waits until it is over 8 (the word size).
%%
%% Prints one CSV line per length:
%%   len,result_words,gcs,min_mbuf_per_free,median_mbuf_per_free,compare
%% gcs: collections during the 1000 lookups (a minor one that goes on to a major one counts
%% once, as erlang:statistics(garbage_collection) counts them); compare: "bytes" when every
%% collection waited for over 7.5 times the free heap, "words" when one did not, "none"
%% without a collection.
-module(light_bif_gc).
-export([main/0]).

-define(LOOKUPS, 1000).

main() ->
    Lens = case init:get_plain_arguments() of
               [] -> [100, 1000, 10000];
               Args -> [list_to_integer(A) || A <- Args]
           end,
    io:format("# OTP ~s, erts ~s, ~s, ~s flavor; ~b lookups per length, each in a fresh process~n",
              [erlang:system_info(otp_release), erlang:system_info(version),
               erlang:system_info(system_architecture), erlang:system_info(emu_flavor), ?LOOKUPS]),
    io:format("len,result_words,gcs,min_mbuf_per_free,median_mbuf_per_free,compare~n"),
    [measure(L) || L <- Lens],
    halt().

measure(L) ->
    Tab = ets:new(?MODULE, [set, public]),
    true = ets:insert(Tab, {1, lists:seq(1, L)}),
    Events = run_traced(Tab),
    ets:delete(Tab),
    Ratios = lists:sort([Mbuf / max(Block - Used - Stack, 1)
                         || {Block, Used, Stack, Mbuf} <- gc_starts(Events)]),
    {Min, Median} = case Ratios of
                        [] -> {0.0, 0.0};
                        _ -> {hd(Ratios), lists:nth((length(Ratios) + 1) div 2, Ratios)}
                    end,
    Compare = if Ratios =:= [] -> "none"; Min > 7.5 -> "bytes"; true -> "words" end,
    io:format("~b,~b,~b,~.2f,~.2f,~s~n", [L, 2 * L + 5, length(Ratios), Min, Median, Compare]).

%% The lookups run in a process of their own, traced from before its first call.
run_traced(Tab) ->
    Parent = self(),
    Pid = spawn(fun() ->
                        receive start -> ok end,
                        lookups(Tab, ?LOOKUPS),
                        Parent ! {finished, self()}
                end),
    1 = erlang:trace(Pid, true, [garbage_collection, {tracer, Parent}]),
    Pid ! start,
    receive_events(Pid, []).

lookups(_Tab, 0) -> ok;
lookups(Tab, N) ->
    _ = ets:lookup(Tab, 1),
    lookups(Tab, N - 1).

%% Trace messages may still be on their way when the process says it has finished:
%% erlang:trace_delivered/1 answers once every one of them has arrived.
receive_events(Pid, Acc) ->
    receive
        {trace, Pid, Event, Info} -> receive_events(Pid, [{Event, Info} | Acc]);
        {finished, Pid} -> receive_events(Pid, erlang:trace_delivered(Pid), Acc)
    end.

receive_events(Pid, Ref, Acc) ->
    receive
        {trace, Pid, Event, Info} -> receive_events(Pid, Ref, [{Event, Info} | Acc]);
        {trace_delivered, Pid, Ref} -> lists:reverse(Acc)
    end.

%% The heap at the start of each collection; a minor collection that ends and is followed at
%% once by a major one is one collection, seen at the minor one's start.
gc_starts([{gc_minor_start, Info}, {gc_minor_end, _}, {gc_major_start, _} | Rest]) ->
    [heap(Info) | gc_starts(drop_major_end(Rest))];
gc_starts([{Start, Info} | Rest]) when Start =:= gc_minor_start; Start =:= gc_major_start ->
    [heap(Info) | gc_starts(Rest)];
gc_starts([_ | Rest]) -> gc_starts(Rest);
gc_starts([]) -> [].

drop_major_end([{gc_major_end, _} | Rest]) -> Rest;
drop_major_end(Rest) -> Rest.

heap(Info) ->
    Get = fun(Key) -> proplists:get_value(Key, Info, 0) end,
    {Get(heap_block_size), Get(heap_size), Get(stack_size), Get(mbuf_size)}.
