#!/usr/bin/env bash
# Rebuild the Erlang VM from a Debian source package, one patch at a time, and lay out a
# runnable root per variant. The installed VM's own source (the default) gets a copy of the
# installed /usr/lib/erlang with the rebuilt emulator in erts-<vsn>/bin; a newer source
# (--source) gets a root of its own: its erts and the precompiled kernel, stdlib and compiler
# of its bootstrap/ (a newer OTP cannot boot on the installed OTP 25 libraries).
#
# usage: experiments/beam/interventions/build.sh [--source SOURCE] [--cache DIR] [--list] [--help]
#                                                [VARIANT...]
#   VARIANT     rebuilt  the JIT emulator from the unpatched source (proves the rebuild)
#               emu      the interpreter flavor, unpatched (run with -emu_flavor emu)
#               NAME     the JIT emulator with patches/NAME.patch applied (a newer source:
#                        patches/NAME@SOURCE.patch, ported to it)
#               (default: rebuilt, emu and every patch of the source). Prints "VARIANT ROOT
#               FLAVOR KEY BUILD_SECONDS" per variant on stdout; run a variant as
#               ROOT/bin/erl [-emu_flavor emu] ...
#   --source S  debian-UPSTREAM: which erlang source package (default: the installed
#               erlang-base's, debian-25.2.3 here; debian-27.3.4.1 is trixie's)
#   --cache DIR where the sources, build trees, emulators and roots live (default build/vm-src
#               in the checkout; a newer source under DIR/SOURCE)
#   --list      print the source's variants and exit
#
# Steps (each reused when already done): a deb-src entry for the suite and URI the installed
# erlang-base came from (/etc/apt/sources.list.d/termcopy-src.sources; a newer source: trixie,
# trixie-updates, trixie-security and sid in termcopy-src-newer.sources) and apt-get update;
# apt-get source erlang=<version> into the cache (Debian's patches applied by dpkg-source -x;
# when the archive serves the upstream tarball but not the .dsc, the tarball alone, its sha256
# checked against the Sources index, and the cache's PROVENANCE says so); the build
# dependencies with apt-get; ./configure once (Debian's own flags from debian/rules, with
# javac, odbc and wx off; the documentation is never built); a newer source then builds its
# erts once (erl_interface, then make -C erts FLAVOR=jit opt: the emulator, erlexec,
# erl_child_setup, epmd) and lays out a base root; then per variant: restore every file any
# patch touches from the pristine tree, apply the variant's patch, make -C erts/emulator
# FLAVOR=jit|emu TYPE=opt, and keep the emulator under emulators/<flavor>-<sha256 of the
# patch>/ so an unchanged patch is never rebuilt. Measured on the shared 2-core machine under
# a load of 10-17: configure 44 s, the first JIT emulator 11 min, the interpreter 4 min, 9-28 s
# for each one-file patch after that (OTP 25); see experiments/beam/README.md for a newer one.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cache="$root/build/vm-src" list=0 variants=() source=""
while [ $# -gt 0 ]; do
    case "$1" in
    --cache) cache="${2:?--cache needs a directory}"; shift ;;
    --source)
        [ $# -ge 2 ] || { echo "build.sh: --source needs a source (debian-UPSTREAM)" >&2; exit 2; }
        source="$2"; shift
        [[ "$source" =~ ^debian-[0-9]+(\.[0-9]+)*$ ]] ||
            { echo "build.sh: --source '$source': not debian-UPSTREAM (e.g. debian-27.3.4.1)" >&2; exit 2; } ;;
    --list) list=1 ;;
    --help|-h) sed -n '2,37p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "build.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) variants+=("$1") ;;
    esac
    shift
done

