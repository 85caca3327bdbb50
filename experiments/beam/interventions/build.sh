#!/usr/bin/env bash
# Rebuild the installed Erlang VM from its own Debian source package, one patch at a time,
# and lay out a runnable root per variant: a copy of the installed /usr/lib/erlang with the
# rebuilt emulator in erts-<vsn>/bin and ROOTDIR pointing at the copy.
#
# usage: experiments/beam/interventions/build.sh [--cache DIR] [--list] [--help] [VARIANT...]
#   VARIANT     rebuilt  the JIT emulator from the unpatched source (proves the rebuild)
#               emu      the interpreter flavor, unpatched (run with -emu_flavor emu)
#               NAME     the JIT emulator with patches/NAME.patch applied
#               (default: rebuilt, emu and every patch). Prints "VARIANT ROOT FLAVOR" per
#               variant on stdout; run a variant as ROOT/bin/erl [-emu_flavor emu] ...
#   --cache DIR where the source, the build tree, the emulators and the roots live (default
#               build/vm-src in the checkout)
#   --list      print the variants and exit
#
# Steps (each reused when already done): a deb-src entry for the suite and URI the installed
# erlang-base came from (/etc/apt/sources.list.d/termcopy-src.sources) and apt-get update;
# apt-get source erlang=<installed version> into the cache (Debian's patches applied by
# dpkg-source -x); the build dependencies with apt-get; ./configure once (Debian's own flags
# from debian/rules, with javac, odbc and wx off; the documentation is never built); then per
# variant: restore every file any patch touches from the pristine tree, apply the variant's
# patch, make -C erts/emulator FLAVOR=jit|emu TYPE=opt, and keep the emulator under
# emulators/<flavor>-<sha256 of the patch>/ so an unchanged patch is never rebuilt. Measured
# on the shared 2-core machine under a load of 10-17: configure 44 s, the first JIT emulator
# 11 min, the interpreter 4 min, 9-28 s for each one-file patch after that.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cache="$root/build/vm-src" list=0 variants=()
while [ $# -gt 0 ]; do
    case "$1" in
    --cache) cache="${2:?--cache needs a directory}"; shift ;;
    --list) list=1 ;;
    --help|-h) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "build.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) variants+=("$1") ;;
    esac
    shift
