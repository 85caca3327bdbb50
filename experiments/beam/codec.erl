%% codec - term_to_binary/1 and binary_to_term/1 per byte on the real VM, the twin of
%% `copysweep --codec` (codec/ext.c): the same eptest payloads (eptest:payload/2), the same
%% payload lengths (copysweep --codec prints them in its L column), ns per byte of the
%% encoding. The shapes are eptest's (map, more than 32 keys, is a hashmap at every size
%% copysweep --codec runs) and flatmap: L flatmaps of 16 small-int keys, copysweep's flatmaps.
%%
%% Each SHAPE:L runs in a fresh process whose min_heap_size holds a batch of decoded results
%% beside the payload, and whose min_bin_vheap_size holds a batch of encodings, so a batch
%% collects at most at its start (erlang:garbage_collect/0 runs before each, untimed). A batch
%% is K = 500000 div ext_bytes calls back to back (at least 1), timed with
%% erlang:monotonic_time(nanosecond); a round is an encode batch then a decode batch (as
%% copysweep --codec and codecpeer alternate theirs), a warm-up round first, then --batches
%% rounds (default 20, experiments/codec_payload.h's); the figures are the median and the
%% minimum over the batches of the time per call divided by byte_size(term_to_binary(Data))
%% (on a shared machine a batch the OS interrupted is only ever longer).
%%
%% Usage: erlc -o DIR experiments/beam/eptest.erl experiments/beam/codec.erl
%%        erl -noshell +S 2:2 -pa DIR -s codec main -extra [--batches N] SHAPE:L ...
%% prints, per SHAPE:L, the CSV row codec,shape,payload_len,flat_words,ext_bytes,ns_per_byte,iqr,
%% min_ns_per_byte
%% for encode and for decode (copysweep --codec's columns).
-module(codec).
-export([main/0]).

main() ->
    {Batches, Specs} = args(init:get_plain_arguments(), 20, []),
    io:format("codec,shape,payload_len,flat_words,ext_bytes,ns_per_byte,iqr,min_ns_per_byte~n"),
    lists:foreach(fun({Shape, L}) -> run(Shape, L, Batches) end, Specs),
    halt(0).

args([], B, Acc) -> {B, lists:reverse(Acc)};
args(["--batches", N | T], _, Acc) -> args(T, list_to_integer(N), Acc);
args([Spec | T], B, Acc) ->
    case string:split(Spec, ":") of
        [S, L] ->
            case [Sh || Sh <- shapes(), atom_to_list(Sh) =:= S] of
                [Shape] -> args(T, B, [{Shape, list_to_integer(L)} | Acc]);
                [] -> usage(Spec)
            end;
        _ ->
            usage(Spec)
    end.

usage(Spec) ->
    io:format(standard_error, "codec: expected SHAPE:L (SHAPE one of ~p), got '~s'~n", [shapes(), Spec]),
    halt(2).

shapes() -> eptest:shapes() ++ [flatmap].

payload(flatmap, L) -> [maps:from_list([{K, I} || K <- lists:seq(0, 15)]) || I <- lists:seq(1, L)];
payload(Shape, L) -> eptest:payload(Shape, L).

run(Shape, L, Batches) ->
    Probe = payload(Shape, L),
    Flat = erts_debug:flat_size(Probe),
    Bytes = byte_size(term_to_binary(Probe)),
    K = max(1, 500000 div Bytes),
    Heap = (K + 3) * (Flat + 8) + 1000,
    Parent = self(),
    {Pid, Ref} = spawn_opt(fun() -> Parent ! {self(), measure(Shape, L, K, Batches)} end,
                           [monitor, {min_heap_size, Heap}, {min_bin_vheap_size, (K + 2) * (Bytes div 8 + 8)}]),
    receive
        {Pid, {Enc, Dec}} ->
            demonitor(Ref, [flush]),
            row(encode, Shape, L, Flat, Bytes, Enc),
            row(decode, Shape, L, Flat, Bytes, Dec);
        {'DOWN', Ref, process, Pid, Why} ->
            io:format(standard_error, "codec: ~p:~b failed: ~p~n", [Shape, L, Why]),
            halt(1)
    end.

row(Codec, Shape, L, Flat, Bytes, Samples) ->
    PerByte = [S / Bytes || S <- Samples],
    io:format("~s,~s,~b,~b,~b,~.4f,~.4f,~.4f~n",
              [Codec, Shape, L, Flat, Bytes, eptest:median(PerByte), eptest:iqr(PerByte), lists:min(PerByte)]).

measure(Shape, L, K, Batches) ->
    Data = payload(Shape, L),
    Bin = term_to_binary(Data),
    Pairs = rounds(fun() -> term_to_binary(Data) end, fun() -> binary_to_term(Bin) end, K, Batches + 1),
    %% The first round is the warm-up.
    {Enc, Dec} = lists:unzip(tl(Pairs)),
    {Enc, Dec}.

%% Rounds of an encode batch then a decode batch, as copysweep --codec alternates them.
rounds(_E, _D, _K, 0) -> [];
rounds(E, D, K, N) ->
    TE = batch(E, K),
    TD = batch(D, K),
    [{TE, TD} | rounds(E, D, K, N - 1)].

batch(F, K) ->
    erlang:garbage_collect(),
    T0 = erlang:monotonic_time(nanosecond),
    loop(F, K),
    T1 = erlang:monotonic_time(nanosecond),
    (T1 - T0) / K.

loop(_F, 0) -> ok;
loop(F, K) ->
    _ = F(),
    loop(F, K - 1).
