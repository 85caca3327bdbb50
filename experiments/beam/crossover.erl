%% crossover - where ets:lookup/2 starts to lose to a client-server round trip, on the real VM:
%% the lookup/proc ratio over a grid of payload lengths, per shape (the twin of the model's
%% crossover experiment). Each point is eptest's passes in one fresh tester (insert, one proc
%% pass, lookup), repeated; proc_us and lookup_us are medians over the repeats of the same runs.
%%
%% Usage: erl -noshell -pa DIR -s crossover main -extra [--quick] [--csv FILE] [--points FILE]
%%        [--counts FILE] ... (--help)
-module(crossover).
-export([main/0, main/1]).

-record(opt, {shapes = eptest:shapes(), lens = default, repeats = 5, budget = 10000000,
              max_iterations = 1000, csv = "-", points, counts, era = "vm-otp25", flags = "", quick = false}).

default_lens() -> lists:usort([10, 100, 300, 3000, 30000 | lists:seq(1000, 10000, 250)]).
quick_lens() -> [10, 100, 1000, 3000, 10000, 30000].

main() -> main(init:get_plain_arguments()).

main(Args) -> eptest:cli("crossover", Args, fun(A) -> parse(A, #opt{}) end, fun usage/0, fun run/1).

%% Iterations per point: as many as the word budget allows (at most max_iterations), so a
%% big payload costs about as much as a small one and the table stays within memory.
iterations(#opt{budget = B, max_iterations = Max}, Words) -> max(20, min(Max, B div Words)).

run(O = #opt{repeats = R}) ->
    Lens = case O#opt.lens of default -> default_lens(); Ls -> Ls end,
    Points = [point(O, Shape, L, R) || Shape <- O#opt.shapes, L <- Lens],
    Rows = [[atom_to_list(Sh), integer_to_list(L), integer_to_list(N), O#opt.era, fmt(P), fmt(Lk),
             float_to_list(Lk / max(P, 1), [{decimals, 3}])] || {Sh, L, N, P, Lk, _} <- Points],
    Cross = [crossing(Sh, [{L, Lk / max(P, 1)} || {S, L, _, P, Lk, _} <- Points, S =:= Sh])
             || Sh <- O#opt.shapes],
    Meta = eptest:metadata("crossover (lookup/proc ratio per payload length, real VM)", O#opt.flags) ++
        [{"grid", lists:join(" ", [integer_to_list(L) || L <- Lens])},
         {"iterations", io_lib:format("min(~b, max(20, ~b words / flat size of {I, Data})) per point, "
                                      "so every point copies about the same volume", [O#opt.max_iterations, O#opt.budget])},
         {"repeats", io_lib:format("~b fresh testers per point; proc_us and lookup_us are medians "
                                   "(proc: one pass of N calls; lookup: N ets:lookup of keys 1..N)", [R])},
         {"crossover", "smallest L with lookup_us > proc_us (first) and smallest L from which it "
                       "holds for every larger L of the grid (stable); in the --points CSV"}]
        ++ [{"crossover_" ++ atom_to_list(Sh), io_lib:format("first ~s, stable ~s", [F, S])}
            || {Sh, F, S} <- Cross],
    eptest:write_file(O#opt.csv, Meta, "shape,payload_len,iterations,era,proc_us,lookup_us,ratio", Rows),
    case O#opt.points of
        undefined -> ok;
        File -> eptest:write_file(File, Meta, "shape,era,first_crossover_len,stable_crossover_len",
                                  [[atom_to_list(Sh), O#opt.era, F, S] || {Sh, F, S} <- Cross])
    end,
    case O#opt.counts of
        undefined -> ok;
        CFile -> eptest:write_file(CFile, Meta, counts_header(),
                                   [[atom_to_list(Sh), integer_to_list(L), integer_to_list(N), O#opt.era
                                     | [integer_to_list(round(V)) || V <- Cs]]
                                    || {Sh, L, N, _, _, Cs} <- Points])
    end,
    [io:format(standard_error, "crossover ~-8s first ~-6s stable ~s~n", [Sh, F, S]) || {Sh, F, S} <- Cross],
    ok.

point(O, Shape, L, R) ->
    N = iterations(O, erts_debug:flat_size({1, eptest:payload(Shape, L)})),
    Runs = [eptest:tester({Shape, L, N, [], false}, [ets_insert, proc1, ets_lookup]) || _ <- lists:seq(1, R)],
    Us = fun(T) -> eptest:median([U || Run <- Runs, {T1, U, _, _} <- Run, T1 =:= T]) end,
    Count = fun(T, K) -> eptest:median([maps:get(K, C) || Run <- Runs, {T1, _, C, _} <- Run, T1 =:= T]) end,
    {Shape, L, N, Us(proc1), Us(ets_lookup),
     [Count(T, K) || T <- [proc1, ets_lookup], K <- [faults, mseg_create, gcs]]}.

%% The counters behind each point (medians over the same repeats), to see why a ratio jumps.
counts_header() ->
    "shape,payload_len,iterations,era,proc_faults,proc_carriers_mapped,proc_gcs,"
    "lookup_faults,lookup_carriers_mapped,lookup_gcs".

%% [{L, Ratio}] in increasing L -> {Shape, First, Stable} ("none" when lookup never loses).
crossing(Shape, Ratios) ->
    First = case [L || {L, R} <- Ratios, R > 1] of [] -> "none"; [F | _] -> integer_to_list(F) end,
    Stable = case lists:takewhile(fun({_, R}) -> R > 1 end, lists:reverse(Ratios)) of
                 [] -> "none";
                 Tail -> integer_to_list(element(1, lists:last(Tail)))
             end,
    {Shape, First, Stable}.

fmt(X) -> float_to_list(float(X), [{decimals, 1}]).

parse([], O) -> O;
parse(["--help" | _], _) -> help;
parse(["--quick" | T], O) -> parse(T, O#opt{quick = true, lens = quick_lens(), repeats = 3, budget = 2000000});
parse(["--shape", V | T], O) ->
    case [S || S <- eptest:shapes(), atom_to_list(S) =:= V] of
        [S] -> parse(T, O#opt{shapes = [S]});
        [] -> throw({usage, "bad --shape '" ++ V ++ "'"})
    end;
parse(["--lens", V | T], O) ->
    parse(T, O#opt{lens = lists:usort([eptest:parse_int("--lens", X, 1) || X <- string:lexemes(V, ",")])});
parse(["--repeats", V | T], O) -> parse(T, O#opt{repeats = eptest:parse_int("--repeats", V, 1)});
parse(["--budget", V | T], O) -> parse(T, O#opt{budget = eptest:parse_int("--budget", V, 1)});
parse(["--iterations", V | T], O) -> parse(T, O#opt{max_iterations = eptest:parse_int("--iterations", V, 1)});
parse(["--csv", V | T], O) -> parse(T, O#opt{csv = V});
parse(["--points", V | T], O) -> parse(T, O#opt{points = V});
parse(["--counts", V | T], O) -> parse(T, O#opt{counts = V});
parse(["--era", V | T], O) -> parse(T, O#opt{era = V});
parse(["--flags", V | T], O) -> parse(T, O#opt{flags = V});
parse([Bad | _], _) -> throw({usage, "bad argument '" ++ Bad ++ "'"}).

usage() ->
    "usage: erl -noshell -pa DIR -s crossover main -extra [OPTIONS]\n"
    "\n"
    "lookup_us / proc_us over payload lengths, per shape; the crossover is where it passes 1.\n"
    "  --csv FILE|-     shape,payload_len,iterations,era,proc_us,lookup_us,ratio (default -)\n"
    "  --points FILE    shape,era,first_crossover_len,stable_crossover_len\n"
    "  --counts FILE    per point: minor faults, mseg carriers mapped and GCs of both passes\n"
    "  --shape S        one shape only (default: ints floats tuple nested strings binary map)\n"
    "  --lens L1,L2,..  the grid (default 10 100 300 1000..10000 step 250 3000 30000)\n"
    "  --iterations N   at most N calls per pass (default 1000)\n"
    "  --budget W       words copied per pass that set N = min(N, W / flat size) (default 10000000)\n"
    "  --repeats R      fresh testers per point, medians (default 5)\n"
    "  --quick          grid 10 100 1000 3000 10000 30000, 3 repeats, budget 2000000\n"
    "  --era E, --flags F   recorded in the CSV\n"
    "  --help\n".
