#!/usr/bin/env escript
%% The golden term vectors (tests/data/terms.tsv), made by the running VM. For each expression of
%% the input file (one per line; blank lines and lines starting with % skipped): the term it
%% builds, its ~w text, the flat size of its canonical form, its shared size as built, its
%% external bytes, its bytes under term_to_binary's `compressed` (zlib level 6: the plain form
%% again when compressing does not make it smaller), and which of those columns follow the VM
%% instance rather than the term (instance_specific):
%%   - a remote node's pid, port or ref prints the node's dist channel, the atom index of the
%%     node's name: `literal` is instance-specific (its other columns name the node by name);
%%   - a hashmap with an atom in a key orders and splits its nodes by the hash of the atom's
%%     table index: its text, sizes and bytes follow the atom table (only ext_bytes does not).
%% `--check EXPRS TSV` compares a committed TSV with what this VM gives: every column that is a
%% property of the term byte for byte, the instance-specific ones normalised (channel numbers
%% masked; an atom-keyed hashmap's text and bytes must read back as the same value).
-mode(compile).

-define(COLUMNS, ["expr", "literal", "flat_size_words", "shared_size_words", "ext_bytes",
                  "ext_hex", "ext_compressed_hex", "instance_specific"]).

main([File]) ->
    io:put_chars([lists:join("\t", ?COLUMNS), "\n"]),
    lists:foreach(fun(E) -> io:put_chars([lists:join("\t", row(E)), "\n"]) end, exprs(File));
main(["--check", File, Tsv]) ->
    halt(check(exprs(File), Tsv));
main(_) ->
    io:format(standard_error, "usage: vectors.escript EXPRESSIONS_FILE > terms.tsv~n"
                              "       vectors.escript --check EXPRESSIONS_FILE TSV~n", []),
    halt(2).

exprs(File) ->
    {ok, Bin} = file:read_file(File),
    [binary_to_list(L) || L <- binary:split(Bin, <<"\n">>, [global]), L =/= <<>>, binary:first(L) =/= $%].

%% One row's columns, as text.
row(Expr) ->
    T = eval(Expr),
    Ext = term_to_binary(T, [{minor_version, 2}]),
    Canon = binary_to_term(Ext),
    [Expr, io_lib:format("~w", [T]), integer_to_list(erts_debug:flat_size(Canon)),
     integer_to_list(shared_size(T, Canon)), integer_to_list(byte_size(Ext)), hex(Ext),
     hex(term_to_binary(T, [compressed, {minor_version, 2}])), instance_columns(T)].

%% Uppercase hex, or "-" past 512 bytes.
hex(Bin) when byte_size(Bin) > 512 -> "-";
hex(Bin) -> [io_lib:format("~2.16.0B", [B]) || <<B>> <= Bin].

%% erts_debug:size/1 of the term as the expression built it (sharing counted once), with its
%% binaries counted in the canonical form: erl_eval builds <<...>> as a writable refc binary,
%% binary_to_term as a heap binary, and only the sharing is the expression's to decide.
shared_size(T, Canon) ->
    erts_debug:size(T) - erts_debug:flat_size(T) + erts_debug:flat_size(Canon).

eval(Expr) ->
    {ok, Toks, _} = erl_scan:string(Expr ++ "."),
    {ok, [Form]} = erl_parse:parse_exprs(Toks),
    {value, V, _} = erl_eval:expr(Form, erl_eval:new_bindings()),
    V.

%% The columns of T's row that follow the VM instance (see the top of this file).
instance_columns(T) ->
    case {atom_hashed(T, false), remote(T)} of
        {true, _} -> "literal,flat_size_words,shared_size_words,ext_hex,ext_compressed_hex";
        {false, true} -> "literal";
        {false, false} -> "-"
    end.

%% Does a hashmap in T have an atom anywhere in a key?
atom_hashed(A, InKey) when is_atom(A) -> InKey;
atom_hashed([H | Tl], InKey) -> atom_hashed(H, InKey) orelse atom_hashed(Tl, InKey);
atom_hashed(T, InKey) when is_tuple(T) -> atom_hashed(tuple_to_list(T), InKey);
atom_hashed(M, InKey) when is_map(M) ->
    Hashed = InKey orelse map_size(M) > 32,
    lists:any(fun({K, V}) -> atom_hashed(K, Hashed) orelse atom_hashed(V, InKey) end, maps:to_list(M));
atom_hashed(_, _) -> false.

%% Does T hold another node's pid, port or ref?
remote(X) when is_pid(X); is_port(X); is_reference(X) -> node(X) =/= node();
remote([H | Tl]) -> remote(H) orelse remote(Tl);
remote(T) when is_tuple(T) -> remote(tuple_to_list(T));
remote(M) when is_map(M) -> remote(maps:to_list(M));
remote(_) -> false.

%% --check: 0 when every row agrees, 1 otherwise (each difference printed).
check(Exprs, Tsv) ->
    {ok, Bin} = file:read_file(Tsv),
    [Header | Lines] = [binary_to_list(L) || L <- binary:split(Bin, <<"\n">>, [global]), L =/= <<>>],
    Committed = [string:split(L, "\t", all) || L <- Lines],
    Fails = case string:split(Header, "\t", all) of
                ?COLUMNS -> check_rows(Exprs, Committed, 1, []);
                Other -> [io_lib:format("header is ~p, expected ~p", [Other, ?COLUMNS])]
            end,
    [io:format("FAIL: ~ts~n", [F]) || F <- lists:reverse(Fails)],
    Kinds = [lists:nth(8, R) || R <- Committed, length(R) =:= 8],
    Count = fun(K) -> length([x || K1 <- Kinds, K1 =:= K]) end,
    Exact = Count("-"),
    io:format("~s: ~b rows; ~b byte for byte, ~b with a remote node's channel number masked in their "
              "text, ~b atom-keyed hashmaps compared as values (text and bytes read back; their "
              "sizes and node order follow the atom table)~n",
              [case Fails of [] -> "ok"; _ -> "FAIL" end, length(Committed), Exact, Count("literal"),
               length(Kinds) - Exact - Count("literal")]),
    case Fails of [] -> 0; _ -> 1 end.

check_rows([], [], _, Acc) -> Acc;
check_rows([], Extra, N, Acc) -> [io_lib:format("row ~b on: no expression makes these ~b rows", [N, length(Extra)]) | Acc];
check_rows(Missing, [], N, Acc) -> [io_lib:format("row ~b on: ~b expressions have no row", [N, length(Missing)]) | Acc];
check_rows([E | Es], [C | Cs], N, Acc) ->
    check_rows(Es, Cs, N + 1, check_row(E, C, N) ++ Acc).

check_row(Expr, C, N) when length(C) =/= 8 ->
    [io_lib:format("row ~b (~ts): ~b columns, expected 8", [N, Expr, length(C)])];
check_row(Expr, C, N) ->
    T = eval(Expr),
    Mine = [lists:flatten(X) || X <- row(Expr)],
    Inst = string:split(lists:last(Mine), ",", all),
    [io_lib:format("row ~b (~ts): ~s is ~ts, the VM gives ~ts", [N, Expr, Col, short(Was), short(Is)])
     || {Col, Was, Is} <- lists:zip3(?COLUMNS, C, Mine), not same(Col, Was, Is, T, Inst)].

same(Col, Was, Is, T, Inst) ->
    case {lists:member(Col, Inst), Col, lists:member("flat_size_words", Inst)} of
        {false, _, _} -> Was =:= Is;
        {true, "literal", false} -> mask(Was) =:= mask(Is);
        {true, "literal", true} -> read(Was) =:= {ok, T};
        {true, "ext_hex", true} -> Was =:= "-" orelse binary_to_term(binary:decode_hex(list_to_binary(Was))) =:= T;
        {true, "ext_compressed_hex", true} -> same("ext_hex", Was, Is, T, Inst);
        {true, _, true} -> true  % a size: the shape of this instance's atom table
    end.

%% A remote node's channel number, C in <C.N.S>, #Port<C.N> and #Ref<C...>, as the letter C.
mask(Text) -> re:replace(Text, "<[1-9][0-9]*\\.", "<C.", [global, {return, list}]).

read(Text) ->
    try {ok, eval(Text)} catch _:_ -> unreadable end.

short(S) when length(S) > 60 -> lists:sublist(S, 57) ++ "...";
short(S) -> S.
