#!/usr/bin/env bash
# The tester's compiled code the model follows (gctrace --frames: scenarios/workload.c
# tc_ep_frames) against the code itself: `erlc -S experiments/beam/eptest.erl` for eptest's
# functions, beam_disasm of the installed stdlib for timer:tc/1 and of the emulator's
# preloaded erlang module for erlang:convert_time_unit/3. Each entry names a function,
# an instruction and a number: "allocate" the first allocate or allocate_heap's stack words,
# "trimN" the N-th trim's dropped words, "make_fun3_N" the N-th make_fun3's free variables.
# A change to eptest.erl that moves a frame or a fun fails here until the table follows.
# Skipped (77) without erl and erlc. $1: build directory root; $2: tests/data (unused).
set -u
exp="$1/experiments"
here=$(cd "$(dirname "$0")" && pwd)
src="$here/../experiments/beam/eptest.erl"
command -v erlc >/dev/null 2>&1 && command -v erl >/dev/null 2>&1 || { echo "erl not found: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }

erlc -S -o "$tmp" "$src" || { echo "FAIL: erlc -S $src"; exit 1; }
"$exp/gctrace" --frames >"$tmp/frames" || { echo "FAIL: gctrace --frames"; exit 1; }
[ -s "$tmp/frames" ]; check "gctrace --frames prints the table" $?

# The number an instruction of Module:Function/Arity gives, from a listing of
# "{function, Name, Arity, _}." blocks (erlc -S, or the same printed from beam_disasm).
derive() { # listing function arity instr
    awk -v fn="$2" -v ar="$3" -v instr="$4" '
        /^\{function, / {
            name = $0; sub(/^\{function, /, "", name); sub(/, [0-9]+, [0-9]+\}\.$/, "", name)
            gsub(/^'\''|'\''$/, "", name)
            a = $0; sub(/^\{function, .*, /, "", a); sub(/, [0-9]+\}\.$/, "", a)
            n = split($0, parts, ", "); arity = parts[n - 1]
            inside = (name == fn && arity == ar); trims = 0; funs = 0; next
        }
        !inside { next }
        instr == "allocate" && /\{allocate(_heap)?,[0-9]+,/ {
            s = $0; sub(/.*\{allocate(_heap)?,/, "", s); sub(/,.*/, "", s); print s; exit
        }
        instr ~ /^trim/ && /\{trim,[0-9]+,/ {
            trims++
            if ("trim" trims == instr) { s = $0; sub(/.*\{trim,/, "", s); sub(/,.*/, "", s); print s; exit }
        }
        instr ~ /^make_fun3_/ && /\{make_fun3,/ {
            funs++
            if ("make_fun3_" funs == instr) {
                s = $0 # a long environment is wrapped over several lines
                while (s !~ /\]\}\}\.?$/ && (getline more) > 0)
                    s = s more
                sub(/.*\{list,\[/, "", s); sub(/\]\}\}\.?$/, "", s)
                print (s == "" ? 0 : gsub(/\{[a-z_]+,/, "", s)); exit
            }
        }' "$1"
}

# A module's code as the running emulator has it (code:get_object_code: the installed stdlib's
# timer, the preloaded erlang), in erlc -S's layout.
disasm() { # module
    erl -noshell -eval '
        [M] = [list_to_atom(A) || A <- init:get_plain_arguments()],
        {M, Bin, _} = code:get_object_code(M),
        {beam_file, _, _, _, _, Code} = beam_disasm:file(Bin),
        [begin
             io:format("{function, ~p, ~b, ~b}.~n", [F, A, L]),
             [io:format("    ~w.~n", [I]) || I <- Is]
         end || {function, F, A, L, Is} <- Code],
        halt().' -extra "$1" >"$tmp/$1.S" 2>/dev/null
}
disasm timer
[ -s "$tmp/timer.S" ]; check "beam_disasm of timer" $?
disasm erlang
[ -s "$tmp/erlang.S" ]; check "beam_disasm of erlang's preloaded code" $?

while read -r module function arity instr words; do
    case "$module" in
    eptest) listing="$tmp/eptest.S" ;;
    timer) listing="$tmp/timer.S" ;;
    erlang) listing="$tmp/erlang.S" ;;
    *) check "unknown module $module" 1; continue ;;
    esac
    got=$(derive "$listing" "$function" "$arity" "$instr")
    [ "$got" = "$words" ]
    check "$module:$function/$arity $instr: model $words, compiled ${got:-none}" $?
done <"$tmp/frames"

# A frame moved in the source is caught: one more variable kept across call_loop's receive.
sed 's/^call_loop(S, N) ->$/call_loop(S, N) -> X = erlang:unique_integer(),/; s/receive {S, _Data} -> call_loop(S, N - 1) end\./receive {S, _Data} -> put(x, X), call_loop(S, N - 1) end./' \
    "$src" >"$tmp/eptest.erl"
mkdir -p "$tmp/moved"
if erlc -S -o "$tmp/moved" "$tmp/eptest.erl"; then
    got=$(derive "$tmp/moved/eptest.S" call_loop 2 allocate)
    want=$(awk '$2 == "call_loop" && $4 == "allocate" { print $5 }' "$tmp/frames")
    [ -n "$got" ] && [ "$got" != "$want" ]
    check "a changed call_loop/2 frame is noticed (model $want, changed source ${got:-none})" $?
else
    check "erlc -S of the changed source" 1
fi

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
