#!/usr/bin/env bash
# seed.sh TARGET_SOURCE TERMS_TSV CORPUS_DIR: one seed file per golden vector in CORPUS_DIR.
# A target whose source says "Seeds: the golden vectors' ext_hex" takes binary input and gets
# the ext_hex column as bytes, and the ext_compressed_hex column where a row compresses (refs,
# ports, pids and funs of this node and others, COMPRESSED terms); every other target gets the
# literal column (term text). A target's committed corpus (tests/fuzz/corpus/TARGET/: inputs a
# long run found, minimized with -merge=1) is added to the seeds.
set -eu
mkdir -p "$3"
kept="$(dirname "$1")/corpus/$(basename "$1" .c)"
if [ -d "$kept" ]; then cp "$kept"/* "$3"/; fi
if grep -q "Seeds: the golden vectors' ext_hex" "$1"; then
    i=0
    tail -n +2 "$2" | cut -f6,7 | while IFS=$'\t' read -r hex zhex; do
        i=$((i + 1))
        # shellcheck disable=SC2059 # the format is the bytes, as \x escapes
        [ "$hex" = - ] || printf "$(printf '%s' "$hex" | sed 's/../\\x&/g')" >"$3/x$i"
        # shellcheck disable=SC2059
        [ "$zhex" = - ] || [ "$zhex" = "$hex" ] || printf "$(printf '%s' "$zhex" | sed 's/../\\x&/g')" >"$3/z$i"
    done
else
    tail -n +2 "$2" | cut -f2 | split -l 1 - "$3/v"
fi
