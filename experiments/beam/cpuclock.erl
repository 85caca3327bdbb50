%% cpuclock - the CPU time of the VM's OS process in ns, from the cpuclock NIF
%% (experiments/beam/cpuclock.c, built beside the experiments where erl_nif.h is: Debian's
%% erlang-dev). load/1 loads it from a directory; process_ns/0 then reads the process's clock,
%% thread_ns/0 the calling scheduler thread's, minflt/0 the OS process's minor faults (without
%% allocating on the caller's heap), nvcsw/0 its threads' voluntary context switches (a
%% scheduler going to sleep), and loaded/0 says whether they can.
-module(cpuclock).
-export([load/1, loaded/0, process_ns/0, thread_ns/0, minflt/0, nvcsw/0]).

load(Dir) ->
    case erlang:load_nif(filename:join(Dir, "cpuclock"), 0) of
        ok -> ok;
        {error, {reload, _}} -> ok;
        {error, {_, Why}} -> {error, Why}
    end.

loaded() ->
    try process_ns() of
        _ -> true
    catch error:undef -> false;
          error:nif_not_loaded -> false
    end.

process_ns() -> erlang:nif_error(nif_not_loaded).

thread_ns() -> erlang:nif_error(nif_not_loaded).

minflt() -> erlang:nif_error(nif_not_loaded).

nvcsw() -> erlang:nif_error(nif_not_loaded).
