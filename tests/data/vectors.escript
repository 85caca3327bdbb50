#!/usr/bin/env escript
%% Writes the golden term vectors (tests/data/terms.tsv) from the running VM: for each
-mode(compile).
%% expression of the input file (one per line; blank lines and lines starting with % skipped)
%% the term it builds, its ~w text, flat size of its canonical form, shared size as built,
%% its external bytes, and its bytes under term_to_binary's `compressed` (zlib level 6: the
%% plain form again when compressing does not make it smaller).
main([File]) ->
    {ok, Bin} = file:read_file(File),
    io:put_chars("expr\tliteral\tflat_size_words\tshared_size_words\text_bytes\text_hex\text_compressed_hex\n"),
    lists:foreach(fun row/1, [L || L <- binary:split(Bin, <<"\n">>, [global]),
                                   L =/= <<>>, binary:first(L) =/= $%]);
main(_) ->
    io:format(standard_error, "usage: vectors.escript EXPRESSIONS_FILE~n", []),
    halt(2).

row(Line) ->
    Expr = binary_to_list(Line),
    T = eval(Expr),
    Ext = term_to_binary(T, [{minor_version, 2}]),
    Canon = binary_to_term(Ext),
    io:format("~ts\t~w\t~b\t~b\t~b\t~s\t~s~n",
              [Expr, T, erts_debug:flat_size(Canon), shared_size(T, Canon), byte_size(Ext), hex(Ext),
               hex(term_to_binary(T, [compressed, {minor_version, 2}]))]).

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
