%% eras_trace - every garbage collection of eras_ep's tester and server, one CSV row each, on
%% any VM that runs eras_ep (R10B-2, R13B01, OTP 25), for setting beside the model's
%% `gctrace --tester --eras-ep` rows. Written in the subset of Erlang R10B-2 compiles.
%%
%% The tester is eras_ep:tester/4 itself, in its traced run (eras_ep's GC counts come from the
%% same run): this module is only its tracer. It answers the tester as eras_ep:tracer/1 does
%% (pass markers are atoms; on a VM with erlang:trace_delivered, R13B and OTP 25, each is
%% acknowledged with `marked` once the pass's events are in, which the tester waits for; {take,
%% From} gets the per-pass counts), so the tester's heap runs as in eras_ep's own traced run, and
%% logs each GC's start and
%% end fields: heap_size (htop - heap), heap_block_size, old_heap_size, old_heap_block_size,
%% mbuf_size, stack_size, recent_size, as erl_trace.c trace_gc reports them (R10B and R13B:
%% gc_start / gc_end; OTP 25: gc_minor_* / gc_major_*, its own keys besides). The phase of a
%% GC is the pass it falls in: the first pass until its marker, then each next one; `spawn`
%% is the part before the first pass cannot be told apart from it here (the marker closes a
%% pass, nothing opens one), so proc1's rows include the tester's start.
%%
%% Usage: erl -noshell -pa DIR -run eras_trace main L N OUT [VARIANT [REPEATS [spawn]]]
%% (REPEATS, default 1: untraced testers first, as eras_ep's timed runs precede its traced one:
%% the first tester of a VM also loads the timer module, whose loading runs on its heap)
%% (R10B-2: its beam with -- ... -run eras_trace main ...; DIR holds eras_ep.beam and this.)
-module(eras_trace).
-export([main/1, tracer/1]).

main([Ls, Ns, Out]) -> main([Ls, Ns, Out, "base", "1"]);
main([Ls, Ns, Out, Variant]) -> main([Ls, Ns, Out, Variant, "1"]);
main([Ls, Ns, Out, Variant, Rs]) -> main([Ls, Ns, Out, Variant, Rs, "marks"]);
main([Ls, Ns, Out, Variant, Rs, From]) ->
    L = list_to_integer(Ls), N = list_to_integer(Ns),
    {Keys, Opts} = case Variant of
                       "base" -> {keys, []};
                       "hot_key" -> {hot, []};
                       "heap_" ++ W -> {keys, [{min_heap_size, list_to_integer(W)}]}
                   end,
    %% eras_ep's timed runs first, as its traced run follows them (a VM's state can carry over)
    [untraced(L, N, Keys, Opts) || _ <- lists:seq(1, list_to_integer(Rs))],
    Delivered = has_trace_delivered(),
    T = spawn(?MODULE, tracer, [Delivered]),
    P = spawn_opt(eras_ep, tester, [self(), L, {N, Keys}, {T, Delivered}], Opts),
    %% "spawn": the tester traced from its first instruction (this process sets the flags, so
    %% its heap is untouched), its GCs before the tracing of its own in proc1's rows
    case From of
        "spawn" -> erlang:trace(P, true, [garbage_collection, {tracer, T}]);
        "marks" -> ok
    end,
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

%% One of eras_ep's timed runs, its meter and all.
untraced(L, N, Keys, Opts) -> _ = eras_ep:run(L, N, {Keys, Opts}, false), ok.

keys() -> [heap_size, heap_block_size, old_heap_size, old_heap_block_size, mbuf_size, stack_size, recent_size].

tests() -> [proc1, proc2, proc3, ets_insert, ets_overwrite, ets_lookup, empty].

%% As eras_ep:has_trace_delivered/0, asked outside the tester.
has_trace_delivered() ->
    case catch erlang:trace_delivered(self()) of
        Ref when is_reference(Ref) -> receive {trace_delivered, _, Ref} -> true end;
        _ -> false
    end.

tracer(Delivered) ->
    receive {tester, P} -> loop({P, Delivered}, tests(), [], [], [], {0, 0}) end.

%% Phases: the passes not yet closed; Counts: this pass's {Pid, GCs}; Passes: closed passes;
%% Rows: the CSV rows, newest first; Seq: {tester's, server's} GC numbers.
loop(T, Phases, Counts, Passes, Rows, Seq) ->
    receive
        {trace, _Pid, Start, _Info} = Ev when Start == gc_start; Start == gc_minor_start; Start == gc_major_start ->
            {Counts1, Rows1, Seq1} = gc(T, Ev, Phases, Counts, Rows, Seq),
            loop(T, Phases, Counts1, Passes, Rows1, Seq1);
        {take, From} ->
            From ! {self(), lists:reverse(Passes)},
            loop(T, Phases, [], [], Rows, Seq);
        {rows, From} ->
            From ! {self(), lists:reverse(Rows)};
        Test when is_atom(Test) ->
            {Counts1, Rows1, Seq1} = close(T, Phases, Counts, Rows, Seq),
            loop(T, tl(Phases), [], [{Test, Counts1} | Passes], Rows1, Seq1);
        _Other ->
            loop(T, Phases, Counts, Passes, Rows, Seq)
    end.

%% One GC: its start event is in; its end follows.
gc({P, _}, {trace, Pid, Start, Info}, Phases, Counts, Rows, Seq) ->
    receive
        {trace, Pid, End, Info2} when End == gc_end; End == gc_minor_end; End == gc_major_end ->
            {Who, Seq1} = who(P, Pid, Seq),
            Row = io_lib:format("~s,~w,~w,~w,~s,~s~n",
                                [Who, phase(Phases), seqn(Who, Seq1), kind(Start, End), fields(Info), fields(Info2)]),
            {eras_bump(Pid, Counts), [Row | Rows], Seq1}
    end.

%% As eras_ep's close/2: where the VM can say so, the pass's events are all in before the
%% tester goes on.
close({_P, false}, _Phases, Counts, Rows, Seq) -> {Counts, Rows, Seq};
close({_P, true} = T, Phases, Counts, Rows, Seq) ->
    Ref = erlang:trace_delivered(all),
    await(T, Ref, Phases, Counts, Rows, Seq).

await({P, _} = T, Ref, Phases, Counts, Rows, Seq) ->
    receive
        {trace_delivered, all, Ref} ->
            P ! marked,
            {Counts, Rows, Seq};
        {trace, _Pid, Start, _Info} = Ev when Start == gc_start; Start == gc_minor_start; Start == gc_major_start ->
            {Counts1, Rows1, Seq1} = gc(T, Ev, Phases, Counts, Rows, Seq),
            await(T, Ref, Phases, Counts1, Rows1, Seq1)
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
