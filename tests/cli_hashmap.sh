#!/usr/bin/env bash
# Large hashmaps byte for byte against the installed VM: `termcopy encode` of a map's ~w text
# equals term_to_binary(M, [{minor_version, 2}]) of the map the VM built, for 10,000 and
# 50,000 keys of several kinds; `termcopy decode` of the VM's bytes prints the VM's ~w text,
# and re-encoding them gives them back. No erl: exit 77.
# $1: directory of the termcopy binary; $2: tests/data (unused).
set -u
bin="$1/termcopy"
command -v erl >/dev/null 2>&1 || { echo "erl not found: skipping; apt-get install erlang-nox"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass=0
check() { # description, then the condition's exit status
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi
}

n=0
for gen in '[{I, I} || I <- lists:seq(1, 10000)]' \
           '[{I, I} || I <- lists:seq(1, 50000)]' \
           '[{integer_to_binary(I), [I]} || I <- lists:seq(1, 10000)]' \
           '[{I / 3, {I}} || I <- lists:seq(1, 10000)]' \
           '[{{I, integer_to_list(I)}, <<I:24>>} || I <- lists:seq(1, 10000)]'; do
    n=$((n + 1))
    erl -noshell -eval "M = maps:from_list($gen),
        ok = file:write_file(\"$tmp/$n.txt\", io_lib:format(\"~w\", [M])),
        ok = file:write_file(\"$tmp/$n.hex\", [io_lib:format(\"~2.16.0B\", [B]) || <<B>> <= term_to_binary(M, [{minor_version, 2}])]),
        halt()." || { check "erl failed on $gen" 1; continue; }
    "$bin" encode - < "$tmp/$n.txt" | tr -d '\n' > "$tmp/$n.tc"
    cmp -s "$tmp/$n.hex" "$tmp/$n.tc"; check "encode of maps:from_list($gen) differs from the VM's bytes" $?
    "$bin" decode - < "$tmp/$n.hex" > "$tmp/$n.back"
    [ "$(cat "$tmp/$n.back")" = "$(cat "$tmp/$n.txt")" ]; check "decode of the VM's bytes for $gen does not print the VM's text" $?
    "$bin" encode - < "$tmp/$n.back" | tr -d '\n' | cmp -s - "$tmp/$n.hex"; check "re-encoding the decoded $gen differs" $?
done
echo "cli_hashmap: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
