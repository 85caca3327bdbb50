%% bytetest - a minimal reproducer: after a light BIF (here ets:lookup/2) the x86-64 JIT of
%% OTP 25 decides whether to collect by comparing the free heap in BYTES with the heap
%% fragments' size in WORDS, so a process collects only once its fragments hold about 8 times
%% its free heap. The interpreter (and the arm64 JIT) use the C macro ERTS_IS_GC_DESIRED
%% (erl_gc.h), `stop - htop < mbuf_sz` in words: they collect as soon as the fragments
%% exceed the free heap.
%%
%% The JIT's code (erts/emulator/beam/jit/x86/instr_bif.cpp, emit_call_light_bif_shared):
%%     a.mov(ARG2, x86::qword_ptr(c_p, offsetof(Process, mbuf_sz)));
%%     a.lea(ARG1, x86::qword_ptr(HTOP, ARG2, 0, 3));   % HTOP + mbuf_sz + 3: bytes
%%     a.cmp(E, ARG1);
%%     a.jl(gc_after_bif_call);
%% asmjit's qword_ptr(base, index, shift, offset) gets shift 0 and offset 3; scaling the
%% words to bytes is shift 3 (HTOP + 8 * mbuf_sz).
%%
%% What it does: per length L, a fresh process runs 1000 times `_ = ets:lookup(T, 1)` on a
%% stored {1, lists:seq(1, L)} (each result is a 2L + 5-word heap fragment) and drops each
%% result, traced for garbage_collection. At every GC the trace gives the heap block, the
%% words in use, the stack and the fragments; fragments / free heap at the GC's start is at
%% least 8 under the byte compare and at least 1 under the word compare. It prints the GCs of
%% the 1000 lookups (as erlang:statistics(garbage_collection) counts them) and the smallest
%% and the median of that ratio.
%%
%% Usage: erlc bytetest.erl && erl -noshell -s bytetest main [-extra L ...]
%%        (default lengths 100, 1000, 10000); on a root with beam.emu: erl -emu_flavor emu ...
-module(bytetest).
-export([main/0]).

main() ->
    Lens = case init:get_plain_arguments() of
               [] -> [100, 1000, 10000];
               As -> [list_to_integer(A) || A <- As]
           end,
    io:format("# ~s flavor, OTP ~s, ~s; 1000 lookups per length in a fresh process~n",
              [erlang:system_info(emu_flavor), erlang:system_info(otp_release),
               erlang:system_info(system_architecture)]),
    io:format("len,result_words,gcs,min_mbuf_per_free,median_mbuf_per_free,compare~n"),
    lists:foreach(fun one/1, Lens),
    halt().

one(L) ->
    T = ets:new(t, [set, public]),
    true = ets:insert(T, {1, lists:seq(1, L)}),
    Events = traced(T, 1000),
    ets:delete(T),
    Starts = starts(Events),
    Ratios = lists:sort([Mbuf / max(Block - Used - Stack, 1) || {Block, Used, Stack, Mbuf} <- Starts]),
    Min = hd(Ratios ++ [0]),
    Median = case Ratios of [] -> 0; _ -> lists:nth((length(Ratios) + 1) div 2, Ratios) end,
    io:format("~b,~b,~b,~.2f,~.2f,~s~n",
              [L, 2 * L + 5, length(Starts), Min, Median, if Min >= 7.5 -> "bytes"; true -> "words" end]).

traced(T, N) ->
    Self = self(),
    P = spawn(fun() -> receive go -> ok end, loop(T, N), Self ! {done, self()} end),
    erlang:trace(P, true, [garbage_collection, {tracer, Self}]),
    P ! go,
    collect(P, []).

loop(_T, 0) -> ok;
loop(T, N) -> _ = ets:lookup(T, 1), loop(T, N - 1).

collect(P, Acc) ->
    receive
        {done, P} -> lists:reverse(Acc);
        {trace, P, Kind, Info} -> collect(P, [{Kind, Info} | Acc])
    end.

%% One entry per collection (a minor GC that falls through to a major one is one, as
%% statistics(garbage_collection) counts it): the state at its start.
starts([{gc_minor_start, I}, {gc_minor_end, _}, {gc_major_start, _} | Es]) -> [state(I) | starts(skip_end(Es))];
starts([{K, I} | Es]) when K =:= gc_minor_start; K =:= gc_major_start -> [state(I) | starts(Es)];
starts([_ | Es]) -> starts(Es);
starts([]) -> [].

skip_end([{gc_major_end, _} | Es]) -> Es;
skip_end(Es) -> Es.

state(I) ->
    G = fun(K) -> proplists:get_value(K, I, 0) end,
    {G(heap_block_size), G(heap_size), G(stack_size), G(mbuf_size)}.
