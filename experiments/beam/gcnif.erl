%% gcnif - a tracer module that keeps garbage_collection and 'receive' events in memory
%% (experiments/beam/gcnif.c, built beside the experiments where erl_nif.h is), for
%% gctrace.erl --tester --nif: erts calls its enabled/3 and trace/5 in the traced process,
%% so tracing wakes no tracer process (gcnif.c says why that matters). load/1 loads it from
%% a directory; erlang:trace(Pid, true, [..., {tracer, gcnif, []}]) traces into it; take/0
%% returns the events recorded so far, oldest first ({Pid, recv, Class, Us} and
%% {Pid, GcTag, Info, Us}) and forgets them.
-module(gcnif).
-export([load/1, enabled/3, trace/5, take/0]).

load(Dir) ->
    case erlang:load_nif(filename:join(Dir, "gcnif"), 0) of
        ok -> ok;
        {error, {reload, _}} -> ok;
        {error, {_, Why}} -> {error, Why}
    end.

enabled(_Tag, _State, _Tracee) -> erlang:nif_error(nif_not_loaded).

trace(_Tag, _State, _Tracee, _Term, _Opts) -> erlang:nif_error(nif_not_loaded).

take() -> erlang:nif_error(nif_not_loaded).
