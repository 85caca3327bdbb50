#!/usr/bin/env bash
# layers.sh SOURCE_DIR: fails on an include that points up or sideways in the library's
# layers (terms -> codec -> alloc -> copy -> heaps -> stores -> scenarios: each may include only those before it).
# Inside the library an include is the file's own folder ("x.h") or a lower one ("../terms/x.h"),
# so the same text works in the source tree and under an install prefix. The umbrella
# termcopy.h at the root includes every public header (each folder's *.h but *_impl.h).
set -u
cd "${1:?usage: layers.sh SOURCE_DIR}" || exit 2
layers=(terms codec alloc copy heaps stores scenarios)
rank() { local i; for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }; done; echo -1; }
bad=0
for own in "${layers[@]}"; do
    r=$(rank "$own")
    for f in "$own"/*.[ch]; do
        [ -e "$f" ] || continue
        while IFS=: read -r line text; do
            inc=$(sed -E 's/^#include "([^"]+)".*/\1/' <<<"$text")
            case "$inc" in
            ../*/*)
                target=${inc#../}; target=${target%%/*}
                t=$(rank "$target")
                if [ "$t" -lt 0 ] || [ "$t" -ge "$r" ]; then
                    echo "$f:$line: $own/ includes $inc (${target}/ is not below ${own}/)"; bad=1
                fi ;;
            */*) echo "$f:$line: $own/ includes \"$inc\": use \"../${inc}\" (a path relative to the file)"; bad=1 ;;
            *) [ -e "$own/$inc" ] || { echo "$f:$line: \"$inc\" is not in $own/"; bad=1; } ;;
            esac
        done < <(grep -n '^#include "' "$f")
        # an installed (public) header must not pull in internals
        case "$f" in
        *_impl.h | *.c) ;;
        *) grep -n '^#include "[^"]*_impl\.h"' "$f" | sed "s|^|$f:|; s|\$| (a public header includes internals)|" | grep . && bad=1 ;;
        esac
    done
done
# the umbrella header includes every public header
for own in "${layers[@]}"; do
    for f in "$own"/*.h; do
        case "$f" in *_impl.h) continue ;; esac
        grep -qx "#include \"$f\"" termcopy.h || { echo "termcopy.h: does not include \"$f\""; bad=1; }
    done
done
[ "$bad" -eq 0 ] && echo "layers: every include points down (${layers[*]}); termcopy.h includes every public header"
exit "$bad"
