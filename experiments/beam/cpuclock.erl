%% cpuclock - the CPU time of the VM's OS process in ns, from the cpuclock NIF
%% (experiments/beam/cpuclock.c, built beside the experiments where erl_nif.h is: Debian's
%% erlang-dev). load/1 loads it from a directory; process_ns/0 then reads the process's clock,
%% thread_ns/0 the calling scheduler thread's, minflt/0 the OS process's minor faults (without
%% allocating on the caller's heap), nvcsw/0 its threads' voluntary context switches (a
%% scheduler going to sleep), dirty_ns/0 and dirty_faults/0 the CPU time and minor faults of
%% its dirty CPU schedulers' threads, carrier/1 and carrier_dirty/1 {ThreadNs, WallNs} of a
%% fresh mapping of Bytes mapped, its first page written and unmapped, on this scheduler or on
%% a dirty CPU scheduler (cpuclock.c says why); hold/1 keeps the caller running until another
%% process calls release/0 or Ms pass (messages to it meanwhile go to heap fragments);
%% loaded/0 says whether they can.
-module(cpuclock).
-export([load/1, loaded/0, process_ns/0, thread_ns/0, minflt/0, nvcsw/0, dirty_ns/0, dirty_faults/0, carrier/1,
         carrier_dirty/1, hold/1, release/0]).

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

dirty_ns() -> erlang:nif_error(nif_not_loaded).

dirty_faults() -> erlang:nif_error(nif_not_loaded).

carrier(_Bytes) -> erlang:nif_error(nif_not_loaded).

carrier_dirty(_Bytes) -> erlang:nif_error(nif_not_loaded).

hold(_Ms) -> erlang:nif_error(nif_not_loaded).

release() -> erlang:nif_error(nif_not_loaded).
