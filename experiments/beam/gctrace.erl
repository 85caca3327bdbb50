%% gctrace - the garbage collections of the 7.2 loop (beam-internals.md) on the real VM, for
%% setting beside the model's trajectory (build/*/experiments/heaptrace --csv -).
%%
%% A fresh process runs Lookups times `_ = ets:lookup(T, 1)` on a stored {1, lists:seq(1, Len)}
%% and drops each result. It is traced for garbage_collection and running events, and
%% mseg_alloc's call counters are read before and after. The loop itself sends nothing and
%% calls no other BIF: a per-lookup process_info or send would be one more BIF return that
%% can collect, and it changes the trajectory (it collects after every fragment).
%%
%% Usage: erl -noshell -pa DIR -s gctrace main -extra [--len L] [--lookups N] [--summary]
%% Output, CSV lines on stdout (without --summary, every event first):
%%   gc,Kind,heap_size,heap_block_size,old_heap_size,old_heap_block_size,mbuf_size,recent_size
%%       Kind: minor_start, minor_end, major_start, major_end (the trace's words)
%%   sched,in|out,M:F/A
%%   summary,Len,Lookups,Gcs,Minor,Major,MsegCreate,MsegAlloc,MsegCacheHits,MsegRealloc,
%%           MsegCreateResize,MsegDestroy
%%       Gcs counts collections as erlang:statistics(garbage_collection) does (a minor that
%%       falls through to a major is one); the mseg_alloc counts are deltas over the loop,
%%       summed over its instances (other processes add a few).
-module(gctrace).
-export([main/0]).

main() ->
    Args = init:get_plain_arguments(),
    Len = arg("--len", Args, 10000),
    N = arg("--lookups", Args, 20),
    T = ets:new(t, [set, public]),
    true = ets:insert(T, {1, lists:seq(1, Len)}),
    Self = self(),
    Before = mseg_counts(),
    Pid = spawn(fun() -> receive go -> ok end, loop(T, N), Self ! done end),
    erlang:trace(Pid, true, [garbage_collection, running, {tracer, Self}]),
    Pid ! go,
    Events = collect([]),
    After = mseg_counts(),
    {Minor, Major} = gcs([K || {gc, K, _} <- Events], 0, 0),
    lists:member("--summary", Args) orelse lists:foreach(fun print/1, Events),
    io:format("summary,~b,~b,~b,~b,~b,~s~n",
              [Len, N, Minor + Major, Minor, Major,
               lists:join(",", [integer_to_list(A - B) || {A, B} <- lists:zip(After, Before)])]),
    halt().

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

count(K, Calls) -> lists:sum([G * 1000000000 + C || {Name, G, C} <- Calls, Name =:= K]).

arg(Flag, Args, Default) ->
    case lists:dropwhile(fun(A) -> A =/= Flag end, Args) of
        [_, V | _] -> list_to_integer(V);
        _ -> Default
    end.