done
patches=()
for p in "$here"/patches/*.patch; do [ -f "$p" ] && patches+=("$(basename "$p" .patch)"); done
if [ $list -eq 1 ]; then printf '%s\n' rebuilt emu "${patches[@]}"; exit 0; fi
[ ${#variants[@]} -gt 0 ] || variants=(rebuilt emu "${patches[@]}")

say() { echo "build.sh: $*" >&2; }
die() { echo "build.sh: $*" >&2; exit 1; }
for v in "${variants[@]}"; do
    case "$v" in rebuilt|emu) ;; *) [ -f "$here/patches/$v.patch" ] || die "no variant '$v' (no patches/$v.patch; see --list)" ;; esac
done
[ "$(id -u)" -eq 0 ] || die "must run as root (apt-get source and apt-get install)"
command -v dpkg-query >/dev/null && command -v apt-get >/dev/null || die "needs a Debian system with apt-get"

# The installed VM: its package version, its erts directory.
version=$(dpkg-query -W -f='${Version}' erlang-base 2>/dev/null) || die "erlang-base is not installed (apt-get install erlang-nox)"
otp=/usr/lib/erlang
erts=$(cd "$otp" && ls -d erts-* 2>/dev/null | head -n 1)
[ -n "$erts" ] && [ -x "$otp/$erts/bin/beam.smp" ] || die "no $otp/erts-*/bin/beam.smp"
upstream=${version#*:}; upstream=${upstream%-*}
mkdir -p "$cache" || die "cannot create $cache"
log="$cache/log"; mkdir -p "$log"
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8

# 1. The source package, exactly the installed version.
src="$cache/pristine"
if [ ! -f "$src/.termcopy-unpacked" ]; then
    if ! ls "$cache"/erlang_"$upstream"*.dsc >/dev/null 2>&1; then
        # The archive the installed version came from: apt-cache policy lists it under the
        # installed version ("*** VERSION" then "PRIO URI SUITE/COMPONENT ARCH Packages").
        line=$(apt-cache policy erlang-base | awk -v v="$version" '
            $1 == "***" && $2 == v { f = 1; next } f && $1 ~ /^[0-9]+$/ && $2 ~ /:\/\// { print $2, $3; exit }')
        [ -n "$line" ] || die "cannot tell which archive erlang-base $version came from (apt-cache policy erlang-base)"
        uri=${line% *} suite=${line#* }; component=${suite#*/}; suite=${suite%%/*}
        list=/etc/apt/sources.list.d/termcopy-src.sources
        key=/usr/share/keyrings/debian-archive-keyring.gpg
        if ! grep -qs "^URIs: $uri\$" "$list" || ! grep -qs "^Suites: $suite\$" "$list"; then
            say "adding a deb-src entry for $suite/$component ($list)"
            { echo "# written by termcopy experiments/beam/interventions/build.sh: the source of the installed erlang"
              echo "Types: deb-src"; echo "URIs: $uri"; echo "Suites: $suite"; echo "Components: $component"
              [ -f "$key" ] && echo "Signed-By: $key"; } >"$list" || die "cannot write $list"
        fi
        say "apt-get update (log: $log/apt-update.log)"
        apt-get update >"$log/apt-update.log" 2>&1 || die "apt-get update failed (see $log/apt-update.log)"
        say "apt-get source erlang=$version (about 48 MB)"
        (cd "$cache" && apt-get source --download-only "erlang=$version") >"$log/apt-source.log" 2>&1 ||
            die "cannot get the source of erlang=$version: the archive no longer has it or is not reachable (see $log/apt-source.log)"
    fi
    command -v dpkg-source >/dev/null || { say "apt-get install dpkg-dev"; apt-get install -y -q dpkg-dev >"$log/apt-dpkg-dev.log" 2>&1 || die "cannot install dpkg-dev (see $log/apt-dpkg-dev.log)"; }
    say "unpacking the source with Debian's patches into $src"
    rm -rf "$src"
    (cd "$cache" && dpkg-source -x "$(ls erlang_"$upstream"*.dsc | head -n 1)" "$src") >"$log/dpkg-source.log" 2>&1 ||
        die "dpkg-source -x failed (see $log/dpkg-source.log)"
    touch "$src/.termcopy-unpacked"
fi

# 2. Build dependencies (the emulator's only: no java, odbc, wx, docs).
deps=(gcc g++ make perl autoconf libncurses-dev libssl-dev zlib1g-dev libsctp-dev)
missing=()
for p in "${deps[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
    say "apt-get install ${missing[*]}"
    apt-get install -y -q --no-install-recommends "${missing[@]}" >"$log/apt-deps.log" 2>&1 ||
        { apt-get update >>"$log/apt-deps.log" 2>&1 && apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$log/apt-deps.log" 2>&1; } ||
        die "cannot install the build dependencies ${missing[*]} (see $log/apt-deps.log)"
fi

# 3. One configured build tree. Debian's configure line (debian/rules configure-stnd) without
# the options OTP 25 ignores or that only other applications use (systemd: epmd), and with
# javac, odbc and wx off; CFLAGS and GEN_OPT_FLGS as debian/rules sets them.
cflags="-g -O2 -fno-strict-aliasing"
genopt="-O2 -fno-strict-aliasing"
confflags="--prefix=/usr --libexecdir=/usr/bin --enable-kernel-poll --enable-esock --enable-sctp --enable-dynamic-ssl-lib --with-ssl-rpath=no --enable-ethread-pre-pentium4-compatibility --enable-shared-zlib --disable-builtin-zlib --without-ssl-zlib --without-javac --without-odbc --without-wx --disable-silent-rules"
work="$cache/work"
stamp="CFLAGS=$cflags GEN_OPT_FLGS=$genopt ./configure $confflags"
if [ "$(cat "$work/.termcopy-configured" 2>/dev/null)" != "$stamp" ]; then
    say "copying the pristine tree to $work"
    rm -rf "$work" && cp -a "$src" "$work" || die "cannot copy $src to $work"
    say "configure (about 1 min; log: $log/configure.log)"
    # shellcheck disable=SC2086 # the flags are words
    (cd "$work" && CFLAGS="$cflags" ./configure $confflags) >"$log/configure.log" 2>&1 ||
        die "configure failed (see $log/configure.log)"
    echo "$stamp" >"$work/.termcopy-configured"
fi
echo "$stamp" >"$cache/configure.flags"
target=$(cd "$work/erts" && ls -d *-*-linux-gnu 2>/dev/null | head -n 1)
[ -n "$target" ] || die "configure left no erts/<target> directory"

# Every file any patch touches goes back to the pristine copy (with a new mtime, so make
# rebuilds it): the tree then holds exactly the one patch being built.
restore() {
    local f
    for f in $(cat "$here"/patches/*.patch 2>/dev/null | sed -n 's/^+++ [ab]\/\([^[:space:]]*\).*/\1/p' | sort -u); do
        [ -f "$src/$f" ] && cp "$src/$f" "$work/$f"
    done
}

# build VARIANT: the emulator's directory under emulators/, built unless cached.
build_one() {
    local v="$1" flavor=jit patch="" key exe
    case "$v" in
    rebuilt) ;;
    emu) flavor=emu ;;
    *) patch="$here/patches/$v.patch" ;;
    esac
    key=$( { [ -n "$patch" ] && cat "$patch"; echo "$version $stamp"; } | sha256sum | cut -c1-16)
    exe=beam.smp
    [ "$flavor" = emu ] && exe=beam.emu
    local dir="$cache/emulators/$flavor-$key"
    if [ -x "$dir/$exe" ]; then
        say "$v: cached emulator $dir/$exe"
    else
        restore
        if [ -n "$patch" ]; then
            say "$v: applying patches/$v.patch"
            (cd "$work" && patch -p1 --forward --batch <"$patch") >"$log/patch-$v.log" 2>&1 ||
                { restore; die "patches/$v.patch does not apply to erlang $version (see $log/patch-$v.log)"; }
        fi
        local t0=$SECONDS
        say "$v: make -C erts/emulator FLAVOR=$flavor TYPE=opt (log: $log/make-$v.log)"
        (cd "$work" && ERL_TOP="$work" make -C erts/emulator FLAVOR=$flavor TYPE=opt GEN_OPT_FLGS="$genopt" -j"$(nproc)") \
            >"$log/make-$v.log" 2>&1 || { restore; die "$v: the emulator build failed (see $log/make-$v.log)"; }
        local built="$work/bin/$target/beam.$flavor"
        [ -x "$built" ] || { restore; die "$v: make left no $built"; }
        mkdir -p "$dir" && cp "$built" "$dir/$exe" || die "cannot write $dir"
        echo "$((SECONDS - t0))" >"$dir/build-seconds"
        restore
        say "$v: built in $((SECONDS - t0)) s"
    fi
    # The runnable root: the installed tree, this emulator, ROOTDIR pointing here.
    local r="$cache/roots/$v"
    rm -rf "$r" && mkdir -p "$(dirname "$r")" && cp -a "$otp" "$r" || die "cannot copy $otp to $r"
    cp "$dir/$exe" "$r/$erts/bin/$exe" || die "cannot install the emulator into $r"
    for f in "$r/bin/erl" "$r/bin/start" "$r/$erts/bin/erl" "$r/$erts/bin/start"; do
        [ -f "$f" ] && sed -i "s!ROOTDIR=.*!ROOTDIR=\"$r\"!" "$f"
    done
    local fl=""
    [ "$flavor" = emu ] && fl="-emu_flavor emu"
    # shellcheck disable=SC2086
    "$r/bin/erl" $fl -noshell -eval 'io:format("~s~n", [erlang:system_info(emu_flavor)]), halt().' >"$log/check-$v.log" 2>&1 &&
        grep -qx "$flavor" "$log/check-$v.log" || die "$v: the root $r does not start the $flavor emulator (see $log/check-$v.log)"
    echo "$v $r $flavor $key $(cat "$dir/build-seconds" 2>/dev/null || echo 0)"
}

for v in "${variants[@]}"; do build_one "$v" || exit 1; done
