#!/usr/bin/env escript
%% The VM's side of tests/cli_etscompressed.sh: what a [set, compressed] table costs per
%% object and what its lookup allocates, beside the model's numbers ('vmterms ets').
%%
%%   shapes L      NAME<TAB>HEX lines: term_to_binary of the named shapes at length L (eptest's
%%                 payloads and smaller ones: atoms, a float, small and refc binaries, a
%%                 bitstring over a refc binary, an empty, a small and a large map, a pid, a
%%                 bignum, a fun)
%%   check MODEL [--table]
%%                 MODEL from 'vmterms ets': for T = binary_to_term(HEX), the VM's numbers for
%%                 {1, T} and {T, T}: ets:info(Tab, memory) after one insert into a new plain
%%                 and a new compressed set, less before; erts_debug:flat_size of the compressed
%%                 lookup's result; the words that lookup left on the heap of a process (its
%%                 heap_size and mbuf_size, garbage_collection_info, read by another process
%%                 while it waits, before and after, less the same reading around nothing).
%%                 Each must equal the model's; where CMP is 0 (a hashmap whose layout follows
%%                 this instance's atom and node tables) only the sizes that do not hold the
%%                 term's own flat size are compared (the compressed {1, T}). A term holding a
%%                 local fun of a module that is not loaded (tests/gen.c's 'golden') is
%%                 skipped: this VM finds such a fun as an ETS key from no other process, and
%%                 runs over many of them crashed it. Nor is {T, T} compared for a T that holds
%%                 a remote pid, port or ref: this VM found none of those keys from another
%%                 process either. The atom count must be below 65536 (an atom's index takes 3
%%                 bytes on both sides).
%%                 --table also prints every row: name, then VM and model side by side.
%%
%% Prints one line per difference and 'N passed, M failed, K skipped'; exit 1 on any failure.
-mode(compile).

main(["shapes", L]) ->
    [io:format("~s\t~s~n", [N, binary:encode_hex(term_to_binary(T))]) || {N, T} <- shapes(list_to_integer(L))],
    halt(0);
main(["check", File | Opts]) ->
    case erlang:system_info(atom_count) < 65536 of
        true -> ok;
        false -> io:format("check: ~b atoms: past 65535 an atom index takes 4 bytes~n", [erlang:system_info(atom_count)]), halt(1)
    end,
    Table = Opts =:= ["--table"],
    Table andalso io:format("~-14s ~15s ~15s ~15s ~15s ~15s ~15s~n",
                            [name, "plain mem vm/tc", "comp mem vm/tc", "flat vm/tc", "heap vm/tc",
                             "keyed mem vm/tc", "keyed heap"]),
    Results = [check_line(L, Table) || L <- lines(File)],
    Failed = length([x || {fail, _} <- Results]),
    Skipped = length([x || skip <- Results]),
    [io:format("check: ~ts~n", [Msg]) || {fail, Msg} <- lists:sublist([R || {fail, _} = R <- Results], 20)],
    io:format("check: ~b passed, ~b failed, ~b skipped~n", [length(Results) - Failed - Skipped, Failed, Skipped]),
    halt(if Failed =:= 0 -> 0; true -> 1 end);
main(_) ->
    io:format(standard_error, "usage: vmets.escript shapes L | check MODEL [--table]~n", []),
    halt(2).

shapes(L) ->
    Big = binary:copy(<<7>>, 8 * L),
    [{ints, lists:seq(1, L)},
     {floats, [float(X) || X <- lists:seq(1, L)]},
     {tuple, list_to_tuple(lists:seq(1, L))},
     {nested, lists:foldl(fun(X, Acc) -> {X, Acc} end, [], lists:seq(L, 1, -1))},
     {strings, [integer_to_list(X) || X <- lists:seq(1, L)]},
     {binary, <<0:(8 * L)>>},
     {map, maps:from_list([{I, I} || I <- lists:seq(1, L)])},
     {atom, hello},
     {atoms, [ok, error, undefined, true, false]},
     {float, 1.5},
     {bignum, 1 bsl 200},
     {heap_binary, <<1, 2, 3>>},
     {binary_32, binary:copy(<<1>>, 32)},
     {binary_33, binary:copy(<<1>>, 33)},
     {refc_binary, Big},
     {bitstring, <<Big/binary, 5:3>>},
     {empty_map, #{}},
     {small_map, #{a => 1, b => "two", c => {3}}},
     {pid, self()},
     {mixed, {[1, 2.5, "s"], <<"bin">>, #{k => [v]}, -7, 1 bsl 70}},
     {'fun', erl_eval_fun("fun() -> ok end.")}].

%% A local fun of a module every node has loaded (erl_eval's), unlike this script's own.
erl_eval_fun(Text) ->
    {ok, Tokens, _} = erl_scan:string(Text),
    {ok, [Expr]} = erl_parse:parse_exprs(Tokens),
    {value, F, _} = erl_eval:expr(Expr, []),
    F.

lines(File) ->
    {ok, Bin} = file:read_file(File),
    [L || L <- binary:split(Bin, <<"\n">>, [global]), L =/= <<>>].

check_line(Line, Table) ->
    [Name, Hex | Nums] = binary:split(Line, <<"\t">>, [global]),
    T = binary_to_term(binary:decode_hex(Hex)),
    case unloaded_fun(T) of
        true -> skip;
        false -> check_term(Name, Hex, T, [binary_to_integer(N) || N <- Nums], Table)
    end.

unloaded_fun(F) when is_function(F) ->
    {module, M} = erlang:fun_info(F, module),
    erlang:fun_info(F, type) =:= {type, local} andalso not erlang:module_loaded(M);
unloaded_fun(T) when is_tuple(T) -> unloaded_fun(tuple_to_list(T));
unloaded_fun(M) when is_map(M) -> unloaded_fun(maps:to_list(M));
unloaded_fun([H | R]) -> unloaded_fun(H) orelse unloaded_fun(R);
unloaded_fun(_) -> false.

%% Whether T holds a pid, port or ref of another node.
remote(X) when is_pid(X); is_port(X); is_reference(X) -> node(X) =/= node();
remote(T) when is_tuple(T) -> remote(tuple_to_list(T));
remote(M) when is_map(M) -> remote(maps:to_list(M));
remote([H | R]) -> remote(H) orelse remote(R);
remote(_) -> false.

check_term(Name, Hex, T, [Plain, Comp, Flat, Heap, CompK, HeapK, Cmp], Table) ->
    {VPlain, _, _} = vm(T, 1, []),
    {VComp, VFlat, VHeap} = vm(T, 1, [compressed]),
    {VCompK, _, VHeapK} = vm(T, T, [compressed]),
    Table andalso io:format("~-14s ~15s ~15s ~15s ~15s ~15s ~15s~n",
                            [Name | [io_lib:format("~b/~b", [V, M]) || {V, M} <- [{VPlain, Plain}, {VComp, Comp}, {VFlat, Flat},
                                                                                   {VHeap, Heap}, {VCompK, CompK}, {VHeapK, HeapK}]]]),
    Keyed = Cmp =:= 1 andalso not remote(T),
    Pairs = [{"compressed memory of {1, T}", VComp, Comp}] ++
        [P || Cmp =:= 1, P <- [{"plain memory of {1, T}", VPlain, Plain}, {"lookup flat_size", VFlat, Flat},
                               {"lookup heap words", VHeap, Heap}]] ++
        [P || Keyed, P <- [{"compressed memory of {T, T}", VCompK, CompK}, {"keyed lookup heap words", VHeapK, HeapK}]],
    case [io_lib:format("~s ~b, the model's ~b", [What, V, M]) || {What, V, M} <- Pairs, V =/= M] of
        [] -> pass;
        Diffs -> {fail, [Name, ": ", lists:join("; ", Diffs), " (", Hex, ")"]}
    end.

%% For the object {Key, T} in a new set with Opts: the memory one insert adds, the flat size of
%% the lookup's [Object], and the words that lookup leaves on a waiting process's heap.
vm(T, Key, Opts) ->
    Tab = ets:new(vmets, [set, public | Opts]),
    M0 = ets:info(Tab, memory),
    true = ets:insert(Tab, {Key, T}),
    Mem = ets:info(Tab, memory) - M0,
    Flat = erts_debug:flat_size(ets:lookup(Tab, Key)),
    Heap = lookup_words(Tab, Key),
    ets:delete(Tab),
    {Mem, Flat, Heap}.

%% A process, its heap large enough to need no collection, does the lookup between two
%% readings of its heap; a third reading, around nothing but the same message, is subtracted.
lookup_words(Tab, Key) ->
    Self = self(),
    P = spawn_opt(fun() -> worker(Self, Tab, Key) end, [{min_heap_size, 1000000}]),
    W0 = step(P),
    W1 = step(P),
    W2 = step(P),
    P ! stop,
    (W1 - W0) - (W2 - W1).

worker(Parent, Tab, Key) ->
    receive go -> ok end,
    Parent ! {self(), done},
    receive go -> ok end,
    R = ets:lookup(Tab, Key),
    Parent ! {self(), done},
    receive go -> ok end,
    Parent ! {self(), done},
    receive stop -> R end.

step(P) ->
    P ! go,
    receive {P, done} -> ok end,
    wait_waiting(P),
    {garbage_collection_info, I} = process_info(P, garbage_collection_info),
    proplists:get_value(heap_size, I) + proplists:get_value(mbuf_size, I).

wait_waiting(P) ->
    case process_info(P, status) of
        {status, waiting} -> ok;
        _ -> erlang:yield(), wait_waiting(P)
    end.
