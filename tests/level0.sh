#!/usr/bin/env bash
# level0.sh SOURCE_DIR [CC]: a level-0 build compiles fault injection out (terms/base.h).
# Builds the allocator (terms/base.c, terms/context.c) at TC_DEBUG_LEVEL 0 with a small
# program and runs it: tc_mem_fail_at says it is compiled out (false) and arms nothing, the
# armed call succeeds, the counters stay 0, and the compiled allocator reads no counter
# (no atomic instruction in tc_mem_alloc / tc_mem_free).
set -euo pipefail
src=${1:?usage: level0.sh SOURCE_DIR [CC]}
cc=${2:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/main.c" <<'C'
#include <stdio.h>

#include "terms/base.h"

int main(void)
{
    int bad = 0;
    if (tc_mem_fail_at(1)) {
        puts("tc_mem_fail_at armed a failure at level 0");
        bad = 1;
    }
    void *p = tc_mem_alloc(16), *q = tc_mem_calloc(2, 8);
    if (!p || !q) {
        puts("an allocation failed at level 0");
        bad = 1;
    }
    if (tc_mem_inject_failure() || tc_mem_calls() != 0 || tc_mem_live() != 0) {
        puts("level 0 counts or injects");
        bad = 1;
    }
    tc_mem_unchecked(1);
    tc_mem_unchecked(0);
    tc_mem_free(p);
    tc_mem_free(q);
    if (!bad)
        puts("level 0: fault injection compiled out");
    return bad;
}
C
flags=(-std=c11 -O2 -D_POSIX_C_SOURCE=200809L -DTC_DEBUG_LEVEL=0 -I"$src" -Wall -Wextra -Werror)
"$cc" "${flags[@]}" -c "$src/terms/base.c" -o "$tmp/base.o"
"$cc" "${flags[@]}" "$tmp/main.c" "$tmp/base.o" "$src/terms/context.c" -o "$tmp/level0" \
    $(pkg-config --libs libunwind) -lpthread
"$tmp/level0"
# what the allocator compiles to: no lock-prefixed (atomic) instruction in its functions
if command -v objdump >/dev/null; then
    body=$(objdump -d --no-show-raw-insn "$tmp/base.o" |
        awk '/^[0-9a-f]+ <tc_mem_(alloc|calloc|realloc|free)>:/ {on = 1; next} /^[0-9a-f]+ <.*>:/ {on = 0} on')
    [ -n "$body" ] || { echo "level0.sh: objdump found no tc_mem_alloc"; exit 1; }
    if grep -q 'lock ' <<<"$body"; then
        echo "level0.sh: the level-0 allocator still has atomic instructions:"; grep 'lock ' <<<"$body"; exit 1
    fi
    echo "level 0: tc_mem_alloc, calloc, realloc and free have no atomic instruction"
fi
