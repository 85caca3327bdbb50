#!/usr/bin/env bash
# symbols.sh SHARED_LIB STATIC_LIB SOURCE_DIR [CC]: the libraries expose exactly the tc_ API.
#   1. every public header (not *_impl.h) wraps its declarations in TC_BEGIN_DECLS ...
#      TC_END_DECLS (terms/base.h), which is what gives them default visibility in a build
#      with -fvisibility=hidden;
#   2. `nm -D --defined-only` of the shared library shows only tc_ names, apart from the
#      linker's own (listed below; binutils 2.40 lists none of them, older ones do) and, in a
#      sanitizer build, AddressSanitizer's ODR indicator of each exported object
#      (__odr_asan.tc_...);
#   3. every function and object the umbrella termcopy.h declares is exported, and nothing
#      else (needs gcc's -aux-info, which lists what a translation unit declares: CC, or gcc
#      when CC is clang);
#   4. every global symbol the static archive defines is either public (tc_, and exported
#      by the shared library) or internal (tc__, and not exported): an internal function is
#      static or tc__-prefixed, so nothing else of the library's can clash with a program's
#      own names when it links the archive.
set -u
usage="usage: symbols.sh SHARED_LIB STATIC_LIB SOURCE_DIR [CC]"
lib=${1:?$usage}
archive=${2:?$usage}
src=${3:?$usage}
cc=${4:-cc}
src=$(cd "$src" && pwd) || exit 2
linker_symbols='^(_init|_fini|_edata|_end|__bss_start)$'
bad=0

. "$src/tests/floors.sh"
floors=$(tc_floors "$src") || exit 2
for h in $(for d in $floors; do echo "$src/$d"/*.h; done); do
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
# The static archive: public or tc__, nothing else.
defined=$(nm --defined-only -g "$archive" | awk 'NF == 3 {print $3}' | sort -u)
[ -n "$defined" ] || { echo "$archive: no global symbols (nm failed?)"; exit 1; }
internal=$(grep -c '^tc__' <<<"$defined" || true)
strays=$(grep -v '^tc_' <<<"$defined" | while read -r s; do
    case "$s" in __odr_asan.tc_* | __odr_asan_gen_tc_*) continue ;; esac # AddressSanitizer's
    echo "$s"
done)
if [ -n "$strays" ]; then
    echo "global in $archive without the tc_ or tc__ prefix (make it static, or tc__ if another file needs it):"
    sed 's/^/  /' <<<"$strays"; bad=1
fi
unexported=$(grep '^tc_' <<<"$defined" | grep -v '^tc__' | comm -23 - <(echo "$api"))
if [ -n "$unexported" ]; then
    echo "tc_ globals in $archive that the shared library does not export (internal: name them tc__):"
    sed 's/^/  /' <<<"$unexported"; bad=1
fi
leaked=$(grep '^tc__' <<<"$exported" || true)
[ -z "$leaked" ] || { echo "internal tc__ symbols exported by $lib:"; sed 's/^/  /' <<<"$leaked"; bad=1; }

[ "$bad" -eq 0 ] && echo "symbols: $(wc -l <<<"$api") exported, all tc_ $checked; the archive's other $internal globals all tc__"
exit "$bad"
