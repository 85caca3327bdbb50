#!/usr/bin/env bash
# layers.sh SOURCE_DIR: fails on an include that points up or sideways anywhere in the tree.
#   - The library's floors (CMakeLists.txt's TC_LAYERS, bottom up: terms -> codec -> alloc ->
#     copy -> heaps -> stores -> scenarios) each include only their own folder ("x.h") or a
#     floor below ("../terms/x.h"), so the same text works in the source tree and under an
#     install prefix; a public header includes no internals (*_impl.h), and no floor
#     includes another floor's internals.
#   - experiments/ and tools/ stand on top: each includes its own folder ("harness.h") and
#     the library's public headers from the root ("scenarios/workload.h"), never the other
#     one, tests/, or any *_impl.h. tests/ may include anything; examples/ include only the
#     installed <termcopy/...> headers.
#   - Every folder with C sources is one of these, .clang-tidy's header filter names each,
#     and the umbrella termcopy.h at the root includes every public header (each floor's *.h
#     but *_impl.h).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/floors.sh" || exit 2
cd "${1:?usage: layers.sh SOURCE_DIR}" || exit 2
read -r -a layers <<<"$(tc_floors .)" || exit 2
[ ${#layers[@]} -gt 0 ] || exit 2
tops=(experiments tools)
rank() { local i; for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }; done; echo -1; }
bad=0
say() { echo "$*"; bad=1; }
includes() { grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$1" | sed -E 's/^([0-9]+):[^"]*"([^"]+)".*/\1:\2/'; }

for own in "${layers[@]}"; do
    r=$(rank "$own")
    for f in "$own"/*.[ch]; do
        [ -e "$f" ] || continue
        while IFS=: read -r line inc; do
            case "$inc" in
            ../*/*)
                target=${inc#../}; target=${target%%/*}
                t=$(rank "$target")
                if [ "$t" -lt 0 ] || [ "$t" -ge "$r" ]; then
                    say "$f:$line: $own/ includes $inc (${target}/ is not below ${own}/)"
                elif [ ! -e "$own/$inc" ]; then
                    say "$f:$line: \"$inc\" does not exist"
                fi
                case "$inc" in *_impl.h) say "$f:$line: $own/ includes another floor's internals ($inc)" ;; esac ;;
            */*) say "$f:$line: $own/ includes \"$inc\": use \"../${inc}\" (a path relative to the file)" ;;
            *) [ -e "$own/$inc" ] || say "$f:$line: \"$inc\" is not in $own/" ;;
            esac
        done < <(includes "$f")
        # an installed (public) header must not pull in internals
        case "$f" in
        *_impl.h | *.c) ;;
        *) while IFS=: read -r line inc; do
               case "$inc" in *_impl.h) say "$f:$line: a public header includes internals ($inc)" ;; esac
           done < <(includes "$f") ;;
        esac
    done
done

for own in "${tops[@]}"; do
    while read -r f; do
        while IFS=: read -r line inc; do
            case "$inc" in
            *_impl.h) say "$f:$line: $own/ includes internals ($inc): give it a public function" ;;
            ../* | ./*) say "$f:$line: $own/ includes \"$inc\": name a library header from the root (\"scenarios/x.h\")" ;;
            */*)
                target=${inc%%/*}
                if [ "$(rank "$target")" -lt 0 ]; then
                    say "$f:$line: $own/ includes \"$inc\" (${target}/ is not a floor of the library)"
                elif [ ! -e "$inc" ]; then
                    say "$f:$line: \"$inc\" does not exist"
                fi ;;
            *) [ -e "$(dirname "$f")/$inc" ] || say "$f:$line: \"$inc\" is not in $(dirname "$f")/" ;;
            esac
        done < <(includes "$f")
    done < <(find "$own" -name '*.[ch]' | sort)
done

for f in examples/*.c; do
    [ -e "$f" ] || continue
    while IFS=: read -r line inc; do say "$f:$line: an example includes \"$inc\": use <termcopy/...>"; done < <(includes "$f")
done

# every folder holding C sources is a floor, a top, tests/ or examples/
known=" ${layers[*]} ${tops[*]} tests examples build "
while read -r d; do
    case "$known" in *" $d "*) ;; *) say "$d/: C sources in a folder layers.sh does not know (add it to TC_LAYERS or here)" ;; esac
done < <(find . -path ./build -prune -o -path ./.git -prune -o -name '*.[ch]' -print | sed -E 's|^\./||; s|/.*||' | grep -v '\.[ch]$' | sort -u)

# clang-tidy checks the headers of every floor
filter=$(sed -n "s/^HeaderFilterRegex: //p" .clang-tidy)
for own in "${layers[@]}" "${tops[@]}"; do
    case "$filter" in *"|$own|"* | *"($own|"* | *"|$own)"*) ;; *) say ".clang-tidy: HeaderFilterRegex does not name $own/" ;; esac
done

# the umbrella header includes every public header
for own in "${layers[@]}"; do
    for f in "$own"/*.h; do
        case "$f" in *_impl.h) continue ;; esac
        grep -qx "#include \"$f\"" termcopy.h || say "termcopy.h: does not include \"$f\""
    done
done
[ "$bad" -eq 0 ] && echo "layers: every include points down (${layers[*]}, then ${tops[*]} on top, neither including the other); termcopy.h includes every public header"
exit "$bad"
