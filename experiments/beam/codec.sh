#!/usr/bin/env bash
# The VM's side of the codec benchmark: experiments/beam/codec.erl on the payloads of a
# `copysweep --codec` CSV (its L column), into the same columns.
#
# usage: experiments/beam/codec.sh [--batches N] MODEL_CSV OUT_CSV
#   --batches N  timed batches of each (default 20; copysweep --codec --quick times 10)
# Exit 77 without erl and erlc; the .beam files go to a temp dir, removed afterwards.
set -u
here=$(cd "$(dirname "$0")" && pwd)
batches=20
[ "${1:-}" = --batches ] && { batches="${2:?--batches needs a number}"; shift 2; }
[ $# -eq 2 ] || { echo "usage: experiments/beam/codec.sh [--batches N] MODEL_CSV OUT_CSV" >&2; exit 2; }
command -v erl >/dev/null 2>&1 && command -v erlc >/dev/null 2>&1 || { echo "codec.sh: no erl/erlc, skipped" >&2; exit 77; }
specs=$(awk -F, '!/^#/ && $1 == "encode" { print $2 ":" $3 }' "$1")
[ -n "$specs" ] || { echo "codec.sh: no encode rows in $1" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
erlc -o "$tmp" "$here/eptest.erl" "$here/codec.erl" || exit 1
{
    echo "# experiment: experiments/beam/codec.erl --batches $batches (term_to_binary/1, binary_to_term/1)"
    echo "# emulator_flags: -noshell +S 2:2"
    echo "# otp: $(erl -noshell -eval 'io:format("~s", [erlang:system_info(otp_release)]), halt().')"
    # shellcheck disable=SC2086 # one argument per SHAPE:L
    erl -noshell +S 2:2 -pa "$tmp" -s codec main -extra --batches "$batches" $specs
} >"$2.tmp" || { rm -f "$2.tmp"; exit 1; }
mv "$2.tmp" "$2"