say() { echo "build.sh: $*" >&2; }
die() { echo "build.sh: $*" >&2; exit 1; }
# The source label of a Debian version: debian- and the upstream version without epoch,
# Debian revision and repack suffix (1:25.2.3+dfsg-1+deb12u4 -> debian-25.2.3).
label_of() { local u=${1#*:}; u=${u%-*}; echo "debian-${u%%[+~]*}"; }
installed_version=$(dpkg-query -W -f='${Version}' erlang-base 2>/dev/null) || installed_version=""
installed=""
[ -n "$installed_version" ] && installed=$(label_of "$installed_version")
[ -n "$source" ] || source=${installed:-debian-installed}
newer=0
[ "$source" = "$installed" ] || [ "$source" = debian-installed ] || newer=1

# The source's patches: patches/NAME.patch for the installed source, patches/NAME@SOURCE.patch
# (ported) for a newer one.
patches=()
for p in "$here"/patches/*.patch; do
    [ -f "$p" ] || continue
    b=$(basename "$p" .patch)
    if [ $newer -eq 0 ]; then
        case "$b" in *@*) ;; *) patches+=("$b") ;; esac
    else
        case "$b" in *@"$source") patches+=("${b%@*}") ;; esac
    fi
done
patch_of() { if [ $newer -eq 0 ]; then echo "$here/patches/$1.patch"; else echo "$here/patches/$1@$source.patch"; fi; }
if [ $list -eq 1 ]; then printf '%s\n' rebuilt emu ${patches[@]+"${patches[@]}"}; exit 0; fi
[ ${#variants[@]} -gt 0 ] || variants=(rebuilt emu ${patches[@]+"${patches[@]}"})
for v in "${variants[@]}"; do
    case "$v" in rebuilt|emu) ;; *) [ -f "$(patch_of "$v")" ] || die "no variant '$v' of $source (no $(patch_of "$v" | sed "s!^$root/!!"); see --list)" ;; esac
done
[ "$(id -u)" -eq 0 ] || die "must run as root (apt-get source and apt-get install)"
command -v dpkg-query >/dev/null && command -v apt-get >/dev/null || die "needs a Debian system with apt-get"
[ -n "$installed_version" ] || die "erlang-base is not installed (apt-get install erlang-nox)"
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8

# The installed VM: its erts directory (its tree is the root of the installed source's variants).
otp=/usr/lib/erlang
erts=$(cd "$otp" && ls -d erts-* 2>/dev/null | head -n 1)
[ -n "$erts" ] && [ -x "$otp/$erts/bin/beam.smp" ] || die "no $otp/erts-*/bin/beam.smp"
if [ $newer -eq 1 ]; then cache="$cache/$source"; fi
mkdir -p "$cache" || die "cannot create $cache"
log="$cache/log"; mkdir -p "$log"

# 1. The source package: the installed version, or the newest Debian revision of the asked
# upstream version among the archive's sources.
if [ $newer -eq 0 ]; then
    version=$installed_version
else
    newest_of() {
        apt-cache showsrc erlang 2>/dev/null | awk '/^Version:/ { print $2 }' | sort -u |
            while read -r v; do [ "$(label_of "$v")" = "$source" ] && echo "$v"; done | sort -V | tail -n 1
    }
    version=$(newest_of)
    if [ -z "$version" ]; then
        list=/etc/apt/sources.list.d/termcopy-src-newer.sources
        key=/usr/share/keyrings/debian-archive-keyring.gpg
        uri=$(apt-cache policy erlang-base | awk '$2 ~ /:\/\// && $3 ~ /^[a-z]+\// { print $2; exit }')
        [ -n "$uri" ] || die "cannot tell which Debian mirror erlang-base came from (apt-cache policy erlang-base)"
        say "adding deb-src entries for trixie and sid ($list)"
        { echo "# written by termcopy experiments/beam/interventions/build.sh: newer erlang sources (trixie, sid)"
          echo "Types: deb-src"; echo "URIs: $uri"; echo "Suites: trixie trixie-updates sid"; echo "Components: main"
          [ -f "$key" ] && echo "Signed-By: $key"
          echo; echo "Types: deb-src"; echo "URIs: ${uri%/debian}/debian-security"; echo "Suites: trixie-security"; echo "Components: main"
          [ -f "$key" ] && echo "Signed-By: $key"; } >"$list" || die "cannot write $list"
        say "apt-get update (log: $log/apt-update.log)"
        apt-get update >"$log/apt-update.log" 2>&1 || die "apt-get update failed (see $log/apt-update.log)"
        version=$(newest_of)
    fi
    [ -n "$version" ] || die "Debian offers no erlang source of $source (apt-cache showsrc erlang: $(apt-cache showsrc erlang 2>/dev/null | awk '/^Version:/ { printf "%s ", $2 }'))"
fi
upstream=${version#*:}; upstream=${upstream%-*}
src="$cache/pristine"
if [ ! -f "$src/.termcopy-unpacked" ]; then
    if ! ls "$cache"/erlang_"$upstream"*.dsc >/dev/null 2>&1; then
        if [ $newer -eq 0 ]; then
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
        fi
        say "apt-get source erlang=$version (about 48 MB)"
        (cd "$cache" && apt-get source --download-only "erlang=$version") >"$log/apt-source.log" 2>&1 ||
            [ $newer -eq 1 ] ||
            die "cannot get the source of erlang=$version: the archive no longer has it or is not reachable (see $log/apt-source.log)"
    fi
    command -v dpkg-source >/dev/null || { say "apt-get install dpkg-dev"; apt-get install -y -q dpkg-dev >"$log/apt-dpkg-dev.log" 2>&1 || die "cannot install dpkg-dev (see $log/apt-dpkg-dev.log)"; }
    rm -rf "$src"
    if ls "$cache"/erlang_"$upstream"*.dsc >/dev/null 2>&1; then
        say "unpacking the source with Debian's patches into $src"
        (cd "$cache" && dpkg-source -x "$(ls erlang_"$upstream"*.dsc | head -n 1)" "$src") >"$log/dpkg-source.log" 2>&1 ||
            die "dpkg-source -x failed (see $log/dpkg-source.log)"
        echo "erlang $version: apt-get source; Debian's patches applied by dpkg-source -x" >"$cache/PROVENANCE"
    else
        # The archive served the upstream tarball but not the .dsc and Debian's patches: the
        # tarball alone, if it is the one the Sources index names.
        orig=$(apt-get source --print-uris "erlang=$version" 2>/dev/null | awk '$2 ~ /\.orig\.tar\./ { print $2, $4; exit }')
        name=${orig% *} sum=${orig#*SHA256:}
        [ -n "$orig" ] && [ -f "$cache/$name" ] ||
            die "cannot get the source of erlang=$version: the archive does not serve it (see $log/apt-source.log)"
        [ "$(sha256sum "$cache/$name" | cut -d' ' -f1)" = "$sum" ] || die "$name: its sha256 is not the Sources index's ($sum)"
        say "the archive serves no .dsc of erlang=$version: unpacking $name alone (Debian's patches not applied)"
        mkdir -p "$src" && tar -xf "$cache/$name" -C "$src" --strip-components=1 || die "cannot unpack $name"
        echo "erlang $version: $name only (sha256 $sum, as the Sources index), unpacked by tar: the archive served neither the .dsc nor Debian's patches (debian.tar), so they are not applied" >"$cache/PROVENANCE"
    fi
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
# javac, odbc and wx off; CFLAGS and GEN_OPT_FLGS as debian/rules sets them. A newer source
# gets the same line (options it no longer knows are warnings of configure).
cflags="-g -O2 -fno-strict-aliasing"
genopt="-O2 -fno-strict-aliasing"
confflags="--prefix=/usr --libexecdir=/usr/bin --enable-kernel-poll --enable-esock --enable-sctp --enable-dynamic-ssl-lib --with-ssl-rpath=no --enable-ethread-pre-pentium4-compatibility --enable-shared-zlib --disable-builtin-zlib --without-ssl-zlib --without-javac --without-odbc --without-wx --disable-silent-rules"
work="$cache/work"
stamp="CFLAGS=$cflags GEN_OPT_FLGS=$genopt ./configure $confflags"
if [ "$(cat "$work/.termcopy-configured" 2>/dev/null)" != "$stamp" ]; then
    say "copying the pristine tree to $work"
    rm -rf "$work" && cp -a "$src" "$work" || die "cannot copy $src to $work"
    say "configure (about 1 min; log: $log/configure.log)"
    t0=$SECONDS
    # shellcheck disable=SC2086 # the flags are words
    (cd "$work" && CFLAGS="$cflags" ./configure $confflags) >"$log/configure.log" 2>&1 ||
        die "configure failed (see $log/configure.log)"
    echo "$((SECONDS - t0))" >"$cache/configure-seconds"
    echo "$stamp" >"$work/.termcopy-configured"
fi
echo "$stamp" >"$cache/configure.flags"
target=$(cd "$work/erts" && ls -d *-*-linux-gnu 2>/dev/null | head -n 1)
[ -n "$target" ] || die "configure left no erts/<target> directory"

# Every file any patch of this source touches goes back to the pristine copy (with a new
# mtime, so make rebuilds it): the tree then holds exactly the one patch being built.
restore() {
    local f p
    for p in ${patches[@]+"${patches[@]}"}; do
        for f in $(sed -n 's/^+++ [ab]\/\([^[:space:]]*\).*/\1/p' "$(patch_of "$p")"); do
            [ -f "$src/$f" ] && cp "$src/$f" "$work/$f"
        done
    done
}

# 4. A newer source: its erts built once, and a base root laid out as an installed OTP is
# (bin/erl, erts-<vsn>/bin, lib/APP/ebin) with the bootstrap's kernel, stdlib and compiler.
if [ $newer -eq 1 ]; then
    ertsvsn=$(sed -n 's/^VSN *= *//p' "$work/erts/vsn.mk")
    [ -n "$ertsvsn" ] || die "no VSN in $work/erts/vsn.mk"
    base="$cache/base"
    if [ "$(cat "$base/.termcopy-base" 2>/dev/null)" != "$stamp" ]; then
        restore
        t0=$SECONDS
        # erl_interface first, as the top-level Makefile orders it: erts/etc installs its erl_call.
        say "make -C lib/erl_interface opt; make -C erts NO_START_SCRIPTS=true FLAVOR=jit opt: erts once (about 25 min; log: $log/make-erts.log)"
        (cd "$work" && export ERL_TOP="$work" && make -C lib/erl_interface opt -j"$(nproc)" &&
            make -C erts NO_START_SCRIPTS=true FLAVOR=jit opt GEN_OPT_FLGS="$genopt" -j"$(nproc)") \
            >"$log/make-erts.log" 2>&1 || die "the erts build failed (see $log/make-erts.log)"
        echo "$((SECONDS - t0))" >"$cache/erts-seconds"
        rm -rf "$base" && mkdir -p "$base/bin" "$base/erts-$ertsvsn/bin" "$base/lib" || die "cannot create $base"
        for f in "$work/bin/$target"/*; do
            case "$(basename "$f")" in beam.*|*.debug|*.valgrind|*.lcnt|*.frmptr) continue ;; esac
            [ -f "$f" ] && [ -x "$f" ] && cp "$f" "$base/erts-$ertsvsn/bin/"
        done
        [ -x "$base/erts-$ertsvsn/bin/erlexec" ] && [ -x "$base/erts-$ertsvsn/bin/erl_child_setup" ] ||
            die "the erts build left no erlexec or erl_child_setup in $work/bin/$target"
        # bin/erl as `make install` writes it (erts/etc/unix/erl.src.src, its placeholders filled).
        sed -e "s;%FINAL_ROOTDIR%;$base;" -e "s;%VSN%;$ertsvsn;" -e "s;%EMULATOR%%EMULATOR_NUMBER%;beam;" \
            -e "s;%DYN_ERL_PATH%;../erts-$ertsvsn/bin/dyn_erl;" -e "s;%DYN_ROOTDIR_BASE_EXT%;;" \
            "$work/erts/etc/unix/erl.src.src" >"$base/bin/erl" && chmod 755 "$base/bin/erl" || die "cannot write $base/bin/erl"
        for b in erlc escript; do cp "$base/erts-$ertsvsn/bin/$b" "$base/bin/$b" || die "no $b in the erts build"; done
        cp "$work/bootstrap/bin/"*.boot "$base/bin/" || die "no boot scripts in $work/bootstrap/bin"
        for a in kernel stdlib compiler; do
            cp -a "$work/bootstrap/lib/$a" "$base/lib/$a" || die "no $a in $work/bootstrap/lib"
        done
        echo "$stamp" >"$base/.termcopy-base"
    fi
fi

# build VARIANT: the emulator's directory under emulators/, built unless cached.
build_one() {
    local v="$1" flavor=jit patch="" key exe
    case "$v" in
    rebuilt) ;;
    emu) flavor=emu ;;
    *) patch=$(patch_of "$v") ;;
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
            say "$v: applying $(basename "$patch")"
            (cd "$work" && patch -p1 --forward --batch <"$patch") >"$log/patch-$v.log" 2>&1 ||
                { restore; die "$(basename "$patch") does not apply to erlang $version (see $log/patch-$v.log)"; }
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
    # The runnable root: the installed tree (a newer source: its base root), this emulator,
    # ROOTDIR pointing here.
    local r="$cache/roots/$v" from="$otp" ev="$erts"
    [ $newer -eq 1 ] && from="$base" ev="erts-$ertsvsn"
    rm -rf "$r" && mkdir -p "$(dirname "$r")" && cp -a "$from" "$r" || die "cannot copy $from to $r"
    cp "$dir/$exe" "$r/$ev/bin/$exe" || die "cannot install the emulator into $r"
    for f in "$r/bin/erl" "$r/bin/start" "$r/$ev/bin/erl" "$r/$ev/bin/start"; do
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
