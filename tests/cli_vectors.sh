#!/usr/bin/env bash
# The golden vectors are the installed VM's: tests/data/vectors.escript --check evaluates every
# expression of terms.exprs and compares its row of terms.tsv column by column. What is a
# property of the term (sizes, bytes, ~w text) must be byte for byte the VM's; the columns a row
# marks instance_specific follow the VM instance's atom table (a remote node's channel number,
# an atom-keyed hashmap's node order) and are compared normalised, so the test passes on any
# machine and any VM instance. An edited row, or a row no expression made, fails. No erl: exit 77.
# $1: build directory root (unused); $2: tests/data.
set -u
data="$2"
if ! command -v escript >/dev/null 2>&1; then
    echo "escript not found: skipping the vector check; apt-get install erlang-nox"
    exit 77
fi
escript "$data/vectors.escript" --check "$data/terms.exprs" "$data/terms.tsv" ||
    { echo "FAIL: terms.tsv is not what the VM gives for terms.exprs (run tests/data/regenerate.sh)"; exit 1; }
