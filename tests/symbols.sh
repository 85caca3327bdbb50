#!/usr/bin/env bash
# symbols.sh SHARED_LIB SOURCE_DIR [CC]: the shared library exports exactly the tc_ API.
#   1. every public header (not *_impl.h) wraps its declarations in TC_BEGIN_DECLS ...
#      TC_END_DECLS (terms/base.h), which is what gives them default visibility in a build
#      with -fvisibility=hidden;
#   2. `nm -D --defined-only` shows only tc_ names, apart from the linker's own (listed
#      below; binutils 2.40 lists none of them, older ones do) and, in a sanitizer build,
#      AddressSanitizer's ODR indicator of each exported object (__odr_asan.tc_...);
#   3. every function and object the umbrella termcopy.h declares is exported, and nothing
#      else (needs gcc's -aux-info, which lists what a translation unit declares: CC, or gcc
#      when CC is clang).
set -u
lib=${1:?usage: symbols.sh SHARED_LIB SOURCE_DIR [CC]}
src=${2:?usage: symbols.sh SHARED_LIB SOURCE_DIR [CC]}
cc=${3:-cc}
src=$(cd "$src" && pwd) || exit 2
linker_symbols='^(_init|_fini|_edata|_end|__bss_start)$'
bad=0

for h in "$src"/{terms,codec,alloc,copy,heaps,stores,scenarios}/*.h; do
    case "$h" in *_impl.h) continue ;; esac
    for m in TC_BEGIN_DECLS TC_END_DECLS; do
        grep -q "^$m\$" "$h" || { echo "${h#"$src"/}: no $m (its functions would be hidden)"; bad=1; }
    done
done

exported=$(nm -D --defined-only "$lib" | awk 'NF == 3 {print $3}' | sort -u)
[ -n "$exported" ] || { echo "$lib: no dynamic symbols (nm -D failed?)"; exit 1; }
foreign=$(grep -v '^tc_' <<<"$exported" | grep -Ev "$linker_symbols" | while read -r s; do
    # AddressSanitizer's ODR indicator beside each exported object (--sanitize builds)
    case "$s" in __odr_asan.tc_* | __odr_asan_gen_tc_*)
        base=${s#__odr_asan.} && base=${base#__odr_asan_gen_}
        grep -qx "$base" <<<"$exported" && continue ;;
    esac
    echo "$s"
done)
if [ -n "$foreign" ]; then
    echo "exported without the tc_ prefix:"; sed 's/^/  /' <<<"$foreign"; bad=1
fi
api=$(grep '^tc_' <<<"$exported")

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
echo '#include "termcopy.h"' >"$tmp/all.c"
aux() { "$1" -std=c11 -I"$src" -c "$tmp/all.c" -o "$tmp/all.o" -aux-info "$tmp/aux" 2>/dev/null; }
if aux "$cc" || { command -v gcc >/dev/null && aux gcc && cc=gcc; }; then
    {
        # functions: the non-static prototypes the headers under SOURCE_DIR declare
        grep -F "/* $src/" "$tmp/aux" | grep -v '\*/ static ' | sed -E 's|^/\*[^*]*\*/ ||' |
            grep -oE '\btc_[a-z0-9_]+ \(' | sed 's/ ($//'
        # objects: extern declarations that are not functions
        "$cc" -std=c11 -I"$src" -E -P "$tmp/all.c" | grep -E '^extern [^(]*;' |
            sed -nE 's/^.*[^a-z0-9_](tc_[a-z0-9_]+)[[:space:]]*(\[[^]]*\])?[[:space:]]*;.*$/\1/p'
    } | sort -u >"$tmp/declared"
    missing=$(comm -23 "$tmp/declared" <(echo "$api"))
    undeclared=$(comm -13 "$tmp/declared" <(echo "$api"))
    [ -z "$missing" ] || { echo "declared in termcopy.h but not exported:"; sed 's/^/  /' <<<"$missing"; bad=1; }
    [ -z "$undeclared" ] || { echo "exported but not declared in termcopy.h:"; sed 's/^/  /' <<<"$undeclared"; bad=1; }
    checked="and each of the $(wc -l <"$tmp/declared") functions and objects termcopy.h declares"
else
    checked="(the declared-against-exported comparison needs gcc's -aux-info: skipped with $cc)"
fi
[ "$bad" -eq 0 ] && echo "symbols: $(wc -l <<<"$api") exported, all tc_ $checked"
exit "$bad"
