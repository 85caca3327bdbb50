%% vmpdict - the size of a process dictionary's array on the VM that runs it, for
%% tests/cli_pdict.sh and tests/data/pdict-array.tsv.
%%
%% For each N: a fresh process (min_heap_size 4000000 words: no collection, so the heap's size
%% stays what it was) puts N keys, put(I, hello) with I = N..1 as the 2009 post's loops count,
%% and reports process_info(self(), memory) after the puts less before the first: the one
%% thing that changed is the dictionary, which erts counts as its array (erts_dicts_mem_size:
%% PD_SZ2BYTES(slots), the struct's header and the slots). Prints "N<TAB>bytes" lines.
%% Written in the Erlang that R13B01 compiles.
%% Usage: erl -noshell -pa DIR -run vmpdict main N...
-module(vmpdict).
-export([main/1]).

main(Ns) ->
    Me = self(),
    lists:foreach(
      fun(S) ->
              N = list_to_integer(S),
              P = spawn_opt(fun() -> Me ! {self(), grown(N)} end, [{min_heap_size, 4000000}]),
              receive {P, {Bytes, 0}} -> io:format("~w\t~w~n", [N, Bytes]);
                      {P, {_, Gcs}} -> io:format("vmpdict: ~w collections at N = ~w~n", [Gcs, N]), halt(1)
              end
      end, Ns),
    halt(0).

grown(N) ->
    {memory, M0} = process_info(self(), memory),
    put_n(N),
    {memory, M1} = process_info(self(), memory),
    {garbage_collection, G} = process_info(self(), garbage_collection),
    {value, {minor_gcs, Gcs}} = lists:keysearch(minor_gcs, 1, G),
    {M1 - M0, Gcs}.

put_n(0) -> ok;
put_n(N) -> put(N, hello), put_n(N - 1).
