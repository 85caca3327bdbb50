%% vmetsblocks - the bytes ets_alloc's blocks take for the objects of a fresh table, on the VM
%% that runs it, for tests/cli_etsblocks.sh and tests/data/ets-blocks.tsv.
%%
%% For each N: a fresh public set, then N inserts of {I, hello} (I = N..1, as the 2009 post's
%% loops count), and ets_alloc's block bytes after the inserts less before: every instance's
%% blocks, with their header words (alloc_util's blocks_size; OTP 25 reports it per type as
%% size). The difference of two N is what each object's block takes (erl_db_hash.c
%% new_dbterm: HashDbTerm with its DbTerm, in one ets_alloc block). Prints "N<TAB>bytes" lines.
%% Written in the Erlang that R10B-2 compiles.
%% Usage: erl -noshell -pa DIR -run vmetsblocks main N...
-module(vmetsblocks).
-export([main/1]).

main(Ns) ->
    lists:foreach(fun(S) -> N = list_to_integer(S), io:format("~w\t~w~n", [N, grown(N)]) end, Ns),
    halt(0).

grown(N) ->
    T = ets:new(vmetsblocks, [set, public]),
    B0 = blocks(),
    insert_n(T, N),
    B1 = blocks(),
    ets:delete(T),
    B1 - B0.

insert_n(_, 0) -> ok;
insert_n(T, N) -> ets:insert(T, {N, hello}), insert_n(T, N - 1).

blocks() -> lists:sum(find(erlang:system_info({allocator, ets_alloc}))).

%% R10B-2 and R13B01: {blocks_size, Now, ...} in each carrier kind's list; OTP 25: {blocks,
%% [{Type, [{count, ...}, {size, Now, ...}]}]}. The carrier pool is not a carrier kind.
find({blocks_size, S, _, _}) when is_integer(S) -> [S];
find({blocks_size, S}) when is_integer(S) -> [S];
find({mbcs_pool, _}) -> [];
find({blocks, Ts}) when is_list(Ts) -> [S || {_, Ps} <- Ts, {size, S, _, _} <- Ps];
find(T) when is_tuple(T) -> find(tuple_to_list(T));
find(L) when is_list(L) -> lists:append([find(X) || X <- L]);
find(_) -> [].
