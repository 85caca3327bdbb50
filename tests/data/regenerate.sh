#!/bin/sh
# Regenerates the golden vectors tests/data/terms.tsv from the installed VM: every expression
# of tests/data/terms.exprs, evaluated by erl_eval (tests/data/vectors.escript). Needs erl.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
command -v escript >/dev/null || { echo "regenerate.sh: escript not found (install erlang-nox)" >&2; exit 2; }
escript "$here/vectors.escript" "$here/terms.exprs" > "$here/terms.tsv.new"
mv "$here/terms.tsv.new" "$here/terms.tsv"
echo "regenerate.sh: $(($(wc -l < "$here/terms.tsv") - 1)) rows from $(erl -noshell -eval 'io:put_chars(erlang:system_info(otp_release)), halt().') into $here/terms.tsv"
