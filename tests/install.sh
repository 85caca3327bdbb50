#!/usr/bin/env bash
# install.sh BUILD_DIR SOURCE_DIR LIBDIR CC [CFLAGS]: what a C user of an installed termcopy
# does, in a temporary prefix that is removed afterwards (no network, no root):
#   cmake --install BUILD_DIR --prefix TMP; the layout (include/termcopy/..., no internals);
#   <prefix>/bin/termcopy runs from the prefix (its RUNPATH finds the shared library);
#   examples/size_term.c built with cc $(pkg-config --cflags --libs termcopy) and run;
#   the prefix moved elsewhere: pkg-config and the command follow it;
#   examples/ configured as its own CMake project (find_package(termcopy), termcopy::termcopy)
#   against the moved prefix, built, and both examples run.
# CFLAGS: what the library was built with that its users need too (the sanitizers).
set -euo pipefail
build=${1:?usage: install.sh BUILD_DIR SOURCE_DIR LIBDIR CC [CFLAGS]}
src=${2:?}
libdir=${3:?}
cc=${4:?}
read -r -a extra <<<"${5:-}"
term='{[1,2,3], <<"abc">>, 1.5}'
expect=$'flat:   15 words\nshared: 15 words'

tmp=$(mktemp -d "${TMPDIR:-/tmp}/termcopy-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }
run() { # run LOG CMD...: quiet unless it fails
    local log=$1; shift
    "$@" >"$tmp/$log.log" 2>&1 || { cat "$tmp/$log.log" >&2; fail "failed: $*"; }
}
unset LD_LIBRARY_PATH

prefix=$tmp/prefix
run install cmake --install "$build" --prefix "$prefix"
echo "installed into $prefix:"
(cd "$prefix" && find . -mindepth 1 -not -path './include/termcopy/*/*' | sort | sed 's|^\./|  |')

# Layout: one include root, headers under termcopy/, no internals.
[ -f "$prefix/include/termcopy/termcopy.h" ] || fail "no include/termcopy/termcopy.h"
for d in terms codec alloc copy heaps stores scenarios; do
    [ -d "$prefix/include/termcopy/$d" ] || fail "no include/termcopy/$d/"
    [ ! -e "$prefix/include/$d" ] || fail "include/$d/ is installed outside include/termcopy/"
done
[ -z "$(find "$prefix/include" -name '*_impl.h')" ] || fail "internals (*_impl.h) were installed"
pc=$prefix/$libdir/pkgconfig/termcopy.pc
[ -f "$pc" ] || fail "no $libdir/pkgconfig/termcopy.pc"
[ -f "$prefix/$libdir/cmake/termcopy/termcopyConfig.cmake" ] || fail "no $libdir/cmake/termcopy/termcopyConfig.cmake"

# The command, with no help from the build tree.
run help "$prefix/bin/termcopy" --help
got=$("$prefix/bin/termcopy" size --tsv "$term") || fail "termcopy size failed"
[ "$got" = $'15\t15' ] || fail "termcopy size --tsv printed '$got'"
found=$(ldd "$prefix/bin/termcopy" | awk '$1 ~ /^libtermcopy\.so/ {print $3}')
[ -n "$found" ] && [ "$(realpath "$(dirname "$found")")" = "$(realpath "$prefix/$libdir")" ] ||
    fail "bin/termcopy finds libtermcopy at '$found', not in $prefix/$libdir"

# pkg-config: -I<prefix>/include and -L<prefix>/<libdir>, whatever the prefix.
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
cflags=$(pkg-config --cflags termcopy) && libs=$(pkg-config --libs termcopy) || fail "pkg-config termcopy failed"
echo "pkg-config --cflags --libs termcopy: $cflags $libs"
same_dir() { [ "$(realpath -m "$1")" = "$(realpath -m "$2")" ]; }
# the one include flag into the prefix (libunwind's, from Requires.private, may follow)
only_include() { # only_include CFLAGS PREFIX
    local w n=0
    for w in $1; do
        case "$w" in -I"$2"/*) same_dir "${w#-I}" "$2/include" || return 1; n=$((n + 1)) ;; esac
    done
    [ "$n" -eq 1 ]
}
only_include "$cflags" "$prefix" || fail "--cflags is '$cflags', not -I$prefix/include"
libpath=$(pkg-config --variable=libdir termcopy)
same_dir "$libpath" "$prefix/$libdir" || fail "libdir is '$libpath'"
# shellcheck disable=SC2086 # the flags are words
run cc-size "$cc" -std=c11 -Wall -Wextra -Werror ${extra[@]+"${extra[@]}"} "$src/examples/size_term.c" \
    -o "$tmp/size_term" $cflags $libs -Wl,-rpath,"$libpath"
got=$("$tmp/size_term" "$term") || fail "size_term (pkg-config build) failed"
[ "$got" = "$expect" ] || fail "size_term printed '$got'"

# The whole tree moves: pkg-config (${pcfiledir}) and the command ($ORIGIN) follow it.
moved=$tmp/moved
mv "$prefix" "$moved"
export PKG_CONFIG_PATH=$moved/$libdir/pkgconfig
cflags=$(pkg-config --cflags termcopy)
only_include "$cflags" "$moved" || fail "after a move --cflags is '$cflags'"
run help-moved "$moved/bin/termcopy" --help

# CMake: examples/ as a project of its own, find_package(termcopy) from the moved prefix.
run cmake-configure cmake -S "$src/examples" -B "$tmp/ex" -DCMAKE_PREFIX_PATH="$moved" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="${extra[*]+${extra[*]}} -Wall -Wextra -Werror"
grep -qx "termcopy_DIR:PATH=$moved/$libdir/cmake/termcopy" "$tmp/ex/CMakeCache.txt" ||
    fail "find_package(termcopy) found $(grep '^termcopy_DIR' "$tmp/ex/CMakeCache.txt")"
run cmake-build cmake --build "$tmp/ex" -j 2
got=$("$tmp/ex/size_term" "$term") || fail "size_term (CMake build) failed"
[ "$got" = "$expect" ] || fail "size_term (CMake build) printed '$got'"
got=$("$tmp/ex/send_term") || fail "send_term (CMake build) failed"
grep -q '^received a list of 1000 elements$' <<<"$got" || fail "send_term printed '$got'"
echo "install: prefix layout, bin/termcopy, pkg-config and find_package(termcopy) all work (and after a move)"
