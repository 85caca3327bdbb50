%% eras_trace - every garbage collection of eras_ep's tester and server, one CSV row each, on
%% any VM that runs eras_ep (R10B-2, R13B01, OTP 25), for setting beside the model's
%% `gctrace --tester --eras-ep` rows. Written in the subset of Erlang R10B-2 compiles.
%%
%% The tester is eras_ep:tester/4 itself, in its traced run (eras_ep's GC counts come from the
%% same run): this module is only its tracer. It answers the tester as eras_ep:tracer/1 does
%% (pass markers are atoms; {take, From} gets the per-pass counts) and logs each GC's start and
%% end fields: heap_size (htop - heap), heap_block_size, old_heap_size, old_heap_block_size,
%% mbuf_size, stack_size, recent_size, as erl_trace.c trace_gc reports them (R10B and R13B:
%% gc_start / gc_end; OTP 25: gc_minor_* / gc_major_*, its own keys besides). The phase of a
%% GC is the pass it falls in: the first pass until its marker, then each next one; `spawn`
%% is the part before the first pass cannot be told apart from it here (the marker closes a
%% pass, nothing opens one), so proc1's rows include the tester's start.
%%
%% Usage: erl -noshell -pa DIR -run eras_trace main L N OUT [VARIANT]
%% (R10B-2: its beam with -- ... -run eras_trace main ...; DIR holds eras_ep.beam and this.)
-module(eras_trace).
-export([main/1, tracer/1]).

main([Ls, Ns, Out]) -> main([Ls, Ns, Out, "base"]);
main([Ls, Ns, Out, Variant]) ->
    L = list_to_integer(Ls), N = list_to_integer(Ns),
    {Keys, Opts} = case Variant of
                       "base" -> {keys, []};
                       "hot_key" -> {hot, []};
                       "heap_" ++ W -> {keys, [{min_heap_size, list_to_integer(W)}]}
                   end,
    T = spawn(?MODULE, tracer, [self()]),
    P = spawn_opt(eras_ep, tester, [self(), L, {N, Keys}, {T, false}], Opts),
    T ! {tester, P},
    receive {P, _Result} -> ok end,
    T ! {rows, self()},
    Rows = receive {T, R} -> R end,
    Header = "proc,phase,seq,kind,heap_size_s,heap_block_size_s,old_heap_size_s,old_heap_block_size_s,"
        "mbuf_size_s,stack_size_s,recent_size_s,heap_size_e,heap_block_size_e,old_heap_size_e,"
        "old_heap_block_size_e,mbuf_size_e,stack_size_e,recent_size_e\n",
    ok = file:write_file(Out, [io_lib:format("# vm: erts ~s, ~w-byte words; L ~w, N ~w, ~s~n",
                                             [erlang:system_info(version), erlang:system_info(wordsize),
                                              L, N, Variant]),
                               Header, Rows]),
    halt(0).

keys() -> [heap_size, heap_block_size, old_heap_size, old_heap_block_size, mbuf_size, stack_size, recent_size].

tests() -> [proc1, proc2, proc3, ets_insert, ets_overwrite, ets_lookup, empty].

tracer(Parent) ->
    receive {tester, P} -> loop(P, Parent, tests(), [], [], [], {0, 0}) end.

%% Phases: the passes not yet closed; Counts: this pass's {Pid, GCs}; Passes: closed passes;
%% Rows: the CSV rows, newest first; Seq: {tester's, server's} GC numbers.
loop(P, Parent, Phases, Counts, Passes, Rows, Seq) ->
    receive
        {trace, Pid, Start, Info} when Start == gc_start; Start == gc_minor_start; Start == gc_major_start ->
            receive
                {trace, Pid, End, Info2} when End == gc_end; End == gc_minor_end; End == gc_major_end ->
                    {Who, Seq1} = who(P, Pid, Seq),
                    Row = io_lib:format("~s,~w,~w,~w,~s,~s~n",
                                        [Who, phase(Phases), seqn(Who, Seq1), kind(Start, End),
                                         fields(Info), fields(Info2)]),
                    loop(P, Parent, Phases, eras_bump(Pid, Counts), Passes, [Row | Rows], Seq1)
            end;
        {take, From} ->
            From ! {self(), lists:reverse(Passes)},
            loop(P, Parent, Phases, [], [], Rows, Seq);
        {rows, From} ->
            From ! {self(), lists:reverse(Rows)};
        stop ->
            receive {rows, From} -> From ! {self(), lists:reverse(Rows)} end;
        Test when is_atom(Test) ->
            loop(P, Parent, tl(Phases), [], [{Test, Counts} | Passes], Rows, Seq);
        _Other ->
            loop(P, Parent, Phases, Counts, Passes, Rows, Seq)
    end.

phase([Test | _]) -> Test;
phase([]) -> after_empty.

who(P, P, {T, S}) -> {"tester", {T + 1, S}};
who(_P, _Other, {T, S}) -> {"server", {T, S + 1}}.

seqn("tester", {T, _}) -> T;
seqn(_, {_, S}) -> S.

%% R10B and R13B have one start/end pair; OTP 25 says minor or major, and a minor that falls
%% through to a major is a minor start with a major end.
kind(gc_major_start, _) -> major;
kind(gc_minor_start, gc_major_end) -> major;
kind(gc_minor_start, _) -> minor;
kind(_, _) -> gc.

fields(Info) ->
    join([integer_to_list(value(K, Info)) || K <- keys()]).

value(K, Info) ->
    case lists:keysearch(K, 1, Info) of
        {value, {K, V}} -> V;
        false -> 0
    end.

join([A]) -> A;
join([A | As]) -> A ++ "," ++ join(As).

eras_bump(P, Counts) ->
    case lists:keysearch(P, 1, Counts) of
        {value, {P, C}} -> lists:keyreplace(P, 1, Counts, {P, C + 1});
        false -> [{P, 1} | Counts]
    end.
